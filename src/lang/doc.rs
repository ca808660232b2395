//! Doc comments read from the lines around a definition, for grammars whose tags query does
//! not capture them and for the keyword definitions of languages without a grammar.

use super::symbol::MAX_DOC;

/// The doc comment of a definition starting at 1-based `line`, for grammars whose tags
/// query does not capture docs: the comment lines right above it (`///`, `//`, `#`,
/// `/** */`; `--` alone where `dashes`, as `#` starts CPP lines in Haskell), else a
/// Python-style docstring right below its first line. Attributes (`#[…]`), `#include` and
/// a shebang (`#!`) are not comments. Cut to `MAX_DOC` characters here, for every caller:
/// the importer's check refuses a longer doc, so storing one made a file unshareable.
pub(super) fn doc_comment(lines: &[&str], line: usize, dashes: bool) -> Option<String> {
    comment_or_docstring(lines, line, dashes).map(clip)
}

/// `doc` cut to the longest doc comment this build keeps.
pub(super) fn clip(doc: String) -> String {
    match doc.char_indices().nth(MAX_DOC) {
        Some((end, _)) => doc[..end].to_string(),
        None => doc,
    }
}

fn comment_or_docstring(lines: &[&str], line: usize, dashes: bool) -> Option<String> {
    let is_comment = |l: &str| {
        let t = l.trim_start();
        if dashes {
            return t.starts_with("--");
        }
        ["//", "/*", "*", "#"].iter().any(|p| t.starts_with(p))
            && !t.starts_with("#[")
            && !t.starts_with("#!")
            && !t.starts_with("#include")
    };
    let mut above = Vec::new();
    let mut i = line.saturating_sub(1);
    while i > 0 && i <= lines.len() && is_comment(lines[i - 1]) {
        above.push(strip_comment(lines[i - 1], dashes));
        i -= 1;
    }
    if !above.is_empty() {
        above.reverse();
        return Some(above.join("\n").trim().to_string()).filter(|d| !d.is_empty());
    }
    let next = lines.get(line)?.trim_start();
    let quote = [r#"""""#, "'''"]
        .into_iter()
        .find(|q| next.starts_with(q))?;
    let mut doc = Vec::new();
    for l in &lines[line..lines.len().min(line + 30)] {
        let t = l.trim();
        doc.push(t.trim_matches(|c| c == '"' || c == '\''));
        if (doc.len() > 1 || t.len() > 3) && t.ends_with(quote) {
            break;
        }
    }
    Some(doc.join("\n").trim().to_string()).filter(|d| !d.is_empty())
}

/// A comment line's text: without its markers, a Haddock `-- |`, a LuaDoc `---` or an R
/// (roxygen) `#'`.
fn strip_comment(l: &str, dashes: bool) -> &str {
    let t = l.trim_start();
    let t = if dashes && t.starts_with("--") {
        t.trim_start_matches('-')
            .trim_start()
            .trim_start_matches('|')
    } else if let Some(roxygen) = t.strip_prefix("#'") {
        roxygen
    } else {
        t.trim_start_matches(['/', '*', '#', '!'])
    };
    t.trim_end_matches("*/").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doc_comment_is_cut_to_the_longest_kept_on_a_character_boundary() {
        let long = format!("/// {}", "é".repeat(MAX_DOC + 10));
        let doc = doc_comment(&[long.as_str(), "fn f() {}"], 2, false).unwrap();
        assert_eq!(doc.chars().count(), MAX_DOC);
        let short = doc_comment(&["/// short", "fn f() {}"], 2, false).unwrap();
        assert_eq!(short, "short");
    }
}
