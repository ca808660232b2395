//! `push` and `pull`: the index shared through object storage, moving only what changed.
//! A push uploads, as packs named by the SHA-256 of their bytes (`store::pack`), only the
//! committed contents (`committed`) the remote lacks by this clone's own record, then writes
//! the branch's manifest (`manifest`) last, as a new version with a conditional create
//! (`versions`). A pull reads the newest manifest of each branch, one branch at a time:
//! it downloads only the packs holding contents this clone lacks, streamed to disk within
//! bounds (`fetch`), assembles them with the branch's catalog into one private snapshot and
//! merges that with `import`'s code and checks (`share::merge_snapshot`). A branch whose
//! remote data is bad is reported and skipped; the others are pulled. Objects are immutable
//! and a manifest version lands whole or not at all, so a push or pull killed at any point
//! leaves both sides usable and the next run finishes the work.

use std::collections::{HashMap, HashSet};

use super::client::{Remote, RemoteError};
use super::fetch::{self, Budget};
use super::file::Imported;
use super::manifest::{self, Manifest};
pub use super::take::Pulled;
use super::take::{read_take, to_pull, Take};
use super::versions::{self};
use super::ShareError;
use crate::store::pack::{self, BranchFiles};
use crate::store::{Db, StoreError};
use crate::workspace::{Workspace, DB_FILE};

/// Bytes of file content per pack (packs are uploaded one by one: a killed push loses at
/// most one).
fn pack_bytes() -> u64 {
    crate::env::non_empty(crate::env::PACK_BYTES)
        .and_then(|v| v.to_str()?.parse().ok())
        .unwrap_or(8 << 20)
}
/// What a push did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Pushed {
    /// The remote, redacted.
    pub remote: String,
    /// Per branch: its catalog key and the manifest version written (`None`: up to date).
    pub branches: Vec<(String, Option<u64>)>,
    /// Branches not pushed, and why (nothing of them is committed here).
    pub skipped: Vec<(String, String)>,
    /// Catalog rows not sent: untracked or modified files, names no push writes.
    pub left_out: usize,
    /// What the user should know (a refused version superseded, an older remote).
    pub warnings: Vec<String>,
    /// Packs uploaded.
    pub packs: usize,
    /// Contents in them.
    pub contents: usize,
    /// Bytes uploaded (packs and manifests).
    pub bytes: u64,
}

/// Push the catalogs of `branches` (their committed contents the remote lacks) to `url`.
pub fn push(ws: &Workspace, url: &str, branches: &[String]) -> Result<Pushed, ShareError> {
    let remote = Remote::open(url)?;
    let db = ws.db()?;
    fetch::clean_stale_scratch(&ws.index_dir);
    let rid = remote.url().to_string();
    let mut done = Pushed {
        remote: rid.clone(),
        ..Pushed::default()
    };
    // hash -> pack: only this clone's record (what it uploaded, or pulled and checked); a
    // manifest's claims are anyone's word.
    let mut known = db.remote().packs(&rid)?;
    let records = versions::recorded(&db, &rid)?;
    let mut present: HashSet<String> = HashSet::new();
    let mut absent: HashSet<String> = HashSet::new();
    let max = ws.config.index.max_file_size;
    for branch in branches {
        let files = db.exchange().branch_files(branch)?;
        if files.is_empty() {
            return Err(RemoteError::NothingIndexed {
                url: rid.clone(),
                branch: branch.clone(),
            }
            .into());
        }
        let total = files.len();
        let (files, _) = crate::index::verify::committed_rows(&ws.repo, branch, files, max);
        // The names a pull would refuse, never written (they would poison the branch).
        let files: Vec<pack::RemoteFile> = files
            .into_iter()
            .filter(|f| {
                f.path.len() <= manifest::MAX_PATH && crate::util::is_safe_rel_path(&f.path)
            })
            .collect();
        done.left_out += total - files.len();
        if files.is_empty() {
            let why = "none of its indexed files is committed on it here".to_string();
            done.skipped.push((branch.clone(), why));
            continue;
        }
        let (n, read) = versions::read_newest(&remote, branch, manifest::MAX_GZ)?;
        let current = match read {
            Some((Ok(m), _)) => Some(m),
            Some((Err(why), _)) => {
                done.warnings.push(format!(
                    "{}: the remote's version {n} is refused ({why}); this push supersedes it",
                    crate::git::display_key(branch)
                ));
                None
            }
            None => None,
        };
        if let Some(v) = records.get(branch).map(|r| r.version).filter(|v| n < *v) {
            done.warnings.push(format!(
                "{}: the remote's newest version ({n}) is older than version {v} recorded here (versions deleted or replayed on the remote)",
                crate::git::display_key(branch)
            ));
        }
        let mut wanted: Vec<String> = Vec::new();
        let mut sizes: HashMap<&str, u64> = HashMap::new();
        for f in files.iter().filter(|f| f.skip.is_none()) {
            if sizes.insert(&f.hash, f.size).is_some() {
                continue;
            }
            let on_remote = match known.get(&f.hash) {
                Some(p) if present.contains(p) => true,
                Some(p) if absent.contains(p) => false,
                Some(p) => {
                    let there = remote.exists(&manifest::pack_key(p))?;
                    if there {
                        present.insert(p.clone())
                    } else {
                        absent.insert(p.clone())
                    };
                    there
                }
                None => false,
            };
            if !on_remote {
                wanted.push(f.hash.clone());
            }
        }
        upload(ws, &db, &remote, &wanted, &sizes, &mut known, &mut done)?;
        present.extend(known.values().cloned());
        let m = Manifest::new(branch, &files, &|h| known.get(h).cloned());
        let landed = versions::land(&remote, branch, &m, n, current, &mut done.bytes)?;
        if let Some(v) = landed {
            db.remote().record_branch(
                &rid,
                branch,
                &manifest::key_of(branch, v),
                m.pushed_at,
                false,
            )?;
        }
        done.branches.push((branch.clone(), landed));
    }
    Ok(done)
}

