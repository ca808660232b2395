//! `git codesearch hooks install|uninstall`: the post-checkout / post-merge / post-rewrite
//! hooks that keep the index current in the background (`git::hooks` writes them).

use std::io::Write;
use std::path::Path;

use super::args::HooksAction;
use super::common::Outcome;
use git_codesearch::git::hooks::{self, HookChange};
use git_codesearch::Error;

/// Run `hooks install|uninstall`.
pub fn run(dir: &Path, action: &HooksAction) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let hooks_dir = hooks::hooks_dir(&ws.workdir)?;
    let changes = match action {
        HooksAction::Install => {
            let bin = std::env::current_exe().unwrap_or_else(|_| "git-codesearch".into());
            hooks::install(&hooks_dir, &bin)?
        }
        HooksAction::Uninstall => hooks::uninstall(&hooks_dir)?,
    };
    let mut out = std::io::stdout();
    for c in changes {
        let line = match c {
            HookChange::Installed(p) => format!("installed {}", p.display()),
            HookChange::Chained(p) => format!("installed {} (your hook runs first)", p.display()),
            HookChange::Updated(p) => format!("updated {}", p.display()),
            HookChange::Removed {
                path,
                restored: true,
            } => {
                format!("removed {} (your hook is back)", path.display())
            }
            HookChange::Removed { path, .. } => format!("removed {}", path.display()),
            HookChange::Absent(p) => format!("not installed: {}", p.display()),
        };
        writeln!(out, "{line}").map_err(Error::Output)?;
    }
    Ok(Outcome::Found)
}
