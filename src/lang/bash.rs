//! The shell grammar, with a scanner that cannot crash on non-ASCII text.
//!
//! tree-sitter-bash 0.25.1's external scanner calls `isdigit` on the code point after a `{`
//! where a brace expansion may start. `isdigit` of a value outside 0..255 is undefined in C;
//! glibc indexes a table with it, so a `{` followed by a code point far past the table read
//! unmapped memory and killed the process (SIGSEGV, found by `index::fuzz`): one such `.sh`
//! file in a repository stopped every index run. No fixed release exists, so
//! `grammars/bash/scanner.c` is the crate's scanner with those two calls made safe, and this
//! module gives tree-sitter the crate's tables with that scanner. The crate is still the
//! grammar: its parse tables, node types and tags query.

use std::sync::Once;

use tree_sitter_language::LanguageFn;

extern "C" {
    /// Copies the crate's language and sets the patched scanner's functions in the copy
    /// (grammars/bash/language.c).
    fn codesearch_bash_init(original: *const std::ffi::c_void);
    /// The patched copy made by `codesearch_bash_init`.
    fn codesearch_tree_sitter_bash() -> *const ();
}

/// The shell grammar with the patched scanner.
pub fn language() -> tree_sitter::Language {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let original = tree_sitter_bash::LANGUAGE.into_raw();
        // SAFETY: `original` is the crate's generated language function, which returns a
        // pointer to a static `TSLanguage`; `codesearch_bash_init` only reads it, once, before
        // any caller can reach the copy (`Once`), and the copy is a static that lives as long
        // as the process.
        unsafe { codesearch_bash_init(original().cast()) }
    });
    // SAFETY: after `INIT`, `codesearch_tree_sitter_bash` returns a pointer to a complete
    // `TSLanguage` of the crate's ABI whose scanner functions keep the crate's contract.
    tree_sitter::Language::new(unsafe { LanguageFn::from_raw(codesearch_tree_sitter_bash) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> tree_sitter::Tree {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&language())
            .expect("shell grammar loads");
        parser.parse(text, None).expect("parsed")
    }

    /// The input `index::fuzz` reduced to: a brace expansion's `{` then a code point far
    /// past the C library's character table. The crate's own scanner dies here (SIGSEGV).
    #[test]
    fn a_brace_before_a_far_code_point_parses() {
        for c in ['\u{10FFFF}', '\u{E0000}', '\u{1F600}', 'é', '日'] {
            let tree = parse(&format!("echo a{{{c}..9}}\nfor x in {{{c}\ndone\n"));
            assert_eq!(tree.root_node().kind(), "program");
        }
    }

    /// The copy is the crate's grammar: same node kinds, same tree for ordinary shell.
    #[test]
    fn the_patched_grammar_parses_as_the_crate_does() {
        let original: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
        assert_eq!(language().node_kind_count(), original.node_kind_count());
        let text = "f() {\n  for i in {1..3}; do echo \"$i\"; done\n  cat <<EOF\nx\nEOF\n}\n";
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&original).expect("loads");
        let want = parser
            .parse(text, None)
            .expect("parsed")
            .root_node()
            .to_sexp();
        assert_eq!(parse(text).root_node().to_sexp(), want);
    }
}
