//! How an index run tells its caller what it is doing and asks what it must: the library never
//! prints, prompts or draws a progress bar. The command line implements [`Observer`] with
//! stderr, `indicatif` and `dialoguer`; the MCP server and tests pass [`Silent`] or their own.

use crate::store::state::{Checkpoint, LockHolder};

/// A long step of a run whose progress can be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Hashing the walked files (or reusing cached hashes).
    Scanning,
    /// Chunking and tagging new content.
    Indexing,
    /// Embedding what the branch still lacks (vector search on).
    Embedding,
}

impl Phase {
    /// One word for the user.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Scanning => "scanning",
            Phase::Indexing => "indexing",
            Phase::Embedding => "embedding",
        }
    }
}

/// Something the user may want to know that is not an error.
#[derive(Debug)]
pub enum Event<'a> {
    /// The branch searched has no index yet: this run builds it first (its name as shown).
    FirstIndex(&'a str),
    /// Another run holds the index lock; this one waits for it.
    WaitingForLock(&'a LockHolder),
    /// A run was interrupted before this one; it is resumed or restarted next.
    Interrupted(&'a Checkpoint),
    /// What the interrupted run computed is kept.
    Resuming,
    /// What the interrupted run computed was dropped (this many contents).
    Restarted {
        /// Contents dropped.
        dropped: usize,
    },
    /// A `--rev` tree lists more entries than one listing walks: the listing stopped at
    /// `max` and left the rest out (counted as skipped).
    TreeCut {
        /// Entries one listing walks.
        max: usize,
        /// Entries and directories left unwalked.
        left_out: usize,
    },
    /// The embedding model now answers with vectors of another size: all of its vectors are
    /// dropped and made again.
    NewDimension {
        /// Dimension of the stored vectors.
        old: usize,
        /// Dimension the model answers with now.
        new: usize,
    },
}

/// The caller's side of an index run. Every method has a default that does nothing (and
/// resumes an interrupted run), so an observer implements only what it shows. Progress
/// methods are called from worker threads, hence `Sync`.
pub trait Observer: Sync {
    /// Something happened (see [`Event`]).
    fn event(&self, _event: Event<'_>) {}
    /// Whether to resume an interrupted run; asked only when the options say
    /// [`super::run::ResumeChoice::Ask`]. Resuming loses nothing, so that is the default.
    fn resume(&self, _checkpoint: &Checkpoint) -> bool {
        true
    }
    /// A phase of `total` items starts.
    fn start(&self, _phase: Phase, _total: usize) {}
    /// `done` items of the current phase are finished (a running count, not a delta).
    fn progress(&self, _done: usize) {}
    /// The current phase ended (finished, failed or interrupted).
    fn finish(&self) {}
}

/// An observer that shows nothing and resumes interrupted runs.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Observer for Silent {}
