//! Bounding the syntax-aware work on one file. tree-sitter, the code splitter and the tag
//! queries all walk the syntax tree, and their cost grows with its depth: 4,000 levels of
//! `x(x(…` in a 12 KB file kept one index run busy for minutes (the same text as plain text
//! takes 0.1 s), and real vendored code stalled a 37,000-file run. So before that work a file
//! is checked once, cheaply: bracket nesting, then one parse with a time limit and the depth
//! of the tree it gives. A file over any bound is indexed as plain text, without symbols,
//! and the reason is kept for `status --verbose`; a file within them keeps that tree for
//! its tags (`lang::tagrun`), so they need no parse of their own.

use std::time::{Duration, Instant};

use super::language::Language;

/// Deepest bracket nesting parsed as code (real code stays far below 100).
pub const MAX_NESTING: usize = 256;
/// Deepest syntax tree accepted (a long `a + b + …` chain nests one level a term).
pub const MAX_TREE_DEPTH: usize = 1_000;
/// Longest parse of one file.
pub const PARSE_TIME: Duration = Duration::from_secs(2);

/// The syntax tree of a file with a grammar, parsed once here within the bounds and kept
/// for the tags (`lang::tagrun`); `Ok(None)` for a language without a grammar (or one this
/// tree-sitter cannot load), `Err` with the reason a file over a bound is indexed as plain
/// text instead.
pub fn check(language: Language, text: &str) -> Result<Option<tree_sitter::Tree>, String> {
    let Some(grammar) = language.grammar() else {
        return Ok(None);
    };
    let nesting = max_nesting(text);
    if nesting > MAX_NESTING {
        return Err(format!(
            "indexed as plain text: brackets nest {nesting} deep (more than {MAX_NESTING})"
        ));
    }
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Ok(None);
    }
    let start = Instant::now();
    let mut progress = |_: &tree_sitter::ParseState| {
        if start.elapsed() > PARSE_TIME {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |i, _| text.as_bytes().get(i..).unwrap_or_default(),
        None,
        Some(options),
    );
    let Some(tree) = tree else {
        return Err(format!(
            "indexed as plain text: parsing took longer than {} s",
            PARSE_TIME.as_secs()
        ));
    };
    let depth = tree_depth(&tree);
    if depth > MAX_TREE_DEPTH {
        return Err(format!("indexed as plain text: its syntax tree is {depth} levels deep (more than {MAX_TREE_DEPTH})"));
    }
    Ok(Some(tree))
}

/// Deepest nesting of `(`, `[` and `{` (closers of any kind count down; strings and
/// comments are not told apart: a bound, not a parser).
fn max_nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Depth of a syntax tree, walked with a cursor (no recursion).
fn tree_depth(tree: &tree_sitter::Tree) -> usize {
    let mut cursor = tree.walk();
    let (mut depth, mut max) = (0usize, 0usize);
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            max = max.max(depth);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return max;
            }
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_code_is_parsed_and_deep_code_is_not() {
        let src = "fn main() {\n    let v = vec![1, 2, 3];\n    println!(\"{:?}\", v);\n}\n";
        assert!(check(Language::Rust, src).unwrap().is_some());
        assert!(check(Language::Markdown, src).unwrap().is_none());
        let deep = format!("f({}1{});\n", "x(".repeat(4000), ")".repeat(4000));
        let why = check(Language::JavaScript, &deep).unwrap_err();
        assert!(why.contains("nest 4001 deep"), "{why}");
        // Deep without brackets: a long chain of binary operators.
        let chain = format!("x = {}1\n", "1 + ".repeat(5000));
        let why = check(Language::Python, &chain).unwrap_err();
        assert!(why.contains("syntax tree"), "{why}");
    }
}
