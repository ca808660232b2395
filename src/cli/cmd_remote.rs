//! `git codesearch push [REMOTE]` and `git codesearch pull [REMOTE]`: the index shared through
//! object storage (the work and its checks live in the library, `share::remote`).

use std::io::Write;
use std::path::Path;

use super::common::Outcome;
use super::render;
use git_codesearch::git::display_key;
use git_codesearch::share::client::RemoteError;
use git_codesearch::share::ShareError;
use git_codesearch::workspace::Workspace;
use git_codesearch::Error;

/// The git config key naming the default remote (never read from `.codesearch.toml`: a
/// committed file must not choose where an index is sent or read from).
pub const REMOTE_KEY: &str = "codesearch.remote";

/// The remote given, or the one git config names.
fn remote_url(ws: &Workspace, given: Option<&str>) -> Result<String, Error> {
    match given
        .map(str::to_string)
        .or_else(|| ws.repo.config_value(REMOTE_KEY))
    {
        Some(url) if !url.trim().is_empty() => Ok(url.trim().to_string()),
        _ => Err(ShareError::from(RemoteError::Url {
            url: "(none)".into(),
            why: format!("no REMOTE given and `git config {REMOTE_KEY}` is not set"),
        })
        .into()),
    }
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

/// Run `push [REMOTE] [--all]`.
pub fn push(dir: &Path, remote: Option<&str>, all: bool) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let url = remote_url(&ws, remote)?;
    let branches = if all {
        ws.db()?.catalog().branches()?
    } else {
        vec![ws.branch()?.key]
    };
    let done = git_codesearch::share::remote::push(&ws, &url, &branches)?;
    let mut out = std::io::stdout();
    for (branch, version) in &done.branches {
        let name = render::safe_text(&display_key(branch)).into_owned();
        let line = match version {
            Some(v) => format!("pushed {name} to {}: manifest version {v}", done.remote),
            None => format!("{name}: {} is up to date", done.remote),
        };
        writeln!(out, "{line}").map_err(Error::Output)?;
    }
    for (branch, why) in &done.skipped {
        let name = render::safe_text(&display_key(branch)).into_owned();
        writeln!(out, "{name}: not pushed: {why}").map_err(Error::Output)?;
    }
    writeln!(
        out,
        "uploaded {} packs ({} contents), {}",
        done.packs,
        done.contents,
        kib(done.bytes)
    )
    .map_err(Error::Output)?;
    if done.left_out > 0 {
        writeln!(
            out,
            "left out {} files that are not committed as indexed (untracked or modified) or have names a pull refuses: only committed content is shared",
            done.left_out
        )
        .map_err(Error::Output)?;
    }
    warn(&done.warnings)?;
    Ok(Outcome::Found)
}

/// Print `warnings` (text from the remote escaped) on stderr.
fn warn(warnings: &[String]) -> Result<(), Error> {
    let mut err = std::io::stderr();
    for w in warnings {
        writeln!(err, "warning: {}", render::safe_text(w)).map_err(Error::Output)?;
    }
    Ok(())
}

/// Run `pull [REMOTE]`.
pub fn pull(dir: &Path, remote: Option<&str>) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let url = remote_url(&ws, remote)?;
    let done = git_codesearch::share::remote::pull(&ws, &url)?;
    // Branch names come from the remote: escaped like any text from outside.
    let names = |v: &[String]| -> String {
        if v.is_empty() {
            return "none".into();
        }
        v.iter()
            .map(|b| render::safe_text(&display_key(b)).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = std::io::stdout();
    writeln!(
        out,
        "pulled from {}: branches merged: {}; up to date: {}; downloaded {} packs, {}",
        done.remote,
        names(&done.merged),
        names(&done.up_to_date),
        done.packs,
        kib(done.bytes)
    )
    .map_err(Error::Output)?;
    if !done.kept.is_empty() {
        writeln!(
            out,
            "kept as indexed here (contents brought in, catalog not replaced): {}",
            names(&done.kept)
        )
        .map_err(Error::Output)?;
    }
    let i = &done.imported;
    if !done.merged.is_empty() || !done.kept.is_empty() {
        writeln!(
            out,
            "imported {} contents ({} chunks); checked against this clone's files: {} verified, {} dropped, {} not checkable yet (hidden until an index run meets their files)",
            i.contents, i.chunks, i.checked.verified, i.checked.dropped, i.unverified
        )
        .map_err(Error::Output)?;
    }
    super::runs::embed_checked_out(&ws, &mut out).map_err(Error::Output)?;
    warn(&done.warnings)?;
    if done.failed.is_empty() {
        return Ok(Outcome::Found);
    }
    // What the remote holds for these branches is refused: said on stderr, exit 1, and
    // the other branches are pulled all the same.
    let mut err = std::io::stderr();
    for (branch, why) in &done.failed {
        let name = render::safe_text(&display_key(branch)).into_owned();
        let why = render::safe_text(why).into_owned();
        writeln!(err, "warning: {name}: not pulled: {why}").map_err(Error::Output)?;
    }
    writeln!(
        err,
        "hint: the local index is unchanged for these branches; push them again from a clone with a good index (a damaged object must be deleted on the remote first)"
    )
    .map_err(Error::Output)?;
    Ok(Outcome::NotFound)
}