/// Upload the contents `wanted` in packs, recording each pack once it is on the remote.
fn upload(
    ws: &Workspace,
    db: &Db,
    remote: &Remote,
    wanted: &[String],
    sizes: &HashMap<&str, u64>,
    known: &mut HashMap<String, String>,
    done: &mut Pushed,
) -> Result<(), ShareError> {
    if wanted.is_empty() {
        return Ok(());
    }
    let scratch = fetch::scratch_dir(&ws.index_dir, "push")?;
    let mut sorted = wanted.to_vec();
    sorted.sort();
    let limit = pack_bytes();
    let mut groups: Vec<Vec<String>> = vec![Vec::new()];
    let mut size = 0u64;
    for h in sorted {
        let s = sizes.get(h.as_str()).copied().unwrap_or(0);
        if size > 0 && size.saturating_add(s) > limit {
            groups.push(Vec::new());
            size = 0;
        }
        size = size.saturating_add(s);
        if let Some(g) = groups.last_mut() {
            g.push(h);
        }
    }
    for (i, group) in groups.iter().enumerate() {
        let path = scratch.path().join(format!("pack-{i}.sqlite"));
        db.exchange().write_pack(&path, group)?;
        let raw = std::fs::read(&path).map_err(StoreError::scratch(&path, "read"))?;
        let bytes = manifest::gzip(&raw);
        let name = crate::util::sha256_hex(&bytes);
        done.bytes += bytes.len() as u64;
        remote.create(&manifest::pack_key(&name), bytes)?;
        tracing::debug!(pack = %name, contents = group.len(), "pack uploaded");
        db.remote().record_pack(remote.url(), &name, group)?;
        for h in group {
            known.insert(h.clone(), name.clone());
        }
        done.packs += 1;
        done.contents += group.len();
    }
    Ok(())
}

/// Write `m` after version `n` (the newest its writer read, with `read` its manifest) as
/// [`push`] does: the version written, or `None` when the newest says the same. Public for
/// the tests of concurrent pushes (a writer that read before another landed).
pub fn land_manifest(
    remote: &Remote,
    m: &Manifest,
    n: u64,
    read: Option<Manifest>,
) -> Result<Option<u64>, RemoteError> {
    versions::land(remote, &m.branch, m, n, read, &mut 0)
}

