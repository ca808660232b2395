//! `git codesearch export FILE` and `git codesearch import FILE`: an index snapshot to share
//! (the checks of an untrusted snapshot live in the library, `share::file`).

use std::io::Write;
use std::path::Path;

use super::common::Outcome;
use super::render;
use git_codesearch::git::display_key;
use git_codesearch::Error;

/// Run `export FILE`.
pub fn export(dir: &Path, file: &Path) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let bytes = git_codesearch::share::file::export(&ws, file)?;
    writeln!(
        std::io::stdout(),
        "wrote {} ({:.1} MiB)",
        file.display(),
        bytes as f64 / 1048576.0
    )
    .map_err(Error::Output)?;
    Ok(Outcome::Found)
}

/// Run `import FILE`.
pub fn import(dir: &Path, file: &Path) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let done = git_codesearch::share::file::import(&ws, file)?;
    // Branch names come from the snapshot: escaped like any text from outside.
    let branches: Vec<String> = done
        .branches
        .iter()
        .map(|b| render::safe_text(&display_key(b)).into_owned())
        .collect();
    let mut out = std::io::stdout();
    writeln!(
        out,
        "imported {} contents ({} chunks); branches added: {}",
        done.contents,
        done.chunks,
        if branches.is_empty() {
            "none".to_string()
        } else {
            branches.join(", ")
        }
    )
    .map_err(Error::Output)?;
    let c = &done.checked;
    if c.verified + c.dropped + done.unverified > 0 {
        writeln!(
            out,
            "checked against this clone's files: {} verified, {} dropped (not what this clone holds), {} not checkable yet (hidden until an index run meets their files)",
            c.verified, c.dropped, done.unverified
        )
        .map_err(Error::Output)?;
    }
    super::runs::embed_checked_out(&ws, &mut out).map_err(Error::Output)?;
    Ok(Outcome::Found)
}
