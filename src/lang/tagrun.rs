//! Running a tags query over a syntax tree already parsed. `tree-sitter-tags` compiles and
//! checks each language's tags query (`TagsConfiguration`), but its `generate_tags` parses
//! the file itself and takes no tree; the index guard (`lang::guard`) has just parsed the
//! same text with the same grammar to bound its depth. Parsing is most of indexing's CPU
//! (bench/history/2026-11-25-to-26.md, "One parse per file"), so the tags are read from the guard's tree: this
//! walks the query's matches the way `generate_tags` does (its release 0.27), for the parts
//! the index uses: `@name`, `@definition.*` / `@reference.*`, `@ignore`, `@doc` with
//! `#select-adjacent!` and `#strip!`, one tag per name's byte range (the lowest pattern index
//! wins), in the same order. Locals are not used here (the index passes no locals query). A test compares the
//! two on every language's samples.

use std::ops::Range;

use regex::Regex;
use tree_sitter::{Node, QueryCursor, QueryPredicateArg, StreamingIterator, Tree};
use tree_sitter_tags::TagsConfiguration;

/// Longest signature line, in bytes, as `tree-sitter-tags` cuts it.
const MAX_LINE_LEN: usize = 180;

/// One tag: what `tree_sitter_tags::Tag` holds that the index reads.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tag {
    /// The whole definition, with its name.
    pub range: Range<usize>,
    /// The name.
    pub name_range: Range<usize>,
    /// The name's line, trimmed and cut at [`MAX_LINE_LEN`] bytes; the previous tag's when
    /// that tag's name ended on the row this name starts on (as `generate_tags` reuses it).
    pub line_range: Range<usize>,
    /// The doc comment the query captures, markers stripped.
    pub docs: Option<String>,
    /// A definition (not a reference).
    pub is_definition: bool,
    /// The kind: the capture's name after `definition.` or `reference.`.
    pub kind: String,
}

/// What each capture and pattern of a tags query means, read once per language.
pub(super) struct Roles {
    name: Option<u32>,
    doc: Option<u32>,
    ignore: Option<u32>,
    /// For each capture index, its kind and whether it is a definition.
    kinds: Vec<Option<(String, bool)>>,
    /// For each pattern, the capture its docs must be adjacent to, and their strip regex.
    patterns: Vec<(Option<u32>, Option<Regex>)>,
}

impl Roles {
    /// The roles of `config`'s query, as `TagsConfiguration::new` reads them; `None` if a
    /// strip regex does not compile (`new` would have refused the query already).
    pub(super) fn of(config: &TagsConfiguration) -> Option<Roles> {
        let query = &config.query;
        let index = |wanted: &str| {
            query
                .capture_names()
                .iter()
                .position(|n| *n == wanted)
                .map(|i| i as u32)
        };
        let kinds = query
            .capture_names()
            .iter()
            .map(|n| {
                if let Some(k) = n.strip_prefix("definition.") {
                    Some((k.to_string(), true))
                } else {
                    n.strip_prefix("reference.").map(|k| (k.to_string(), false))
                }
            })
            .collect();
        let doc = index("doc");
        let mut patterns = Vec::with_capacity(query.pattern_count());
        for i in 0..query.pattern_count() {
            let (mut adjacent, mut strip) = (None, None);
            // Only predicates on the doc capture shape the docs (as `generate_tags` reads them).
            let on_doc = |p: &&tree_sitter::QueryPredicate| {
                doc.is_some_and(|d| p.args.first() == Some(&QueryPredicateArg::Capture(d)))
            };
            for p in query.general_predicates(i).iter().filter(on_doc) {
                match (p.operator.as_ref(), p.args.get(1)) {
                    ("select-adjacent!", Some(QueryPredicateArg::Capture(c))) => {
                        adjacent = Some(*c)
                    }
                    ("strip!", Some(QueryPredicateArg::String(s))) => {
                        strip = Some(Regex::new(s).ok()?)
                    }
                    _ => {}
                }
            }
            patterns.push((adjacent, strip));
        }
        Some(Roles {
            name: index("name"),
            doc,
            ignore: index("ignore"),
            kinds,
            patterns,
        })
    }
}

