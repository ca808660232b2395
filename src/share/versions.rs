//! Manifest versions on a remote: listing each branch's newest, reading one (refused with its
//! reason, not failed, when a bucket writer put something no push writes there, so that the
//! caller decides: a pull skips that branch, a push supersedes it), writing the next with a
//! conditional create (checked arithmetic, below `manifest::MAX_VERSION`), and pruning old
//! ones.

use std::collections::{BTreeMap, HashMap};

use super::client::{Created, Remote, RemoteError};
use super::manifest::{self, Manifest};
use crate::store::{Db, StoreError};

/// Attempts to land a manifest version while others push the same branch.
const TRIES: u64 = 20;
/// Manifest versions kept per branch (a reader that listed an older one retries).
const KEEP: u64 = 3;

/// What this clone recorded of a branch and a remote: the version it last pushed or pulled,
/// when that version was pushed, and when it was last pulled here.
#[derive(Clone, Copy)]
pub struct Record {
    /// Version number.
    pub version: u64,
    /// When that version was pushed (the pusher's clock).
    pub pushed_at: Option<i64>,
    /// When it was last pulled here.
    pub pulled_at: Option<i64>,
}

/// This clone's records of `remote`, by branch.
pub fn recorded(db: &Db, remote: &str) -> Result<HashMap<String, Record>, StoreError> {
    Ok(db
        .remote()
        .branches()?
        .into_iter()
        .filter(|r| r.remote == remote)
        .filter_map(|r| {
            let (_, version) = manifest::parse_key(&r.manifest)?;
            let rec = Record {
                version,
                pushed_at: r.pushed_at,
                pulled_at: r.pulled_at,
            };
            Some((r.branch, rec))
        })
        .collect())
}

/// One manifest version read: the manifest, or why it is refused; and its stored bytes.
pub type Read = (Result<Manifest, String>, u64);

/// Newest manifest version of every branch on the remote.
pub fn newest(remote: &Remote) -> Result<BTreeMap<String, u64>, RemoteError> {
    Ok(newest_of(remote.list(manifest::MANIFESTS)?))
}

/// Newest version of each branch among the manifest keys of a listing (keys no push writes,
/// versions above the ceiling included, are no manifests).
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

/// Newest version of `branch`'s manifest and what reading it gave; version 0 and nothing if
/// it has none.
pub fn read_newest(
    remote: &Remote,
    branch: &str,
    max: u64,
) -> Result<(u64, Option<Read>), RemoteError> {
    for _ in 0..TRIES {
        let n = newest_of(remote.list(&manifest::dir_of(branch))?).remove(branch);
        let Some(n) = n else { return Ok((0, None)) };
        // Pruned between the listing and the read: list again.
        if let Some(read) = read_version(remote, branch, n, max)? {
            return Ok((n, Some(read)));
        }
    }
    Err(RemoteError::Missing {
        url: remote.url().into(),
        key: manifest::dir_of(branch),
    })
}

/// Version `n` of `branch`'s manifest, `None` if it is not there. Only a failure to reach
/// the remote is an error: a manifest too large or malformed is read as refused.
pub fn read_version(
    remote: &Remote,
    branch: &str,
    n: u64,
    max: u64,
) -> Result<Option<Read>, RemoteError> {
    let key = manifest::key_of(branch, n);
    let max = max.min(manifest::MAX_GZ);
    match remote.get(&key, max) {
        Ok(Some(bytes)) => {
            let len = bytes.len() as u64;
            Ok(Some((Manifest::parse(&bytes, branch), len)))
        }
        Ok(None) => Ok(None),
        // Refused (larger than `max`, most often) after up to `max` bytes came: counted as
        // read, so that a pull's budget ends what many such objects cost.
        Err(RemoteError::BadObject { why, .. }) => Ok(Some((Err(why), max))),
        Err(e) => Err(e),
    }
}

/// Write `m` as the version after `n` of `branch`'s manifest, unless the newest version
/// (`current`, when it was readable) says the same; on a conflict (another push of the
/// branch landed first), read the newest and go after it. The version written, or `None`
/// when up to date; `bytes` counts what was uploaded.
pub fn land(
    remote: &Remote,
    branch: &str,
    m: &Manifest,
    mut n: u64,
    mut current: Option<Manifest>,
    bytes_sent: &mut u64,
) -> Result<Option<u64>, RemoteError> {
    let bytes = m.to_bytes();
    let refused = |why: String| RemoteError::BadObject {
        url: remote.url().into(),
        key: manifest::dir_of(branch),
        why,
    };
    for _ in 0..TRIES {
        if current.as_ref().is_some_and(|c| c.same_as(m)) {
            return Ok(None);
        }
        let next = n
            .checked_add(1)
            .filter(|v| *v <= manifest::MAX_VERSION)
            .ok_or_else(|| {
                refused(format!(
                    "its versions reached the ceiling ({})",
                    manifest::MAX_VERSION
                ))
            })?;
        let key = manifest::key_of(branch, next);
        match remote.create(&key, bytes.clone())? {
            Created::Written => {
                *bytes_sent += bytes.len() as u64;
                tracing::debug!(%key, "manifest written");
                prune(remote, branch, next);
                return Ok(Some(next));
            }
            Created::Existed => {
                tracing::debug!(%key, "manifest version taken: reading the newest");
                let (newest, read) = read_newest(remote, branch, manifest::MAX_GZ)?;
                // Never go back: a version that is there but lists as no manifest still
                // counts as taken.
                n = newest.max(next);
                current = read.and_then(|(m, _)| m.ok());
            }
        }
    }
    Err(refused(format!(
        "{TRIES} other pushes of this branch landed first; try again"
    )))
}

/// Delete versions of `branch`'s manifest older than the last [`KEEP`] (best effort).
fn prune(remote: &Remote, branch: &str, newest: u64) {
    let Ok(keys) = remote.list(&manifest::dir_of(branch)) else {
        return;
    };
    for (key, _) in keys {
        if manifest::parse_key(&key).is_some_and(|(_, n)| n.saturating_add(KEEP) <= newest) {
            let _ = remote.delete(&key);
        }
    }
}
