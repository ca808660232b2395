//! Building and updating the index of the checked-out branch: walk the work tree, hash files
//! (reusing hashes of unchanged files), plan the delta against the catalog, compute chunks
//! and symbols for content never seen, and commit the branch's membership atomically.

mod compute;
pub(crate) mod crashed;
mod error;
mod find;
#[cfg(test)]
mod fuzz;
pub(crate) mod history;
mod interrupt;
pub mod lock;
pub(crate) mod observe;
#[cfg(unix)]
mod on_crash;
pub(crate) mod plan;
pub(crate) mod rev;
pub(crate) mod run;
pub(crate) mod scan;
pub(crate) mod terms;
pub mod vectors;
pub(crate) mod verify;
pub(crate) mod walk;
mod writer;

pub use error::IndexError;
pub use interrupt::Stop;
pub use observe::{Event, Observer, Phase, Silent};
pub use run::{run, IndexOptions, IndexReport, ResumeChoice};
pub use vectors::{EmbedPolicy, EmbedReport};
