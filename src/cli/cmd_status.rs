//! `git codesearch status`: what is indexed, per branch, and how fresh it is.

use std::io::Write;
use std::path::Path;

use super::args::StatusArgs;
use super::common::Outcome;
use super::render;
use git_codesearch::git::display_key;
use git_codesearch::report::{self, VectorsRecord};
use git_codesearch::Error;

/// Run `status`.
pub fn run(dir: &Path, args: &StatusArgs) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let r = report::status(&ws, args.branch.as_deref(), args.verbose)?;
    let mut out = std::io::stdout();
    if args.json {
        writeln!(out, "{}", report::to_json(&r)).map_err(Error::Output)?;
        return Ok(Outcome::Found);
    }
    // Branch names, skip reasons and notes may come from an imported snapshot: every one is
    // escaped for the terminal (JSON escapes them itself).
    let safe = |t: &str| render::safe_text(t).into_owned();
    let mut lines = vec![
        format!("repository  {}", r.repository.display()),
        format!(
            "index       {} ({:.1} MiB)",
            r.index_dir.display(),
            r.index_bytes as f64 / 1048576.0
        ),
        format!("branch      {}", safe(&r.branch)),
        format!("files       {} indexed, {} skipped", r.files, r.skipped),
        format!(
            "content     {} distinct, {} chunks, {} symbols",
            r.distinct_contents, r.chunks, r.symbols
        ),
        format!("stored      {} chunks for all branches", r.stored_chunks),
    ];
    lines.push(last_run_line(r.last_run.as_ref()));
    lines.push(vectors_line(r.vectors.as_ref()));
    lines.push(format!("branches    {}", safe(&r.branches.join(", "))));
    lines.extend(r.remote_branches.iter().map(|b| remote_line(b, &safe)));
    if let Some(c) = &r.interrupted_run {
        lines.push(format!(
            "interrupted run: phase {}, {}/{} files, started {} (`git codesearch index` resumes it)",
            c.phase, c.done, c.total, render::when(c.started_at)
        ));
    }
    if args.verbose {
        for l in &r.languages {
            lines.push(format!(
                "language    {}: {} files, {}",
                l.language, l.files, l.treatment
            ));
        }
    }
    let skipped: Vec<(&str, &str)> = r
        .skipped_files
        .iter()
        .map(|f| (f.path.as_str(), f.reason.as_str()))
        .collect();
    let noted: Vec<(&str, &str)> = r
        .noted_files
        .iter()
        .map(|f| (f.path.as_str(), f.note.as_str()))
        .collect();
    lines.extend(listed("skipped", &skipped));
    lines.extend(listed("note", &noted));
    writeln!(out, "{}", lines.join("\n")).map_err(Error::Output)?;
    Ok(Outcome::Found)
}

/// The `last run` line.
fn last_run_line(last: Option<&git_codesearch::store::catalog::RunStats>) -> String {
    match last {
        Some(r) => format!(
            "last run    {}, {:.2}s, commit {}: compute {}, add-tag {}, remove-tag {}, delete {}, unchanged {}",
            render::when(r.started_at),
            r.seconds,
            r.head_commit.as_deref().map_or("(none)".into(), |c| c.chars().take(10).collect::<String>()),
            r.compute,
            r.add_tag,
            r.remove_tag,
            r.deleted,
            r.unchanged
        ),
        None => "last run    never: run `git codesearch index`".into(),
    }
}

/// A `remote` line: a branch pushed to or pulled from a remote, and when.
fn remote_line(
    r: &git_codesearch::store::pack::RemoteBranch,
    safe: &dyn Fn(&str) -> String,
) -> String {
    let at = |t: Option<i64>| t.map_or("never".to_string(), render::when);
    format!(
        "remote      {} {}: pushed {}, pulled here {}",
        safe(&r.remote),
        safe(&display_key(&r.branch)),
        at(r.pushed_at),
        at(r.pulled_at)
    )
}

/// The `vectors` line: how much of the branch the configured model has embedded.
fn vectors_line(vectors: Option<&VectorsRecord>) -> String {
    match vectors {
        Some(v) => format!(
            "vectors     {} of {} files embedded by {}{}",
            v.embedded_files,
            v.files_with_chunks,
            v.model,
            if v.embedded_files < v.files_with_chunks {
                " (`git codesearch index` embeds the rest)"
            } else {
                ""
            }
        ),
        None => "vectors     off ([embed] provider = none)".into(),
    }
}

/// `skipped     PATH: REASON` lines (or `note`), escaped: a reason or note may come from an
/// imported snapshot.
fn listed<'a>(label: &'a str, rows: &'a [(&'a str, &'a str)]) -> impl Iterator<Item = String> + 'a {
    rows.iter().map(move |(path, why)| {
        format!(
            "{label:<11} {}: {}",
            render::path(path),
            render::safe_text(why)
        )
    })
}