/// The tags of `source`, parsed into `tree`, in the order `generate_tags` gives them.
pub(super) fn tags(
    config: &TagsConfiguration,
    roles: &Roles,
    cursor: &mut QueryCursor,
    tree: &Tree,
    source: &[u8],
) -> Vec<Tag> {
    let mut matches = cursor.matches(&config.query, tree.root_node(), source);
    // Sorted by the name's (end, start), with the pattern that made each; `None` for an
    // ignored name.
    let mut queue: Vec<(Range<usize>, Option<Tag>, usize)> = Vec::new();
    let mut out = Vec::new();
    let mut last_line = None;
    while let Some(m) = matches.next() {
        let Some((name_range, tag)) = tag_of(m, roles, source, &mut last_line) else {
            continue;
        };
        let key = |r: &Range<usize>| (r.end, r.start);
        match queue.binary_search_by_key(&key(&name_range), |(r, _, _)| key(r)) {
            Ok(i) if queue[i].2 > m.pattern_index => queue[i] = (name_range, tag, m.pattern_index),
            Ok(_) => {}
            Err(i) => queue.insert(i, (name_range, tag, m.pattern_index)),
        }
        // As `generate_tags` checks before each match: the front is final once it ends
        // before the last queued name starts.
        while queue.len() > 1 && queue[0].0.end < queue[queue.len() - 1].0.start {
            out.extend(queue.remove(0).1);
        }
    }
    out.extend(queue.into_iter().filter_map(|(_, t, _)| t));
    out
}

/// The name range and tag of one match (`None` for the tag of an ignored name); `None` if
/// the match makes no tag. `last_line` is the row the previous tag's name ended on and that
/// tag's line range, updated here.
fn tag_of(
    m: &tree_sitter::QueryMatch<'_, '_>,
    roles: &Roles,
    source: &[u8],
    last_line: &mut Option<(usize, Range<usize>)>,
) -> Option<(Range<usize>, Option<Tag>)> {
    let (adjacent_capture, strip) = &roles.patterns[m.pattern_index];
    let (mut name, mut tag_node, mut kind, mut adjacent) = (None, None, None, None);
    let mut ignored = false;
    let mut docs: Vec<Node> = Vec::new();
    for c in m.captures() {
        let index = Some(c.index);
        if index == roles.ignore {
            ignored = true;
            name = Some(c.node);
        }
        if index == *adjacent_capture {
            adjacent = Some(c.node);
        }
        if index == roles.name {
            name = Some(c.node);
        } else if index == roles.doc {
            docs.push(c.node);
        }
        if let Some(k) = roles.kinds.get(c.index as usize).and_then(Option::as_ref) {
            tag_node = Some(c.node);
            kind = Some(k);
        }
    }
    let name = name?;
    let name_range = name.byte_range();
    let Some(tag_node) = tag_node else {
        return ignored.then_some((name_range, None));
    };
    if name.has_error() {
        return None;
    }
    let (kind, is_definition) = kind?;
    let rng = tag_node.byte_range();
    let row = name.start_position().row;
    let line = match last_line.take() {
        Some((end_row, line)) if end_row == row => line,
        _ => line_range(source, name_range.start - name.start_position().column),
    };
    *last_line = Some((name.end_position().row, line.clone()));
    let tag = Tag {
        range: rng.start.min(name_range.start)..rng.end.max(name_range.end),
        line_range: line,
        name_range: name_range.clone(),
        docs: doc_text(&docs, adjacent, strip.as_ref(), source),
        is_definition: *is_definition,
        kind: kind.clone(),
    };
    Some((name_range, Some(tag)))
}

