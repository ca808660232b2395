//! A per-file prior applied after fusion: people search code for code, so documentation and
//! prose rank below source, tests a little below the code they test; and a file whose path
//! names query words (`config` in `src/config.rs`) ranks a little higher. Measured on the
//! development set with `bench/eval.py` (see CHANGELOG.md).

use super::query::Query;

/// Multiplier for prose files (markdown, reStructuredText, plain text).
const PROSE: f64 = 0.6;
/// Multiplier for test files.
const TEST: f64 = 0.8;
/// Extra per query word found in the path (at most three count).
const PATH_WORD: f64 = 0.1;

/// Languages that are prose rather than code.
fn is_prose(language: &str) -> bool {
    matches!(language, "markdown" | "rst" | "text")
}

/// Whether a path looks like a test file by the conventions of common languages.
pub fn is_test(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let stem = name.split('.').next().unwrap_or(name);
    lower.split('/').rev().skip(1).any(|d| {
        matches!(
            d,
            "test" | "tests" | "testing" | "__tests__" | "spec" | "specs"
        )
    }) || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("test") && path.ends_with(".java")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The multiplier for a hit in `path` of `language` for query `q`.
pub fn prior(path: &str, language: &str, q: &Query) -> f64 {
    let mut f = 1.0;
    if is_prose(language) {
        f *= PROSE;
    } else if is_test(path) {
        f *= TEST;
    }
    let lower = path.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 3)
        .collect();
    let hits = q
        .terms
        .iter()
        .filter(|t| t.len() >= 3 && words.contains(&t.as_str()))
        .count()
        .min(3);
    f * (1.0 + PATH_WORD * hits as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query::parse;

    #[test]
    fn tests_are_recognised_in_common_layouts() {
        for p in [
            "tests/test_api.py",
            "src/foo_test.go",
            "src/test/java/a/FooTest.java",
            "lib/__tests__/x.js",
            "src/x.test.ts",
            "pkg/thing_tests.rs",
        ] {
            assert!(is_test(p), "{p}");
        }
        for p in [
            "src/config.rs",
            "src/testing_utils_impl.c",
            "src/contest.py",
            "latest.go",
        ] {
            assert!(!is_test(p), "{p}");
        }
    }

    #[test]
    fn prose_and_tests_rank_below_code_and_path_words_lift() {
        let q = parse("parse the config file").unwrap();
        let code = prior("src/loader.rs", "rust", &q);
        assert!(prior("README.md", "markdown", &q) < code);
        assert!(prior("tests/test_loader.py", "python", &q) < code);
        assert!(prior("src/config.rs", "rust", &q) > code);
    }
}
