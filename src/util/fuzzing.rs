//! How the property tests draw their cases: the same cases on every run, so that CI's verdict
//! is the code's and not the dice's (a random case failed a CI run that the change under test
//! had nothing to do with). A fuzzing session varies them: `PROPTEST_RNG_SEED=N` draws
//! another set, `PROPTEST_CASES=N` draws more. The binary's tests compile this file too
//! (`cli::mcp`'s, by path): a test-only module of the library is out of their reach.

use proptest::test_runner::{Config, RngSeed};

/// The seed of every property test when `PROPTEST_RNG_SEED` is unset.
const SEED: u64 = 20_261_128;

/// A property test's configuration: `cases` cases (or `PROPTEST_CASES`), drawn from a fixed
/// seed (or `PROPTEST_RNG_SEED`), without failure files in the source tree.
pub(crate) fn config(cases: u32) -> Config {
    let drawn = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok());
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    Config {
        cases: drawn.unwrap_or(cases),
        rng_seed: RngSeed::Fixed(seed.unwrap_or(SEED)),
        failure_persistence: None,
        ..Config::default()
    }
}
