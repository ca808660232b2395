//! `git codesearch gc`: say what the library's garbage collection removed.

use std::io::Write;
use std::path::Path;

use super::common::Outcome;
use super::observer::Terminal;
use super::render;
use git_codesearch::git::display_key;
use git_codesearch::Error;

/// Run `gc`.
pub fn run(dir: &Path) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let done = git_codesearch::maintenance::gc::gc(&ws, &Terminal::new(false))?;
    // A dropped branch may be one an imported snapshot named: escaped for the terminal.
    let dropped: Vec<String> = done
        .dropped
        .iter()
        .map(|b| render::safe_text(&display_key(b)).into_owned())
        .collect();
    let names = if dropped.is_empty() {
        String::new()
    } else {
        format!(" ({})", dropped.join(", "))
    };
    writeln!(
        std::io::stdout(),
        "dropped {} branches{names}, deleted {} unused contents and {} orphaned chunk groups",
        dropped.len(),
        done.deleted.len(),
        done.orphans.len()
    )
    .map_err(Error::Output)?;
    Ok(Outcome::Found)
}