/// Pull every branch of the remote at `url` into this index, one branch at a time.
pub fn pull(ws: &Workspace, url: &str) -> Result<Pulled, ShareError> {
    let remote = Remote::open(url)?;
    let rid = remote.url().to_string();
    let mut done = Pulled {
        remote: rid.clone(),
        ..Pulled::default()
    };
    let db = ws.db()?;
    let _one_pull = super::pull_lock::take(&ws.index_dir)?;
    fetch::clean_stale_scratch(&ws.index_dir);
    let take = to_pull(&remote, &db, &mut done)?;
    drop(db);
    let mut budget = Budget::default();
    for t in &take {
        match pull_branch(ws, &remote, t, &mut budget, &mut done) {
            Ok(()) => {}
            Err(ShareError::Remote(
                e @ (RemoteError::BadObject { .. } | RemoteError::Missing { .. }),
            )) => {
                tracing::debug!(branch = %t.branch, error = %e, "branch not pulled");
                done.failed.push((t.branch.clone(), e.to_string()));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Pull one branch: its manifest, the packs of the contents this clone lacks, merged.
fn pull_branch(
    ws: &Workspace,
    remote: &Remote,
    t: &Take,
    budget: &mut Budget,
    done: &mut Pulled,
) -> Result<(), ShareError> {
    let Some((key, m)) = read_take(remote, t, budget, done)? else {
        return Ok(());
    };
    let bad = |why: String| RemoteError::BadObject {
        url: remote.url().into(),
        key: key.clone(),
        why,
    };
    let name = crate::git::display_key(&t.branch);
    let (wanted, dropped) = {
        let db = ws.db()?;
        let hashes = m
            .files
            .iter()
            .filter(|e| e.skip.is_none())
            .map(|e| e.hash.as_str());
        (
            db.exchange().lacking(hashes)?,
            db.exchange().mismatched_hashes()?,
        )
    };
    let by_pack = fetch::by_pack(&m, &wanted, &dropped);
    let scratch = fetch::scratch_dir(&ws.index_dir, "pull")?;
    let mut packs = Vec::new();
    for (i, (p, (hashes, declared))) in by_pack
        .iter()
        .filter(|(_, (h, _))| !h.is_empty())
        .enumerate()
    {
        let path = scratch.path().join(format!("pack-{i}.sqlite"));
        done.bytes += fetch::fetch_pack(remote, p, *declared, &path, budget)?;
        packs.push((path, hashes.clone(), p.to_string()));
        done.packs += 1;
    }
    let out = scratch.path().join(DB_FILE);
    let from_remote = |e: StoreError| match e {
        StoreError::Corrupt { .. } | StoreError::BadSnapshot { .. } => {
            ShareError::from(bad(crate::util::chain(&e)))
        }
        e => e.into(),
    };
    let inputs: Vec<_> = packs
        .iter()
        .map(|(path, h, _)| (path.clone(), h.clone()))
        .collect();
    pack::assemble(&out, &inputs).map_err(from_remote)?;
    let have = pack::assembled_hashes(&out).map_err(from_remote)?;
    let mut files = m.files();
    let lacking = mark(&mut files, &wanted, &dropped, &have);
    if lacking > 0 {
        done.warnings.push(format!(
            "{name}: {lacking} files' contents are not in the packs its manifest names: left for the next index run"
        ));
    }
    if t.replace {
        let b = BranchFiles {
            branch: t.branch.clone(),
            pushed_at: m.pushed_at,
            files,
        };
        pack::add_catalog(&out, &[b]).map_err(from_remote)?;
    }
    // What this clone saw in each pack: reusable by its own pushes from now on.
    let found: Vec<(String, Vec<String>)> = packs
        .iter()
        .map(|(_, hashes, p)| {
            let held = hashes
                .iter()
                .filter(|h| have.contains(*h))
                .cloned()
                .collect();
            (p.clone(), held)
        })
        .collect();
    let replace: Vec<String> = t.replace.then(|| t.branch.clone()).into_iter().collect();
    let label = std::path::PathBuf::from(remote.url());
    let rid = remote.url();
    let imported = super::file::merge_snapshot(ws, scratch.path(), &label, &replace, |db| {
        db.remote()
            .record_branch(rid, &t.branch, &key, m.pushed_at, t.replace)?;
        for (p, held) in &found {
            db.remote().record_pack(rid, p, held)?;
        }
        Ok(())
    })
    .map_err(|e| match e {
        ShareError::Store(e @ StoreError::BadSnapshot { .. }) => from_remote(e),
        e => e,
    })?;
    add(&mut done.imported, imported);
    if t.replace {
        done.merged.push(t.branch.clone());
    } else {
        done.kept.push(t.branch.clone());
    }
    Ok(())
}

/// Mark the rows whose content this clone dropped, and those whose pack lacks it (they wait
/// for an index run here); how many of the latter.
fn mark(
    files: &mut [pack::RemoteFile],
    wanted: &HashSet<String>,
    dropped: &HashSet<String>,
    have: &HashSet<String>,
) -> usize {
    let mut lacking = 0;
    for f in files.iter_mut().filter(|f| f.skip.is_none()) {
        if dropped.contains(&f.hash) {
            f.skip = Some(pack::DROPPED.into());
        } else if wanted.contains(&f.hash) && !have.contains(&f.hash) {
            f.skip = Some(pack::NOT_IN_PACK.into());
            lacking += 1;
        }
    }
    lacking
}

/// Add what one branch's merge brought in to the pull's total.
fn add(total: &mut Imported, one: Imported) {
    total.contents += one.contents;
    total.chunks += one.chunks;
    total.branches.extend(one.branches);
    total.checked.verified += one.checked.verified;
    total.checked.dropped += one.checked.dropped;
    // The contents still waiting in the whole index: the last merge's count.
    total.unverified = one.unverified;
}
