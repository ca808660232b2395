//! Trimming a grammar's tags query to its definitions. The grammars' `tags.scm` also
//! capture references (every call, every type use); symbol search stores definitions only,
//! and `tree-sitter-tags` builds a tag (name, line and doc ranges) for each reference match
//! that indexing then threw away. Python's one reference pattern matches every call.

/// The patterns of `query` that capture a definition, in order, with the comments and
/// text before the first pattern. A pattern is one top-level S-expression (`( … )` or
/// `[ … ]`) with the captures and quantifiers after it; one that captures a reference and
/// no definition is left out.
pub fn definitions_only(query: &str) -> String {
    let starts = pattern_starts(query);
    let mut out = String::with_capacity(query.len());
    out.push_str(&query[..starts.first().copied().unwrap_or(query.len())]);
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(query.len());
        let pattern = &query[start..end];
        if pattern.contains("@definition.") || !pattern.contains("@reference.") {
            out.push_str(pattern);
        }
    }
    out
}

/// Byte offsets where a top-level pattern opens: a `(` or `[` at depth 0, outside strings
/// (which may hold brackets: `"^[\\s\\*/]+"`) and `;` comments.
fn pattern_starts(query: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut chars = query.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => skip_string(&mut chars),
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' => {
                if depth == 0 {
                    starts.push(i);
                }
                depth += 1;
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    starts
}

/// Move past a string literal whose opening quote was just read (backslash escapes).
fn skip_string(chars: &mut std::str::CharIndices<'_>) {
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::language::Language;

    #[test]
    fn every_definition_pattern_stays_and_no_reference_pattern_does() {
        for language in Language::CODE {
            let full = language.tags_query().unwrap();
            let trimmed = definitions_only(&full);
            assert_eq!(
                trimmed.matches("@definition.").count(),
                full.matches("@definition.").count(),
                "{language}"
            );
            assert!(!trimmed.contains("@reference."), "{language}");
            // It is still a query the grammar accepts.
            let grammar = language.grammar().unwrap();
            tree_sitter_tags::TagsConfiguration::new(grammar, &trimmed, "")
                .unwrap_or_else(|e| panic!("{language}: {e}"));
        }
    }

    /// (name, byte range) of each definition tag of `source`.
    fn definitions(language: Language, query: &str, source: &[u8]) -> Vec<(String, usize, usize)> {
        let config =
            tree_sitter_tags::TagsConfiguration::new(language.grammar().unwrap(), query, "")
                .unwrap();
        let mut ctx = tree_sitter_tags::TagsContext::new();
        let (tags, _) = ctx.generate_tags(&config, source, None).unwrap();
        tags.flatten()
            .filter(|t| t.is_definition)
            .map(|t| {
                let name = String::from_utf8_lossy(&source[t.name_range.clone()]).into_owned();
                (name, t.range.start, t.range.end)
            })
            .collect()
    }

    #[test]
    fn the_trimmed_query_finds_the_same_definitions_in_this_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for (dir, ext, language) in [
            ("src/index", "rs", Language::Rust),
            ("bench", "py", Language::Python),
        ] {
            for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
                if e.path().extension().is_some_and(|x| x == ext) {
                    files.push((e.path(), language));
                }
            }
        }
        assert!(files.len() > 10);
        for (path, language) in files {
            let source = std::fs::read(&path).unwrap();
            let full = language.tags_query().unwrap();
            let want = definitions(language, &full, &source);
            assert_eq!(
                definitions(language, &definitions_only(&full), &source),
                want,
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_open_patterns() {
        let q = "; a (comment\n(a \"[(\" @x) @reference.call\n[(b) (c)] @definition.f\n(d) @y";
        assert_eq!(
            definitions_only(q),
            "; a (comment\n[(b) (c)] @definition.f\n(d) @y"
        );
    }
}
