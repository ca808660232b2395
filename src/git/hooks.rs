//! Installing and removing our `post-checkout`, `post-merge` and `post-rewrite` hooks
//! (templates in `hooks/`). The hooks directory is the one git uses (`core.hooksPath`
//! respected). A hook already there is never clobbered: it is moved aside, our hook runs it
//! first with the same arguments and input, and uninstall moves it back byte for byte.

use std::path::{Path, PathBuf};

/// Hooks we install, with their templates.
pub const HOOKS: &[(&str, &str)] = &[
    ("post-checkout", include_str!("../../hooks/post-checkout")),
    ("post-merge", include_str!("../../hooks/post-merge")),
    ("post-rewrite", include_str!("../../hooks/post-rewrite")),
];

/// Marker that identifies our hook files.
const MARKER: &str = "# git-codesearch ";
/// Suffix of a user's hook that ours chains to.
const CHAINED: &str = ".codesearch-chained";

/// Errors while installing or removing hooks.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// `git rev-parse --git-path hooks` failed.
    #[error("cannot find the hooks directory of {workdir}")]
    Locate {
        workdir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Reading or writing a hook file failed.
    #[error("cannot write hook {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Both a user hook and a chained copy exist: we will not guess which to keep.
    #[error("{path} and {path}{CHAINED} both exist and neither is ours")]
    Conflict { path: PathBuf },
}

impl HookError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            HookError::Conflict { .. } => Some(format!(
                "merge the two hooks by hand (or remove the {CHAINED} copy), then install again"
            )),
            HookError::Locate { .. } => Some("is git on PATH?".into()),
            HookError::Io { .. } => Some("check the permissions of the hooks directory".into()),
        }
    }
}

/// What happened to one hook.
#[derive(Debug, Clone, PartialEq)]
pub enum HookChange {
    /// Written fresh.
    Installed(PathBuf),
    /// Written, with the user's existing hook chained.
    Chained(PathBuf),
    /// Ours was already there (rewritten in place).
    Updated(PathBuf),
    /// Removed; the user's hook, if any, was restored.
    Removed { path: PathBuf, restored: bool },
    /// Nothing of ours was there.
    Absent(PathBuf),
}

/// The directory git runs hooks from, for the repository at `workdir`.
pub fn hooks_dir(workdir: &Path) -> Result<PathBuf, HookError> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .current_dir(workdir)
        .output()
        .map_err(|e| HookError::Locate {
            workdir: workdir.into(),
            source: e,
        })?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(HookError::Locate {
            workdir: workdir.into(),
            source: std::io::Error::other(msg),
        });
    }
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(if dir.is_absolute() {
        dir
    } else {
        workdir.join(dir)
    })
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> HookError + '_ {
    move |e| HookError::Io {
        path: path.into(),
        source: e,
    }
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .map(|s| s.lines().nth(1).is_some_and(|l| l.starts_with(MARKER)))
        .unwrap_or(false)
}

fn chained_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(CHAINED);
    PathBuf::from(s)
}

/// Install our hooks into `dir`, calling the binary at `bin`.
pub fn install(dir: &Path, bin: &Path) -> Result<Vec<HookChange>, HookError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut changes = Vec::new();
    for (name, template) in HOOKS {
        let path = dir.join(name);
        let chained = chained_path(&path);
        let change = if path.exists() && is_ours(&path) {
            HookChange::Updated(path.clone())
        } else if path.exists() || path.is_symlink() {
            if chained.exists() {
                return Err(HookError::Conflict { path });
            }
            std::fs::rename(&path, &chained).map_err(io_err(&path))?;
            HookChange::Chained(path.clone())
        } else {
            HookChange::Installed(path.clone())
        };
        let text = template.replace("@BIN@", &shell_quote(&bin.display().to_string()));
        write_executable(&path, &text)?;
        changes.push(change);
    }
    Ok(changes)
}

/// Remove our hooks from `dir`, restoring chained user hooks.
pub fn uninstall(dir: &Path) -> Result<Vec<HookChange>, HookError> {
    let mut changes = Vec::new();
    for (name, _) in HOOKS {
        let path = dir.join(name);
        if !path.exists() || !is_ours(&path) {
            changes.push(HookChange::Absent(path));
            continue;
        }
        std::fs::remove_file(&path).map_err(io_err(&path))?;
        let chained = chained_path(&path);
        let restored = chained.exists() || chained.is_symlink();
        if restored {
            std::fs::rename(&chained, &path).map_err(io_err(&chained))?;
        }
        changes.push(HookChange::Removed { path, restored });
    }
    Ok(changes)
}

/// `text` as one single-quoted POSIX shell word: nothing inside is expanded (a binary path
/// holding `$(…)` or a backquote once ran a command at every checkout).
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn write_executable(path: &Path, text: &str) -> Result<(), HookError> {
    // Write then rename, so git never runs a half-written hook.
    let tmp = path.with_extension("codesearch-tmp");
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_chains_and_uninstall_restores_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("post-merge");
        std::fs::write(&user, "#!/bin/sh\necho mine\n").unwrap();
        let changes = install(dir.path(), Path::new("/usr/bin/git-codesearch")).unwrap();
        assert!(changes.contains(&HookChange::Chained(user.clone())));
        assert!(is_ours(&user));
        assert_eq!(
            std::fs::read_to_string(chained_path(&user)).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        // Installing twice is harmless.
        install(dir.path(), Path::new("/usr/bin/git-codesearch")).unwrap();
        uninstall(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&user).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        assert!(!dir.path().join("post-checkout").exists());
        assert!(!chained_path(&user).exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_binary_path_is_never_expanded_by_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("pwned");
        let bin = format!(
            "/opt/x\"$(touch {m})`touch {m}`'$(touch {m})/git-codesearch",
            m = marker.display()
        );
        install(dir.path(), Path::new(&bin)).unwrap();
        let text = std::fs::read_to_string(dir.path().join("post-checkout")).unwrap();
        assert!(text.contains(&shell_quote(&bin)));
        let out = std::process::Command::new("sh")
            .arg(dir.path().join("post-checkout"))
            .current_dir(dir.path())
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(
            !marker.exists(),
            "the hook ran a command from the binary path"
        );
    }
}
