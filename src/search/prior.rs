//! A per-file prior applied after fusion: people search code for code, so documentation and
//! prose rank below source, so do data and configuration files, tests below the code they
//! test, and files in languages we have no grammar for a little below; and a file whose path
//! names query words (`config` in `src/config.rs`) ranks a little higher. Measured on the
//! development set with `bench/eval.py` (see CHANGELOG.md).

use super::params::prior::{
    DATA, DECLARATIONS, DOCS, LEGACY, OTHER, OTHER_OS, PATH_WORD, PROSE, TEST, VENDORED,
};
use super::query::Query;
use crate::lang::Language;

/// Files that are prose rather than code: markdown, reStructuredText, `.txt`, and the
/// README / CHANGELOG / LICENSE family. Unknown extensions (a `.jq` or `.sql` file) are not
/// prose: they may well be code in a language we have no grammar for.
/// `lower` is the path in lower case.
fn is_prose(lower: &str, language: Language) -> bool {
    if matches!(language, Language::Markdown | Language::Rst) {
        return true;
    }
    let name = lower.rsplit('/').next().unwrap_or(lower);
    let stem = name.split('.').next().unwrap_or(name);
    name.ends_with(".txt")
        || name.ends_with(".adoc")
        || matches!(
            stem,
            "readme" | "changelog" | "changes" | "history" | "news" | "authors" | "copying"
        )
        || stem.starts_with("license")
}

/// Data and configuration rather than code: JSON, YAML, TOML, XML, lock files, CI set-up.
/// `lower` is the path in lower case.
fn is_data(lower: &str, language: Language) -> bool {
    matches!(
        language,
        Language::Json | Language::Yaml | Language::Toml | Language::Xml
    ) || lower.ends_with(".lock")
        || lower.ends_with(".csv")
        || lower.ends_with(".cfg")
        || lower.ends_with(".ini")
        || lower.starts_with(".github/")
}

/// Whether a path is a test by its directory (`tests/`, `__tests__/`, `spec/`) or by the
/// naming convention of its own language: `test_*.py`, `*_test.go`, `*Test.java`,
/// `*.spec.ts`, `*_spec.rb`, `*.bats`. A convention only counts in its language: a test
/// framework's own `lib/test_functions.bash` is code, not a test.
pub fn is_test(path: &str, language: Language) -> bool {
    let lower = path.to_ascii_lowercase();
    if under_dir(&lower, TEST_DIRS) {
        return true;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let lower_stem = stem.to_ascii_lowercase();
    let suffix = |s: &[&str]| s.iter().any(|x| lower_stem.ends_with(x));
    let pascal = |s: &[&str]| s.iter().any(|x| stem.len() > x.len() && stem.ends_with(x));
    match language {
        Language::Python => {
            lower_stem.starts_with("test_") || suffix(&["_test"]) || stem == "conftest"
        }
        Language::Go => suffix(&["_test"]),
        Language::Java
        | Language::Kotlin
        | Language::Scala
        | Language::CSharp
        | Language::Swift
        | Language::Php
        | Language::Haskell => pascal(&["Test", "Tests", "Spec", "IT"]),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            let lower_name = name.to_ascii_lowercase();
            lower_name.contains(".test.") || lower_name.contains(".spec.")
        }
        Language::C | Language::Cpp => {
            lower_stem.starts_with("test_") || suffix(&["_test", "_tests", "_unittest"])
        }
        Language::Ruby | Language::Lua | Language::Elixir | Language::Rust | Language::Zig => {
            suffix(&["_test", "_tests", "_spec"])
        }
        _ => name.to_ascii_lowercase().ends_with(".bats") || suffix(&["_test", "_spec"]),
    }
}

/// Directories of tests.
const TEST_DIRS: &[&str] = &["test", "tests", "testing", "__tests__", "spec", "specs"];
/// Directories of code copied in from other projects.
const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "third_party",
    "thirdparty",
    "third-party",
    "external",
    "extern",
];
/// Directories of documentation and examples.
const DOC_DIRS: &[&str] = &["doc", "docs", "documentation", "example", "examples"];
/// Directories of code kept for old callers: what is asked about is the current code.
const LEGACY_DIRS: &[&str] = &["compat", "_compat", "legacy", "deprecated", "deprecations"];

/// Path words that mark code for an operating system other than this one: Windows code
/// (`src/win/`, `sys/windows/`, `path_windows.go`, `win32.c`) everywhere else, Unix code on
/// Windows.
const OTHER_OS_WORDS: &[&str] = if cfg!(windows) {
    &["unix", "linux", "darwin", "macos", "posix"]
} else {
    &["win", "windows", "win32", "win64"]
};

