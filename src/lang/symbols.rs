//! Symbol extraction with `tree-sitter-tags` queries: functions, methods, classes, structs,
//! interfaces/traits, modules, with line range, signature (first line) and doc comment.
//! The query runs over the tree the index guard parsed (`lang::tagrun`). The tests of each
//! language's definitions are in `symbols_langs`.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, QueryCursor, Tree};
use tree_sitter_tags::TagsConfiguration;

use super::doc::doc_comment;
use super::kind::SymbolKind;
use super::tagrun::{self, Roles};

use super::language::Language;
use crate::lang::Symbol;

pub(crate) use super::symbol::{MAX_DOC, MAX_SIGNATURE};

/// Reusable tag extraction state, for one thread: each language's compiled query and a
/// query cursor.
#[derive(Default)]
pub struct Tagger {
    configs: HashMap<Language, Option<(TagsConfiguration, Roles)>>,
    cursor: QueryCursor,
}

impl Tagger {
    /// Definitions in `text` of `language`, parsing it (without the guard's bounds: for
    /// tests); empty for languages without a tags query.
    #[cfg(test)]
    pub fn symbols(&mut self, language: Language, text: &str) -> Vec<Symbol> {
        let Some(grammar) = language.grammar() else {
            return Vec::new();
        };
        let parsed = super::export_macro::blanked(language, text);
        let mut parser = tree_sitter::Parser::new();
        let tree = parser
            .set_language(&grammar)
            .ok()
            .and_then(|_| parser.parse(parsed.as_ref(), None));
        match tree {
            Some(tree) => self.symbols_in(language, text, &parsed, &tree),
            None => Vec::new(),
        }
    }

    /// Definitions in `text` of `language`, whose grammar parsed `parsed` into `tree`:
    /// `text` itself, or as `lang::export_macro` blanks it (the same length, so the tags'
    /// offsets hold in both; names and signatures are read from `text`).
    pub fn symbols_in(
        &mut self,
        language: Language,
        text: &str,
        parsed: &str,
        tree: &Tree,
    ) -> Vec<Symbol> {
        let config = self.configs.entry(language).or_insert_with(|| {
            let grammar = language.grammar()?;
            let query = language.definitions_query()?;
            let config = TagsConfiguration::new(grammar, &query, "").ok()?;
            let roles = Roles::of(&config)?;
            Some((config, roles))
        });
        let Some((config, roles)) = config.as_ref() else {
            return Vec::new();
        };
        let source = parsed.as_bytes();
        let tags = tagrun::tags(config, roles, &mut self.cursor, tree, source);
        #[cfg(test)]
        tagrun::assert_same_as_generate_tags(config, source, &tags);
        let has_error = tree.root_node().has_error();
        let lines: Vec<&str> = text.lines().collect();
        let dashes = language.dash_comments();
        let newlines = newline_offsets(text.as_bytes());
        let line_of = |byte: usize| line_of(&newlines, byte);
        let mut out = Vec::new();
        for tag in tags {
            if !tag.is_definition || only_declares(language, tree, tag.range.clone()) {
                continue;
            }
            let Some(name) = text.get(tag.name_range.clone()) else {
                continue;
            };
            let range = whole_definition(language, tree, tag.range.clone());
            let start_line = line_of(range.start);
            let end_line = line_of(range.end.saturating_sub(1).max(range.start));
            let signature = text
                .get(tag.line_range.clone())
                .unwrap_or(name)
                .trim()
                .chars()
                .take(MAX_SIGNATURE)
                .collect();
            out.push(Symbol {
                name: language.symbol_name(name).to_string(),
                kind: SymbolKind::parse(&tag.kind),
                start_line,
                end_line,
                signature,
                doc: tag
                    .docs
                    .or_else(|| doc_comment(&lines, start_line as usize, dashes))
                    .map(super::doc::clip),
            });
        }
        if language.merges_clauses() {
            out = merge_clauses(out);
        }
        if has_error {
            out = with_keyword_definitions(out, &lines, parsed);
        }
        out
    }
}

/// The bytes of the definition a tag names. C's and C++'s tags queries capture a function
/// by its declarator (`parse(const char *s)`), which is its signature alone: a definition's
/// lines are then one, the search cut hits to that line, and the function's doc comment above
/// a return type on a line of its own (`static size_t` / `ZSTD_compress(...)`) was not found.
/// When the declarator belongs to a function's definition (through the pointer and
/// reference declarators of `char *f()` and `T &f()`), the definition's bytes are the whole
/// `function_definition` (with a template's `template <…>` line), from its return type to
/// its closing brace. A prototype keeps its declarator's line: it has no body. Done here, on
/// the tree, rather than in queries of our own: a query cannot follow declarators nested to
/// any depth (`char **f()`), and each depth would be a pattern.
fn whole_definition(language: Language, tree: &Tree, range: Range<usize>) -> Range<usize> {
    if !matches!(language, Language::C | Language::Cpp) {
        return range;
    }
    let root = tree.root_node();
    let Some(mut node) = root.descendant_for_byte_range(range.start, range.end) else {
        return range;
    };
    if node.kind() != "function_declarator" {
        return range;
    }
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator" => node = parent,
            // A template's definition starts at its `template <…>` line, where its doc
            // comment ends.
            "function_definition" => return with_template(parent).byte_range(),
            _ => break,
        }
    }
    range
}

