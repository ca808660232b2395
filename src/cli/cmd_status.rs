//! `git codesearch status`: what is indexed, per branch, and how fresh it is.

use std::io::Write;
use std::path::Path;

use super::args::StatusArgs;
use super::common::Outcome;
use super::render;
use git_codesearch::git::{display_key, BranchRef};
use git_codesearch::Error;

/// Run `status`.
pub fn run(dir: &Path, args: &StatusArgs) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let branch = match &args.branch {
        Some(b) => BranchRef::named(b),
        None => ws.branch()?,
    };
    let db = ws.db()?;
    let [files, skipped, contents, chunks, symbols] = db.branch_counts(&branch.key)?;
    let last = db.last_run(Some(&branch.key))?;
    // Branch names, skip reasons and notes may come from an imported snapshot: every one is
    // escaped for the terminal (JSON escapes them itself).
    let branches: Vec<String> = db.branches()?.iter().map(|b| display_key(b)).collect();
    let safe = |t: &str| render::safe_text(t).into_owned();
    let size = git_codesearch::store::dir_size(&ws.index_dir);
    let stored_chunks = ws.chunk_store()?.count()?;
    let checkpoint = db.checkpoint()?;
    let model = git_codesearch::embed::model_id(&ws.config.embed);
    let coverage = match &model {
        Some(m) => Some(db.embed_coverage(&branch.key, m)?),
        None => None,
    };
    let embedded_chunks = match &model {
        Some(m) => db.embedded_chunks(m)?,
        None => 0,
    };
    let (skipped_list, noted) = if args.verbose {
        (db.skipped(&branch.key)?, db.noted(&branch.key)?)
    } else {
        (Vec::new(), Vec::new())
    };
    let languages = db.files_per_language(&branch.key)?;
    let remotes = db.remote_branches()?;
    let treated = |l: &str| git_codesearch::lang::keyword_defs::Treatment::of(l).name();
    let mut out = std::io::stdout();
    if args.json {
        let obj = serde_json::json!({
            "repository": ws.workdir,
            "index_dir": ws.index_dir,
            "index_bytes": size,
            "branch": branch.display(),
            "files": files, "skipped": skipped, "distinct_contents": contents,
            "chunks": chunks, "symbols": symbols, "stored_chunks": stored_chunks,
            "last_run": last,
            "vectors": model.as_ref().zip(coverage).map(|(m, (done, total))| serde_json::json!({
                "model": m, "embedded_files": done, "files_with_chunks": total,
                "embedded_chunks": embedded_chunks})),
            "branches": branches,
            "interrupted_run": checkpoint.map(|c| serde_json::json!({
                "phase": c.phase, "done": c.done, "total": c.total, "started_at": c.started_at})),
            "skipped_files": skipped_list.iter().map(|(p, r)| serde_json::json!({"path": p, "reason": r})).collect::<Vec<_>>(),
            "noted_files": noted.iter().map(|(p, n)| serde_json::json!({"path": p, "note": n})).collect::<Vec<_>>(),
            "remote_branches": remotes,
            "languages": languages.iter().map(|(l, n)| serde_json::json!({"language": l, "files": n, "treatment": treated(l)})).collect::<Vec<_>>(),
        });
        writeln!(out, "{obj}").map_err(Error::Output)?;
        return Ok(Outcome::Found);
    }
    let mut lines = vec![
        format!("repository  {}", ws.workdir.display()),
        format!(
            "index       {} ({:.1} MiB)",
            ws.index_dir.display(),
            size as f64 / 1048576.0
        ),
        format!("branch      {}", safe(&branch.display())),
        format!("files       {files} indexed, {skipped} skipped"),
        format!("content     {contents} distinct, {chunks} chunks, {symbols} symbols"),
        format!("stored      {stored_chunks} chunks for all branches"),
    ];
    lines.push(last_run_line(last.as_ref()));
    lines.push(vectors_line(model.as_deref(), coverage));
    lines.push(format!("branches    {}", safe(&branches.join(", "))));
    lines.extend(remotes.iter().map(|r| remote_line(r, &safe)));
    if let Some(c) = checkpoint {
        lines.push(format!(
            "interrupted run: phase {}, {}/{} files, started {} (`git codesearch index` resumes it)",
            c.phase, c.done, c.total, render::when(c.started_at)
        ));
    }
    if args.verbose {
        for (language, n) in &languages {
            lines.push(format!(
                "language    {language}: {n} files, {}",
                treated(language)
            ));
        }
    }
    lines.extend(listed("skipped", &skipped_list));
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
fn vectors_line(model: Option<&str>, coverage: Option<(usize, usize)>) -> String {
    match (model, coverage) {
        (Some(m), Some((done, total))) => format!(
            "vectors     {done} of {total} files embedded by {m}{}",
            if done < total {
                " (`git codesearch index` embeds the rest)"
            } else {
                ""
            }
        ),
        _ => "vectors     off ([embed] provider = none)".into(),
    }
}

/// `skipped     PATH: REASON` lines (or `note`), escaped: a reason or note may come from an
/// imported snapshot.
fn listed<'a>(label: &'a str, rows: &'a [(String, String)]) -> impl Iterator<Item = String> + 'a {
    rows.iter().map(move |(path, why)| {
        format!(
            "{label:<11} {}: {}",
            render::path(path),
            render::safe_text(why)
        )
    })
}
