//! `push` and `pull`: the index shared through object storage, moving only what changed.
//! A push uploads, as packs named by the SHA-256 of their bytes (`store::pack`), only the
//! contents the remote lacks, then writes the branch's manifest (`manifest`) last, as a new
//! version with a conditional create. A pull reads the newest manifest of each branch,
//! downloads only the packs holding contents this clone lacks, checks each one's hash and
//! schema, assembles them with the catalogs into one private snapshot and merges that with
//! `import`'s code and checks (`share::merge_snapshot`): chunk text is checked against this
//! clone's blobs, or hidden until it can be. Objects are immutable and a manifest version
//! lands whole or not at all, so a push or pull killed at any point leaves both sides usable
//! and the next run finishes the work.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::client::{Created, Remote, RemoteError};
use super::file::Imported;
use super::manifest::{self, Manifest};
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
/// Most bytes of one pack object.
const MAX_PACK: u64 = 4 << 30;
/// Attempts to land a manifest version while others push the same branch.
const TRIES: u64 = 20;
/// Manifest versions kept per branch (a reader that listed an older one retries).
const KEEP: u64 = 3;

/// What a push did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Pushed {
    /// The remote, redacted.
    pub remote: String,
    /// Per branch: its catalog key and the manifest version written (`None`: up to date).
    pub branches: Vec<(String, Option<u64>)>,
    /// Packs uploaded.
    pub packs: usize,
    /// Contents in them.
    pub contents: usize,
    /// Bytes uploaded (packs and manifests).
    pub bytes: u64,
}

/// What a pull did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Pulled {
    /// The remote, redacted.
    pub remote: String,
    /// Branches merged (added or replaced).
    pub merged: Vec<String>,
    /// Branches already as the remote has them.
    pub up_to_date: Vec<String>,
    /// Branches whose catalog here was kept (indexed here since their last pull, or never
    /// pulled): only their new contents were brought in, for the next index run to tag.
    pub kept: Vec<String>,
    /// Packs downloaded.
    pub packs: usize,
    /// Bytes downloaded (packs and manifests).
    pub bytes: u64,
    /// What the merge brought in.
    pub imported: Imported,
}

/// Newest manifest version of every branch on the remote.
fn newest(remote: &Remote) -> Result<BTreeMap<String, u64>, RemoteError> {
    Ok(newest_of(remote.list(manifest::MANIFESTS)?))
}

/// Newest version of each branch among the manifest keys of a listing.
fn newest_of(listing: Vec<(String, u64)>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (key, _) in listing {
        if let Some((branch, n)) = manifest::parse_key(&key) {
            let e = out.entry(branch).or_insert(n);
            *e = (*e).max(n);
        }
    }
    out
}

/// Newest version of `branch`'s manifest: (version, manifest, bytes read); version 0 and
/// no manifest if it has none.
fn read_newest(remote: &Remote, branch: &str) -> Result<(u64, Option<Manifest>, u64), RemoteError> {
    for _ in 0..TRIES {
        let n = newest_of(remote.list(&manifest::dir_of(branch))?).remove(branch);
        let Some(n) = n else { return Ok((0, None, 0)) };
        // Pruned between the listing and the read: list again.
        if let Some((m, bytes)) = read_version(remote, branch, n)? {
            return Ok((n, Some(m), bytes));
        }
    }
    Err(RemoteError::Missing {
        url: remote.url().into(),
        key: manifest::dir_of(branch),
    })
}

fn read_version(
    remote: &Remote,
    branch: &str,
    n: u64,
) -> Result<Option<(Manifest, u64)>, RemoteError> {
    let key = manifest::key_of(branch, n);
    let Some(bytes) = remote.get(&key, manifest::MAX_BYTES)? else {
        return Ok(None);
    };
    let m = Manifest::parse(&bytes, branch).map_err(|why| RemoteError::BadObject {
        url: remote.url().into(),
        key,
        why,
    })?;
    Ok(Some((m, bytes.len() as u64)))
}

