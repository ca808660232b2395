//! The `--path` glob (MCP's `path`), compiled so that no pattern can stop the process.
//! globset translates `{a,b}` into nested regex groups by recursion and compiles its
//! matcher with `expect`: a brace nested 300 deep (600 bytes) fails the regex parser's
//! nesting limit and panics, and a few hundred thousand overflow the stack. An MCP request
//! or a prompt-steered agent can send either, and the server (built with `panic = "abort"`)
//! would die. So the pattern is bounded first and compiled through the builder that
//! returns errors.

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::types::SearchError;

/// Longest glob taken, in bytes: a path pattern is a line, and the longest path git keeps
/// on most systems is 4,096 bytes.
pub const MAX_BYTES: usize = 4096;
/// Deepest `{…}` nesting taken: one or two levels say anything a path filter needs.
pub const MAX_NESTING: usize = 8;

/// The glob compiled, or why it is refused.
pub fn compile(glob: &str) -> Result<GlobSet, SearchError> {
    let depth = nesting(glob);
    if glob.len() > MAX_BYTES || depth > MAX_NESTING {
        return Err(SearchError::GlobTooComplex {
            bytes: glob.len(),
            depth,
            max_bytes: MAX_BYTES,
            max_depth: MAX_NESTING,
        });
    }
    let bad = |source| SearchError::BadGlob {
        glob: glob.to_string(),
        source,
    };
    let parsed = Glob::new(glob).map_err(bad)?;
    GlobSetBuilder::new().add(parsed).build().map_err(bad)
}

/// [`compile`] for a glob that may not be given.
pub fn compile_opt(glob: Option<&str>) -> Result<Option<GlobSet>, SearchError> {
    glob.map(compile).transpose()
}

/// How deep `{` nests in `glob`, a `\`-escaped character not counted.
fn nesting(glob: &str) -> usize {
    let (mut depth, mut most, mut escaped) = (0usize, 0usize, false);
    for c in glob.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => {
                depth += 1;
                most = most.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    most
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_globs_match_as_globset_does() {
        let g = compile("src/**/*.{rs,toml}").unwrap();
        assert!(g.is_match("src/search/mod.rs"));
        assert!(g.is_match("src/Cargo.toml"));
        assert!(!g.is_match("tests/it/main.rs"));
    }

    #[test]
    fn deep_or_long_globs_are_refused_not_a_panic() {
        let deep = format!("{}a{}", "{".repeat(300), "}".repeat(300));
        assert!(matches!(
            compile(&deep),
            Err(SearchError::GlobTooComplex { depth: 300, .. })
        ));
        let long = "a".repeat(MAX_BYTES + 1);
        assert!(matches!(
            compile(&long),
            Err(SearchError::GlobTooComplex { depth: 0, .. })
        ));
        let nested = format!("{}a{}", "{".repeat(MAX_NESTING), "}".repeat(MAX_NESTING));
        assert!(compile(&nested).unwrap().is_match("a"));
    }

    #[test]
    fn a_regex_past_its_size_limit_is_an_error() {
        // Within both bounds, yet the regex it makes is larger than regex allows.
        let wide = "?".repeat(MAX_BYTES);
        match compile(&wide) {
            Ok(g) => assert!(!g.is_match("a")),
            Err(e) => assert!(matches!(e, SearchError::BadGlob { .. })),
        }
    }

    #[test]
    fn escaped_braces_do_not_nest() {
        assert_eq!(nesting(r"\{\{\{a"), 0);
        assert_eq!(nesting("{a,{b,c}}"), 2);
        assert_eq!(nesting("}}{a}"), 1);
    }
}