/// Whether a C or C++ tag is a type declared without its body: `class thread_pool;`, a
/// field's `enum mode m;`. C++'s tags query takes every `class_specifier` for a definition
/// (C's asks for a struct's body), and such a line in every header that passes the class
/// around took the lookup of its name from the definition.
fn only_declares(language: Language, tree: &Tree, range: Range<usize>) -> bool {
    if !matches!(language, Language::C | Language::Cpp) {
        return false;
    }
    let node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end);
    node.is_some_and(|n| {
        matches!(
            n.kind(),
            "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier"
        ) && n.child_by_field_name("body").is_none()
    })
}

/// `node`, or the template declarations around it.
fn with_template(mut node: Node<'_>) -> Node<'_> {
    while let Some(parent) = node.parent().filter(|p| p.kind() == "template_declaration") {
        node = parent;
    }
    node
}

/// A file the grammar could not parse whole (newer syntax, a macro it does not know) loses
/// the definitions past the error: `interface Channel` at line 1,275 of kotlinx's
/// `Channel.kt`. The keyword definitions (`lang::keyword_defs`) on lines the tags did not
/// cover are added, so a name is still found where it is defined. They are read from the
/// text the grammar parsed (`class SPDLOG_API async_logger` in a C++ header that C's grammar
/// parsed is `async_logger`), their signatures from the file's `lines`.
fn with_keyword_definitions(mut tags: Vec<Symbol>, lines: &[&str], parsed: &str) -> Vec<Symbol> {
    let tagged: std::collections::HashSet<u32> = tags.iter().map(|s| s.start_line).collect();
    tags.extend(
        super::keyword_defs::definitions(parsed)
            .into_iter()
            .filter(|s| !tagged.contains(&s.start_line))
            .map(|mut s| {
                if let Some(line) = lines.get(s.start_line as usize - 1) {
                    s.signature = line.trim().chars().take(MAX_SIGNATURE).collect();
                }
                s
            }),
    );
    tags.sort_by_key(|s| s.start_line);
    tags
}

/// One symbol for each run of definitions of the same name and kind in a row (a Haskell
/// signature and its equations, Elixir clauses): the first one's line, signature and doc,
/// to the last one's end.
fn merge_clauses(symbols: Vec<Symbol>) -> Vec<Symbol> {
    let mut out: Vec<Symbol> = Vec::with_capacity(symbols.len());
    for s in symbols {
        match out.last_mut() {
            Some(last) if last.name == s.name && last.kind == s.kind => {
                last.end_line = last.end_line.max(s.end_line);
                last.doc = last.doc.take().or(s.doc);
            }
            _ => out.push(s),
        }
    }
    out
}

/// The byte offsets of the newlines of `source`, in order.
fn newline_offsets(source: &[u8]) -> Vec<usize> {
    source
        .iter()
        .enumerate()
        .filter(|(_, &c)| c == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// The 1-based line of `byte`, given the file's newline offsets. A binary search: counting
/// newlines from the start for each definition made a file of many definitions quadratic.
fn line_of(newlines: &[usize], byte: usize) -> u32 {
    1 + newlines.partition_point(|&n| n < byte) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_definitions_with_docs_and_lines() {
        let src = "/// Parses the config.\nfn parse_config(path: &str) -> u32 {\n    1\n}\n\nstruct Settings {\n    a: u32,\n}\n\ntrait Loader {}\n";
        let syms = Tagger::default().symbols(Language::Rust, src);
        let f = syms
            .iter()
            .find(|s| s.name == "parse_config")
            .expect("function");
        assert_eq!((f.start_line, f.end_line), (2, 4));
        assert_eq!(f.kind, SymbolKind::Function);
        assert!(f.signature.starts_with("fn parse_config"));
        assert!(f.doc.as_deref().unwrap_or("").contains("Parses the config"));
        assert!(syms.iter().any(|s| s.name == "Settings"));
        assert!(syms.iter().any(|s| s.name == "Loader"));
    }

    #[test]
    fn python_and_typescript_classes_and_methods() {
        let py = "class Uploader:\n    def retry(self):\n        pass\n";
        let syms = Tagger::default().symbols(Language::Python, py);
        assert!(syms
            .iter()
            .any(|s| s.name == "Uploader" && s.kind == SymbolKind::Class));
        let retry = syms.iter().find(|s| s.name == "retry").expect("method");
        assert_eq!(retry.start_line, 2);
        let py = "def f():\n    \"\"\"Retry failed uploads.\"\"\"\n    pass\n";
        let syms = Tagger::default().symbols(Language::Python, py);
        assert_eq!(syms[0].doc.as_deref(), Some("Retry failed uploads."));
        let ts = "interface Shape { area(): number }\nclass Circle implements Shape {\n  area() { return 1; }\n}\n";
        let syms = Tagger::default().symbols(Language::TypeScript, ts);
        assert!(syms.iter().any(|s| s.name == "Shape"), "{syms:?}");
        assert!(syms.iter().any(|s| s.name == "Circle"), "{syms:?}");
    }
}
