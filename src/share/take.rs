//! The branches a pull takes from a remote and the manifest it reads for each: against what
//! this clone recorded of the remote (a version older than the one merged here is a replay),
//! and within the pull's budget, charged before a manifest is parsed; and what a pull did
//! (`Pulled`, which `share::remote::pull` returns).

use std::collections::HashSet;

use super::client::{Remote, RemoteError};
use super::fetch::{self, Budget};
use super::file::Imported;
use super::manifest::{self, Manifest};
use super::versions::{self, Record};
use super::ShareError;
use crate::store::Db;

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
    /// Branches not pulled because of what the remote holds for them, and why: this clone
    /// is unchanged for them.
    pub failed: Vec<(String, String)>,
    /// What the user should know about branches that were pulled.
    pub warnings: Vec<String>,
    /// Packs downloaded.
    pub packs: usize,
    /// Bytes downloaded (packs and manifests).
    pub bytes: u64,
    /// What the merge brought in.
    pub imported: Imported,
}

/// One branch to pull: the newest version listed, whether its catalog replaces this clone's
/// (a branch indexed here since its last pull keeps its own catalog; its contents are still
/// brought in, so the next index run only tags them), and what this clone recorded of it.
pub(super) struct Take {
    pub branch: String,
    pub version: u64,
    pub replace: bool,
    pub recorded: Option<Record>,
}

/// The branches of the remote to pull; those already pulled are noted in `done` as up to
/// date, those whose newest version is older than the one recorded here as failed.
pub(super) fn to_pull(
    remote: &Remote,
    db: &Db,
    done: &mut Pulled,
) -> Result<Vec<Take>, ShareError> {
    let records = versions::recorded(db, &done.remote)?;
    let local: HashSet<String> = db.catalog().branches()?.into_iter().collect();
    let mut take = Vec::new();
    for (branch, n) in versions::newest(remote)? {
        let record = records.get(&branch).copied();
        if local.contains(&branch) && record.is_some_and(|r| r.version == n) {
            done.up_to_date.push(branch);
            continue;
        }
        if let Some(v) = record.map(|r| r.version).filter(|v| n < *v) {
            done.failed.push((branch, older(n, v)));
            continue;
        }
        // Replace only what an earlier pull brought and no index run here has changed.
        let ours = local.contains(&branch)
            && match record.and_then(|r| r.pulled_at) {
                Some(at) => db
                    .stats()
                    .last_run_on(&branch)?
                    .is_some_and(|run| run >= at),
                None => true,
            };
        take.push(Take {
            branch,
            version: n,
            replace: !ours,
            recorded: record,
        });
    }
    Ok(take)
}

/// Why a branch whose remote version `n` is older than version `v` recorded here is refused.
fn older(n: u64, v: u64) -> String {
    format!("the remote's newest manifest (version {n}) is older than version {v} recorded here: not merged (newer versions were deleted, or an old one replayed)")
}

/// The manifest of the branch `t` to pull, checked against this clone's record and charged
/// to the pull's budget: its object key and the manifest (`None`: the branch is gone).
pub(super) fn read_take(
    remote: &Remote,
    t: &Take,
    budget: &mut Budget,
    done: &mut Pulled,
) -> Result<Option<(String, Manifest)>, ShareError> {
    // Read within what the pull may still read, and charged before it is parsed: a remote of
    // many large manifests that fail to parse had every pull download all of them.
    let room = budget.manifest_room();
    if room == 0 {
        return Err(RemoteError::BadObject {
            url: remote.url().into(),
            key: manifest::key_of(&t.branch, t.version),
            why: fetch::budget_spent(),
        }
        .into());
    }
    let (version, (read, bytes)) = match versions::read_version(remote, &t.branch, t.version, room)?
    {
        Some(read) => (t.version, read),
        // Pruned since the listing: a newer one landed.
        None => match versions::read_newest(remote, &t.branch, room)? {
            (n, Some(read)) => (n, read),
            (_, None) => return Ok(None),
        },
    };
    done.bytes += bytes;
    let key = manifest::key_of(&t.branch, version);
    let bad = |why: String| RemoteError::BadObject {
        url: remote.url().into(),
        key: key.clone(),
        why,
    };
    if let Some(v) = t.recorded.map(|r| r.version).filter(|v| version < *v) {
        return Err(bad(older(version, v)).into());
    }
    budget.manifest(0, bytes).map_err(&bad)?;
    let m = read.map_err(&bad)?;
    budget.manifest(m.files.len(), 0).map_err(&bad)?;
    let name = crate::git::display_key(&t.branch);
    if let Some(at) = t
        .recorded
        .and_then(|r| r.pushed_at)
        .filter(|at| m.pushed_at < *at)
    {
        done.warnings.push(format!(
            "{name}: version {version} says it was pushed at {}, before the version recorded here ({at}): merged, as it is newer by its number (the pushers' clocks may differ)",
            m.pushed_at
        ));
    }
    Ok(Some((key, m)))
}
