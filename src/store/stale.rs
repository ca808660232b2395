//! Contents whose definitions an older build read wrong (`stale_definitions`: schema version
//! 12, C and C++ functions as their declarator's line; 13, Java's and TypeScript's enums and
//! type aliases missing, a C struct's uses taken for definitions). An index run computes each
//! one again where it meets a file of it; storing it again, or trying once, forgets it.

use std::collections::HashSet;

use super::error::StoreError;
use super::sqlite::handle;

handle! {
    /// The contents to compute again.
    Stale,
    /// The contents whose definitions an older build read wrong.
    stale
}

impl Stale<'_> {
    /// Every content hash listed.
    pub fn hashes(&self) -> Result<HashSet<String>, StoreError> {
        self.db
            .string_set("SELECT content_hash FROM stale_definitions", [])
    }

    /// Forget `hashes`: a run tried each once. One whose file no longer gives content (grown
    /// past a size bound, unreadable) keeps what it had rather than being tried every run.
    pub fn forget(&self, hashes: &[String]) -> Result<(), StoreError> {
        self.db.for_each_key(
            "forget stale definitions",
            "DELETE FROM stale_definitions WHERE content_hash = ?1",
            hashes,
        )
    }
}