/// The doc comment of a match: its doc captures (only the run adjacent to `adjacent`, when
/// the pattern selects one) joined by newlines, each with `strip` removed.
fn doc_text(
    docs: &[Node],
    adjacent: Option<Node>,
    strip: Option<&Regex>,
    source: &[u8],
) -> Option<String> {
    let mut first = 0;
    if let (Some(adjacent), false) = (adjacent, docs.is_empty()) {
        first = docs.len();
        let mut row = adjacent.start_position().row;
        while first > 0 && docs[first - 1].end_position().row + 1 >= row {
            first -= 1;
            row = docs[first].start_position().row;
        }
    }
    let mut out: Option<String> = None;
    for d in &docs[first..] {
        let Ok(text) = std::str::from_utf8(&source[d.byte_range()]) else {
            continue;
        };
        let text = strip.map_or_else(|| text.to_string(), |r| r.replace_all(text, "").to_string());
        match &mut out {
            None => out = Some(text),
            Some(o) => {
                o.push('\n');
                o.push_str(&text);
            }
        }
    }
    out
}

/// The line starting at byte `line_start`, without its leading and trailing whitespace and
/// cut at [`MAX_LINE_LEN`] bytes (before a character cut in two).
fn line_range(text: &[u8], line_start: usize) -> Range<usize> {
    let mut start = line_start;
    while start < text.len() && text[start].is_ascii_whitespace() {
        start += 1;
    }
    let max = MAX_LINE_LEN.min(text.len() - start);
    let after = &text[start..start + max];
    let len = match after.iter().position(|&b| b == b'\n') {
        Some(n) => n,
        None => match std::str::from_utf8(after) {
            Err(e) => e.valid_up_to(),
            Ok(_) => max,
        },
    };
    let mut end = start + len;
    while end > start && text[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    start..end
}

/// Under test, every tag list is checked against `generate_tags` on the same text, so each
/// language's samples in `symbols_langs` and the fuzz inputs compare the two.
#[cfg(test)]
pub(super) fn assert_same_as_generate_tags(
    config: &TagsConfiguration,
    source: &[u8],
    ours: &[Tag],
) {
    let mut ctx = tree_sitter_tags::TagsContext::new();
    let (theirs, _) = ctx.generate_tags(config, source, None).expect("tags");
    let theirs: Vec<Tag> = theirs
        .flatten()
        .filter(|t| t.range.start != usize::MAX)
        .map(|t| Tag {
            range: t.range,
            name_range: t.name_range,
            line_range: t.line_range,
            docs: t.docs,
            is_definition: t.is_definition,
            kind: config.syntax_type_name(t.syntax_type_id).to_string(),
        })
        .collect();
    assert_eq!(
        ours,
        theirs.as_slice(),
        "{}",
        String::from_utf8_lossy(source)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::language::Language;

    #[test]
    fn every_languages_query_has_its_roles() {
        for language in Language::CODE {
            let (Some(grammar), Some(query)) = (language.grammar(), language.definitions_query())
            else {
                continue;
            };
            let config = TagsConfiguration::new(grammar, &query, "")
                .unwrap_or_else(|e| panic!("{}: {e}", language.name()));
            assert!(Roles::of(&config).is_some(), "{language}");
        }
    }

    #[test]
    fn a_name_starting_on_the_row_an_earlier_name_ends_on_shares_its_line() {
        // `generate_tags` reuses the previous tag's line when its name ended on this row; the
        // comparison under test (`assert_same_as_generate_tags`) fails if this walk does not.
        let src = "\"multi\nline\" <- function(x) 1; g <- function() 2\n";
        let syms = super::super::symbols::Tagger::default().symbols(Language::R, src);
        let g = syms.iter().find(|s| s.name == "g").expect("g");
        assert_eq!(g.signature, "\"multi", "{syms:?}");
    }

    #[test]
    fn a_signature_line_is_trimmed_and_cut_before_a_split_character() {
        let text = "  fn f() {}  \nnext";
        assert_eq!(&text[line_range(text.as_bytes(), 0)], "fn f() {}");
        let long = format!("fn {}", "é".repeat(120));
        let r = line_range(long.as_bytes(), 0);
        assert!(
            r.end <= MAX_LINE_LEN && long.is_char_boundary(r.end),
            "{r:?}"
        );
    }
}
