//! The index lock: one index run at a time per index directory. The holder is named by pid,
//! process start time and host. On this host the holder's process decides: alive, it keeps
//! the lock however long it runs; gone, the lock is taken over at once. The lease decides
//! for a holder on another host (an index on a shared disk), and for one whose start time
//! cannot be compared (a pid alone may have been reused). A second run waits (up to a
//! limit) and then names the holder.

use std::time::{Duration, Instant};

use crate::store::state::{LockAttempt, LockHolder};
use crate::store::Db;

use super::error::IndexError;

/// How long a lease lasts without renewal.
pub const LEASE_SECS: i64 = 300;

/// This process, as a lock holder.
pub fn me() -> LockHolder {
    let pid = std::process::id();
    let now = crate::util::unix_now();
    LockHolder {
        pid,
        pid_start: process_start(pid).unwrap_or_default(),
        host: hostname(),
        acquired_at: now,
        expires_at: now + LEASE_SECS,
    }
}

/// What to do when the lock is held.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contention {
    /// Wait up to this long, then fail naming the holder.
    Wait(Duration),
    /// Ask the holder for another pass and return at once (hooks).
    Defer,
}

/// Take the lock. `Ok(None)` means the lock was busy and the holder was asked to rerun.
pub fn acquire(
    db: &Db,
    me: &LockHolder,
    contention: Contention,
    mut on_wait: impl FnMut(&LockHolder),
) -> Result<Option<()>, IndexError> {
    let start = Instant::now();
    let mut told = false;
    loop {
        match db.index_lock().take(me, liveness)? {
            LockAttempt::Acquired => return Ok(Some(())),
            LockAttempt::Held(holder) => match contention {
                Contention::Defer => {
                    db.index_lock().request_rerun()?;
                    return Ok(None);
                }
                Contention::Wait(limit) => {
                    if start.elapsed() >= limit {
                        if told {
                            db.index_lock().want(false)?;
                        }
                        return Err(IndexError::Locked {
                            holder,
                            waited: limit,
                        });
                    }
                    if !told {
                        // A background holder lets the lock go at its next step.
                        db.index_lock().want(true)?;
                        on_wait(&holder);
                        told = true;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            },
        }
    }
}

/// Whether the holder's process exists: known only on this host, and only when its start
/// time can be compared (`None` otherwise: the lease decides). A pid reused by another
/// process (another start time) is not the holder; a live pid whose start time is unknown
/// (not recorded, or unreadable here) may be anyone's, so it does not keep the lock past its
/// lease.
pub fn liveness(holder: &LockHolder) -> Option<bool> {
    if holder.host != hostname() {
        return None;
    }
    if !pid_alive(holder.pid) {
        return Some(false);
    }
    match process_start(holder.pid) {
        Some(start) if !holder.pid_start.is_empty() => Some(start == holder.pid_start),
        _ => None,
    }
}

/// True when the holder's process is known to be gone (same host only).
pub fn is_dead(holder: &LockHolder) -> bool {
    liveness(holder) == Some(false)
}

/// True when the lock may be taken from `holder`: its process is gone, or, on another host,
/// its lease ran out.
pub fn is_stale(holder: &LockHolder) -> bool {
    match liveness(holder) {
        Some(alive) => !alive,
        None => holder.expires_at < crate::util::unix_now(),
    }
}

/// Extend `me`'s lease; a writer that lost the lock must stop before it writes again.
pub fn renew(db: &Db, me: &LockHolder) -> Result<(), IndexError> {
    if db
        .index_lock()
        .renew(me, crate::util::unix_now() + LEASE_SECS)?
    {
        Ok(())
    } else {
        Err(IndexError::LockLost {
            holder: db.index_lock().holder()?,
        })
    }
}

#[cfg(unix)]
pub(super) fn pid_alive(pid: u32) -> bool {
    // Signal 0 checks existence without sending anything; EPERM still means it exists.
    // SAFETY: kill(2) takes two integers and touches no memory of ours; with signal 0 it sends
    // nothing, whatever the pid (a recorded pid above i32::MAX would turn negative here).
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
pub(super) fn pid_alive(_pid: u32) -> bool {
    true
}

/// Start time of a process (Linux: field 22 of /proc/PID/stat), to detect pid reuse.
fn process_start(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces; fields after it are plain.
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(19).map(str::to_string)
}

fn hostname() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: `buf` is writable for the `buf.len()` bytes we pass; gethostname(2) writes
        // no more. A name it cut may lack its NUL, which the search for the end allows.
        let r = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
        if r == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
    }
    crate::env::get(crate::env::HOSTNAME)
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "localhost".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn we_are_alive_and_a_stale_start_time_is_dead() {
        let mine = me();
        assert!(!is_dead(&mine));
        let reused = LockHolder {
            pid_start: "1".into(),
            ..mine.clone()
        };
        assert!(is_dead(&reused));
        let other_host = LockHolder {
            host: "elsewhere".into(),
            pid_start: "1".into(),
            ..mine
        };
        assert!(!is_dead(&other_host));
    }

    #[test]
    fn a_live_holder_keeps_the_lock_past_its_lease_and_a_loser_cannot_renew() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("m.sqlite")).unwrap();
        // This process holds the lock with a lease that ran out long ago (a slow API run).
        let first = LockHolder {
            expires_at: crate::util::unix_now() - 3600,
            ..me()
        };
        assert!(
            acquire(&db, &first, Contention::Wait(Duration::ZERO), |_| {})
                .unwrap()
                .is_some()
        );
        assert!(!is_stale(&first));
        // Another process on this host (pid 1 is alive, another start time) must not take it.
        let other = LockHolder {
            pid: 1,
            pid_start: process_start(1).unwrap_or_default(),
            ..me()
        };
        let err = acquire(
            &db,
            &other,
            Contention::Wait(Duration::from_millis(150)),
            |_| {},
        );
        assert!(matches!(err, Err(IndexError::Locked { .. })), "{err:?}");
        // Once the lock is gone from under a writer, its renew fails and it must stop.
        db.index_lock().break_lock().unwrap();
        assert!(
            acquire(&db, &other, Contention::Wait(Duration::ZERO), |_| {})
                .unwrap()
                .is_some()
        );
        assert!(matches!(
            renew(&db, &first),
            Err(IndexError::LockLost { .. })
        ));
        renew(&db, &other).unwrap();
    }

    #[test]
    fn second_holder_waits_then_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("m.sqlite")).unwrap();
        let first = me();
        assert!(
            acquire(&db, &first, Contention::Wait(Duration::ZERO), |_| {})
                .unwrap()
                .is_some()
        );
        // A different live holder (same pid, so alive, but another start time would be dead):
        // simulate another host so liveness cannot be decided and the lease must be honoured.
        let second = LockHolder {
            host: "elsewhere".into(),
            pid: first.pid + 1,
            ..first.clone()
        };
        let err = acquire(
            &db,
            &second,
            Contention::Wait(Duration::from_millis(200)),
            |_| {},
        );
        assert!(matches!(err, Err(IndexError::Locked { .. })));
        assert!(acquire(&db, &second, Contention::Defer, |_| {})
            .unwrap()
            .is_none());
        assert!(
            db.index_lock().release(&first).unwrap(),
            "the deferred request must be reported"
        );
    }

    #[test]
    fn a_holder_whose_start_time_is_unknown_keeps_the_lock_only_for_its_lease() {
        // Recorded without a start time (where it could not be read): its pid may have been
        // reused by any live process, so only the lease can say it is still running.
        let unknown = LockHolder {
            pid_start: String::new(),
            expires_at: crate::util::unix_now() - 1,
            ..me()
        };
        assert!(is_stale(&unknown));
        let leased = LockHolder {
            expires_at: crate::util::unix_now() + LEASE_SECS,
            ..unknown
        };
        assert!(!is_stale(&leased));
    }
}
