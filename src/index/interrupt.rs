//! Stopping a run where its progress is saved (Ctrl-C at the command line). The caller owns
//! the flag and hands each run a clone in its options, so the library keeps no global: two
//! runs in one process (the MCP server, a test) stop independently.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A request to stop, shared by whoever may ask (a signal handler) and the runs that check
/// it between files and batches.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A handle nobody has asked to stop yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Ask every run holding this handle to stop at its next checkpoint.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_request_and_other_handles_do_not() {
        let a = Stop::new();
        let run = a.clone();
        let other = Stop::new();
        assert!(!run.requested());
        a.request();
        assert!(run.requested());
        assert!(!other.requested());
    }
}