/// Push the catalogs of `branches` (and the contents the remote lacks) to `url`.
pub fn push(ws: &Workspace, url: &str, branches: &[String]) -> Result<Pushed, ShareError> {
    let remote = Remote::open(url)?;
    let db = ws.db()?;
    let rid = remote.url().to_string();
    let mut done = Pushed {
        remote: rid.clone(),
        ..Pushed::default()
    };
    // hash -> pack: this clone's record, then what the remote's manifests say.
    let mut known = db.remote_packs(&rid)?;
    let mut present: HashSet<String> = HashSet::new();
    let mut absent: HashSet<String> = HashSet::new();
    for branch in branches {
        let files = db.branch_files(branch)?;
        if files.is_empty() {
            return Err(RemoteError::NothingIndexed {
                url: rid.clone(),
                branch: branch.clone(),
            }
            .into());
        }
        let (n, current, _) = read_newest(&remote, branch)?;
        if let Some(m) = &current {
            for e in &m.files {
                // This clone's own record first: a manifest may have been written by anyone.
                if let Some(p) = m.pack_of(e) {
                    if !known.contains_key(&e.hash) {
                        known.insert(e.hash.clone(), p.to_string());
                        present.insert(p.to_string());
                    }
                }
            }
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
        let landed = land(&remote, branch, &m, n, current, &mut done)?;
        if let Some(v) = landed {
            db.record_remote_branch(
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
    let scratch = tempfile::Builder::new()
        .prefix(".push-")
        .tempdir_in(&ws.index_dir)
        .map_err(StoreError::scratch(&ws.index_dir, "create"))?;
    let mut sorted = wanted.to_vec();
    sorted.sort();
    let limit = pack_bytes();
    let mut groups: Vec<Vec<String>> = vec![Vec::new()];
    let mut size = 0u64;
    for h in sorted {
        let s = sizes.get(h.as_str()).copied().unwrap_or(0);
        if size > 0 && size + s > limit {
            groups.push(Vec::new());
            size = 0;
        }
        size += s;
        if let Some(g) = groups.last_mut() {
            g.push(h);
        }
    }
    for (i, group) in groups.iter().enumerate() {
        let path = scratch.path().join(format!("pack-{i}.sqlite"));
        db.write_pack(&path, group)?;
        let raw = std::fs::read(&path).map_err(StoreError::scratch(&path, "read"))?;
        let bytes = manifest::gzip(&raw);
        let name = crate::util::sha256_hex(&bytes);
        done.bytes += bytes.len() as u64;
        remote.create(&manifest::pack_key(&name), bytes)?;
        tracing::debug!(pack = %name, contents = group.len(), "pack uploaded");
        db.record_pack(remote.url(), &name, group)?;
        for h in group {
            known.insert(h.clone(), name.clone());
        }
        done.packs += 1;
        done.contents += group.len();
    }
    Ok(())
}

/// Write `m` as the version after `n` of `branch`'s manifest, unless the newest version
/// says the same; on a conflict (another push of the branch landed first), read the newest
/// and go after it. The version written, or `None` when up to date.
fn land(
    remote: &Remote,
    branch: &str,
    m: &Manifest,
    mut n: u64,
    mut current: Option<Manifest>,
    done: &mut Pushed,
) -> Result<Option<u64>, RemoteError> {
    let bytes = m.to_bytes();
    for _ in 0..TRIES {
        if current.as_ref().is_some_and(|c| c.same_as(m)) {
            return Ok(None);
        }
        let key = manifest::key_of(branch, n + 1);
        match remote.create(&key, bytes.clone())? {
            Created::Written => {
                done.bytes += bytes.len() as u64;
                tracing::debug!(%key, "manifest written");
                prune(remote, branch, n + 1);
                return Ok(Some(n + 1));
            }
            Created::Existed => {
                tracing::debug!(%key, "manifest version taken: reading the newest");
                (n, current, _) = read_newest(remote, branch)?;
            }
        }
    }
    Err(RemoteError::BadObject {
        url: remote.url().into(),
        key: manifest::dir_of(branch),
        why: format!("{TRIES} other pushes of this branch landed first; try again"),
    })
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
    land(remote, &m.branch, m, n, read, &mut Pushed::default())
}

/// Delete versions of `branch`'s manifest older than the last [`KEEP`] (best effort).
fn prune(remote: &Remote, branch: &str, newest: u64) {
    let Ok(keys) = remote.list(&manifest::dir_of(branch)) else {
        return;
    };
    for (key, _) in keys {
        if manifest::parse_key(&key).is_some_and(|(_, n)| n + KEEP <= newest) {
            let _ = remote.delete(&key);
        }
    }
}

/// One branch's newest manifest to pull: its version, and whether its catalog replaces this
/// clone's (a branch indexed here since its last pull keeps its own catalog; its contents are
/// still brought in, so the next index run only tags them).
struct Take {
    manifest: Manifest,
    version: u64,
    replace: bool,
}

/// The newest manifests of the remote's branches to pull; those already pulled are noted in
/// `done` as up to date.
fn to_pull(remote: &Remote, db: &Db, done: &mut Pulled) -> Result<Vec<Take>, ShareError> {
    let records: HashMap<String, pack::RemoteBranch> = db
        .remote_branches()?
        .into_iter()
        .filter(|r| r.remote == done.remote)
        .map(|r| (r.branch.clone(), r))
        .collect();
    let local: HashSet<String> = db.branches()?.into_iter().collect();
    let mut take = Vec::new();
    for (branch, n) in newest(remote)? {
        let record = records.get(&branch);
        if local.contains(&branch)
            && record.is_some_and(|r| r.manifest == manifest::key_of(&branch, n))
        {
            done.up_to_date.push(branch);
            continue;
        }
        // Replace only what an earlier pull brought and no index run here has changed.
        let ours = local.contains(&branch)
            && match record.and_then(|r| r.pulled_at) {
                Some(at) => db.last_run_on(&branch)?.is_some_and(|run| run >= at),
                None => true,
            };
        let (n, m, bytes) = match read_version(remote, &branch, n)? {
            Some((m, bytes)) => (n, Some(m), bytes),
            None => read_newest(remote, &branch)?,
        };
        done.bytes += bytes;
        if let Some(manifest) = m {
            if ours {
                done.kept.push(branch);
            }
            take.push(Take {
                manifest,
                version: n,
                replace: !ours,
            });
        }
    }
    Ok(take)
}

/// Pull every branch of the remote at `url` into this index.
pub fn pull(ws: &Workspace, url: &str) -> Result<Pulled, ShareError> {
    let remote = Remote::open(url)?;
    let rid = remote.url().to_string();
    let mut done = Pulled {
        remote: rid.clone(),
        ..Pulled::default()
    };
    let db = ws.db()?;
    let take = to_pull(&remote, &db, &mut done)?;
    if take.is_empty() {
        return Ok(done);
    }
    // The contents this clone lacks, by the pack holding them (each from one pack); not
    // those it checked and dropped already (its next index run computes them here).
    let ours = db.computed_hashes()?;
    let dropped = db.mismatched_hashes()?;
    drop(db);
    let mut by_pack: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for t in &take {
        let m = &t.manifest;
        for e in m.files.iter().filter(|e| e.skip.is_none()) {
            if !ours.contains(&e.hash) && !dropped.contains(&e.hash) && seen.insert(&e.hash) {
                let p = m.pack_of(e).unwrap_or_default().to_string();
                by_pack.entry(p).or_default().push(e.hash.clone());
            }
        }
    }
    let scratch = tempfile::Builder::new()
        .prefix(".pull-")
        .tempdir_in(&ws.index_dir)
        .map_err(StoreError::scratch(&ws.index_dir, "create"))?;
    let mut packs = Vec::new();
    for (i, (name, hashes)) in by_pack.iter().enumerate() {
        let path = scratch.path().join(format!("pack-{i}.sqlite"));
        done.bytes += fetch_pack(&remote, name, &path)?;
        packs.push((path, hashes.clone()));
        done.packs += 1;
    }
    let out = scratch.path().join(DB_FILE);
    let branches: Vec<BranchFiles> = take
        .iter()
        .filter(|t| t.replace)
        .map(|t| {
            let m = &t.manifest;
            let mut files = m.files();
            for f in files
                .iter_mut()
                .filter(|f| f.skip.is_none() && dropped.contains(&f.hash))
            {
                f.skip = Some(pack::DROPPED.into());
            }
            BranchFiles {
                branch: m.branch.clone(),
                pushed_at: m.pushed_at,
                files,
            }
        })
        .collect();
    pack::assemble(&out, &packs, &branches)?;
    let have = pack::assembled_hashes(&out)?;
    if let Some(h) = seen.iter().find(|h| !have.contains(**h)) {
        return Err(RemoteError::BadObject {
            url: rid,
            key: manifest::pack_key(
                by_pack
                    .iter()
                    .find(|(_, v)| v.iter().any(|x| x == h))
                    .map_or("", |(p, _)| p),
            ),
            why: format!("it lacks content {h}, which a manifest says it holds"),
        }
        .into());
    }
    let replace: Vec<String> = take
        .iter()
        .filter(|t| t.replace)
        .map(|t| t.manifest.branch.clone())
        .collect();
    let label = std::path::PathBuf::from(&rid);
    done.imported = super::file::merge_snapshot(ws, scratch.path(), &label, &replace, |db| {
        for t in &take {
            let (m, key) = (&t.manifest, manifest::key_of(&t.manifest.branch, t.version));
            db.record_remote_branch(&rid, &m.branch, &key, m.pushed_at, t.replace)?;
        }
        Ok(())
    })?;
    done.merged = replace;
    Ok(done)
}

/// Download pack `name` to `path`, checking its hash and its database; the bytes read.
fn fetch_pack(remote: &Remote, name: &str, path: &std::path::Path) -> Result<u64, ShareError> {
    let key = manifest::pack_key(name);
    let bad = |why: String| RemoteError::BadObject {
        url: remote.url().into(),
        key: key.clone(),
        why,
    };
    if !crate::util::is_content_hash(name) {
        return Err(bad("a manifest names it without a pack".into()).into());
    }
    let bytes = remote
        .get(&key, MAX_PACK)?
        .ok_or_else(|| RemoteError::Missing {
            url: remote.url().into(),
            key: key.clone(),
        })?;
    let got = crate::util::sha256_hex(&bytes);
    if got != name {
        return Err(bad(format!("its bytes hash to {got}, not to its name")).into());
    }
    // Unpacked straight to the file: a pack may unpack to as much as a snapshot.
    let mut file = std::fs::File::create(path).map_err(StoreError::scratch(path, "write"))?;
    manifest::gunzip_to(&bytes, &mut file, super::unpack::MAX_BYTES).map_err(|e| match e {
        manifest::Gunzip::Refused(why) => ShareError::from(bad(why)),
        manifest::Gunzip::Write(e) => StoreError::scratch(path, "write")(e).into(),
    })?;
    crate::store::snapshot::check(path)?;
    tracing::debug!(pack = %name, "pack fetched");
    Ok(bytes.len() as u64)
}
