//! `git codesearch status` (what is indexed) and `git codesearch gc`.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::{render, Outcome, StatusArgs};
use crate::git::{display_key, BranchRef};
use crate::index::lock::{self, Contention};
use crate::workspace::Workspace;
use crate::Error;

/// Run `status`.
pub fn run(dir: &Path, args: &StatusArgs) -> Result<Outcome, Error> {
    let ws = super::open(dir)?;
    let branch = match &args.branch {
        Some(b) => BranchRef::named(b),
        None => ws.branch()?,
    };
    let db = ws.db()?;
    let [files, skipped, contents, chunks, symbols] = db.branch_counts(&branch.key)?;
    let last = db.last_run(Some(&branch.key))?;
    let branches: Vec<String> = db.branches()?.iter().map(|b| display_key(b)).collect();
    let size = crate::store::dir_size(&ws.index_dir);
    let stored_chunks = ws.chunk_store()?.count()?;
    let checkpoint = db.checkpoint()?;
    let model = crate::embed::model_id(&ws.config.embed);
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
        format!("branch      {}", branch.display()),
        format!("files       {files} indexed, {skipped} skipped"),
        format!("content     {contents} distinct, {chunks} chunks, {symbols} symbols"),
        format!("stored      {stored_chunks} chunks for all branches"),
    ];
    match &last {
        Some(r) => lines.push(format!(
            "last run    {}, {:.2}s, commit {}: compute {}, add-tag {}, remove-tag {}, delete {}, unchanged {}",
            render::when(r.started_at),
            r.seconds,
            r.head_commit.as_deref().map_or("(none)".into(), |c| c.chars().take(10).collect::<String>()),
            r.compute,
            r.add_tag,
            r.remove_tag,
            r.deleted,
            r.unchanged
        )),
        None => lines.push("last run    never: run `git codesearch index`".into()),
    }
    lines.push(match (&model, coverage) {
        (Some(m), Some((done, total))) => format!(
            "vectors     {done} of {total} files embedded by {m}{}",
            if done < total {
                " (`git codesearch index` embeds the rest)"
            } else {
                ""
            }
        ),
        _ => "vectors     off ([embed] provider = none)".into(),
    });
    lines.push(format!("branches    {}", branches.join(", ")));
    if let Some(c) = checkpoint {
        lines.push(format!(
            "interrupted run: phase {}, {}/{} files, started {} (`git codesearch index` resumes it)",
            c.phase, c.done, c.total, render::when(c.started_at)
        ));
    }
    for (path, reason) in &skipped_list {
        lines.push(format!("skipped     {}: {reason}", render::path(path)));
    }
    for (path, note) in &noted {
        lines.push(format!("note        {}: {note}", render::path(path)));
    }
    writeln!(out, "{}", lines.join("\n")).map_err(Error::Output)?;
    Ok(Outcome::Found)
}

/// Run `gc`: forget branches that are gone, delete content nobody uses and orphan chunks.
pub fn gc(dir: &Path) -> Result<Outcome, Error> {
    let ws = super::open(dir)?;
    let mut keep: HashSet<String> = ws.repo.local_branches()?.into_iter().collect();
    keep.insert(ws.branch()?.key);
    let mut db = ws.db()?;
    // Hold the index lock: chunks an index run has written but not yet recorded look like
    // orphans, and must not be collected under its feet.
    let me = lock::me();
    lock::acquire(
        &mut db,
        &me,
        Contention::Wait(Duration::from_secs(30)),
        |h| {
            eprintln!(
                "waiting for the index lock held by pid {} on {}",
                h.pid, h.host
            )
        },
    )?;
    let result = collect(&ws, &db, &keep);
    db.unlock(&me)?;
    let (dropped, deleted, orphans) = result?;
    writeln!(
        std::io::stdout(),
        "dropped {} branches ({}), deleted {} unused contents and {} orphaned chunk groups",
        dropped.len(),
        dropped
            .iter()
            .map(|b| display_key(b))
            .collect::<Vec<_>>()
            .join(", "),
        deleted.len(),
        orphans.len()
    )
    .map_err(Error::Output)?;
    Ok(Outcome::Found)
}

/// Run `export FILE`.
pub fn export(dir: &Path, file: &Path) -> Result<Outcome, Error> {
    let ws = super::open(dir)?;
    let bytes = crate::index::share::export(&ws, file)?;
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
    let ws = super::open(dir)?;
    let done = crate::index::share::import(&ws, file)?;
    let branches: Vec<String> = done.branches.iter().map(|b| display_key(b)).collect();
    writeln!(
        std::io::stdout(),
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
    Ok(Outcome::Found)
}

/// Branches dropped, contents deleted, orphaned chunk groups removed.
type Collected = (Vec<String>, Vec<String>, Vec<String>);

fn collect(
    ws: &Workspace,
    db: &crate::store::Db,
    keep: &HashSet<String>,
) -> Result<Collected, Error> {
    let (dropped, deleted) = db.gc(keep)?;
    let chunks = ws.chunk_store()?;
    let known = db.computed_hashes()?;
    let orphans: Vec<String> = chunks
        .hashes()?
        .into_iter()
        .filter(|h| !known.contains(h))
        .collect();
    chunks.delete_hashes(&deleted)?;
    chunks.delete_hashes(&orphans)?;
    chunks.compact()?;
    Ok((dropped, deleted, orphans))
}