/// Whether `words` (a lower-case path's words) mark the path as another operating system's
/// code that the query does not ask for by name.
fn for_another_os(words: &[&str], q: &Query) -> bool {
    words.iter().any(|w| OTHER_OS_WORDS.contains(w))
        && !q.terms.iter().any(|t| OTHER_OS_WORDS.contains(&t.as_str()))
}

/// Whether a directory of `lower` (a path in lower case) is one of `names`.
fn under_dir(lower: &str, names: &[&str]) -> bool {
    lower.split('/').rev().skip(1).any(|d| names.contains(&d))
}

/// The multiplier for a hit in `path` of `language` for query `q`; `third_party` when the
/// path lies in a subtree copied from another project (see `thirdparty`).
pub fn prior(path: &str, language: Language, q: &Query, third_party: bool) -> f64 {
    let lower = path.to_ascii_lowercase();
    let mut f = 1.0;
    if is_prose(&lower, language) {
        f *= PROSE;
    } else if is_data(&lower, language) {
        f *= DATA;
    } else if is_test(path, language) {
        f *= TEST;
    } else if !Language::CODE.contains(&language) {
        f *= OTHER;
    }
    if third_party || under_dir(&lower, VENDOR_DIRS) {
        f *= VENDORED;
    }
    if path.ends_with(".d.ts") || path.ends_with(".pyi") {
        f *= DECLARATIONS;
    }
    if under_dir(&lower, LEGACY_DIRS) {
        f *= LEGACY;
    }
    if under_dir(&lower, DOC_DIRS) {
        f *= DOCS;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 3)
        .collect();
    if for_another_os(&words, q) {
        f *= OTHER_OS;
    }
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
            "pkg/test_api.py",
            "src/foo_test.go",
            "src/test/java/a/FooTest.java",
            "src/main/java/a/FooTest.java",
            "lib/__tests__/x.js",
            "src/x.test.ts",
            "pkg/thing_tests.rs",
            "spec/models/user_spec.rb",
            "test/suite.bats",
        ] {
            let language = Language::of_path(p);
            assert!(is_test(p, language), "{p}");
        }
        for p in [
            "src/config.rs",
            "src/testing_utils_impl.c",
            "src/contest.py",
            "latest.go",
            // A test framework's own code: a convention of Python, not of shell.
            "lib/bats-core/test_functions.bash",
            "src/Latest.java",
        ] {
            let language = Language::of_path(p);
            assert!(!is_test(p, language), "{p}");
        }
    }

    #[test]
    fn prose_and_tests_rank_below_code_and_path_words_lift() {
        let q = parse("parse the config file").unwrap();
        let code = prior("src/loader.rs", Language::Rust, &q, false);
        assert!(prior("README.md", Language::Markdown, &q, false) < code);
        assert!(prior("tests/test_loader.py", Language::Python, &q, false) < code);
        assert!(prior("src/config.rs", Language::Rust, &q, false) > code);
        assert!(prior("docs/manual.yml", Language::Yaml, &q, false) < code);
        assert!(prior("Cargo.lock", Language::Text, &q, false) < code);
        assert!(
            prior("CHANGELOG", Language::Text, &q, false)
                < prior("src/builtin.jq", Language::Text, &q, false)
        );
        assert!(prior("src/builtin.jq", Language::Text, &q, false) < code);
        assert!(
            prior("types/index.d.ts", Language::TypeScript, &q, false)
                < prior("src/index.js", Language::JavaScript, &q, false)
        );
        assert!(
            prior("third_party/zlib/inflate.c", Language::C, &q, false)
                < prior("src/inflate.c", Language::C, &q, false)
        );
        assert!(
            prior("docs/examples/loader.py", Language::Python, &q, false)
                < prior("loader.py", Language::Python, &q, false)
        );
        assert!(
            prior("src/dec/number.c", Language::C, &q, true)
                < prior("src/number.c", Language::C, &q, false)
        );
    }

    #[test]
    fn another_systems_code_ranks_lower_unless_the_query_names_it() {
        let (here, there) = if cfg!(windows) {
            ("src/win/tcp.c", "src/unix/tcp.c")
        } else {
            ("src/unix/tcp.c", "src/win/tcp.c")
        };
        let q = parse("TCP stream connect").unwrap();
        assert!(prior(there, Language::C, &q, false) < prior(here, Language::C, &q, false));
        let named = if cfg!(windows) { "unix" } else { "windows" };
        let q = parse(&format!("TCP stream connect on {named}")).unwrap();
        assert_eq!(
            prior(there, Language::C, &q, false),
            prior(here, Language::C, &q, false)
        );
    }
}
