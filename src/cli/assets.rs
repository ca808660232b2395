//! Files generated from the clap definition and committed: the man page that
//! `git help codesearch` / `git codesearch --help` opens, and shell completions (bash with
//! the `_git_codesearch` function git's own completion calls, zsh, fish). A test checks the
//! committed files equal freshly generated ones.

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use super::args::Cli;

/// The bash function git's completion (`git codesearch <TAB>`) calls: it re-frames the
/// words as if `git-codesearch` had been typed and hands over to clap's completer.
const GIT_BASH_BRIDGE: &str = r#"
# Called by git's bash completion for `git codesearch ...`.
_git_codesearch() {
    local idx=${__git_cmd_idx:-1}
    local COMP_WORDS=("git-codesearch" "${words[@]:idx+1}")
    local COMP_CWORD=$((cword - idx))
    _git__codesearch "git-codesearch" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Every generated file: (path relative to the repository root, contents).
pub fn generate() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    // Completion functions are named after the binary git runs, not "git codesearch".
    let mut cmd = Cli::command().bin_name("git-codesearch");
    let mut out = Vec::new();
    let mut man = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut man)?;
    out.push(("man/git-codesearch.1".to_string(), man));
    for (shell, file) in [
        (Shell::Bash, "git-codesearch.bash"),
        (Shell::Zsh, "_git-codesearch"),
        (Shell::Fish, "git-codesearch.fish"),
    ] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "git-codesearch", &mut buf);
        if shell == Shell::Bash {
            // clap_complete 4.6 names a nested command's case `git__subcmd__codesearch__…`
            // (it turns the binary's '-' into its separator) but dispatches to
            // `git__codesearch__…`; without this, no option after a command completes.
            let text =
                String::from_utf8_lossy(&buf).replace("git__subcmd__codesearch", "git__codesearch");
            buf = text.into_bytes();
            buf.extend_from_slice(GIT_BASH_BRIDGE.as_bytes());
        }
        out.push((format!("completions/{file}"), buf));
    }
    Ok(out)
}

/// Write every generated file under `root`.
pub fn write_all(root: &Path) -> std::io::Result<Vec<String>> {
    let mut written = Vec::new();
    for (rel, bytes) in generate()? {
        let path = root.join(&rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, bytes)?;
        written.push(rel);
    }
    Ok(written)
}
