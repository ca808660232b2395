//! Definitions in files no grammar here parses: a line that starts (after modifiers such
//! as `pub`, `export`, `private`, `static`) with a definition keyword of some language —
//! `class`, `def`, `fn`, `func`, `function`, `module`, `defmodule`, `interface`, `struct`,
//! `trait`, `type`, `protocol`, `record`, … — followed by a name, and shell's `name() {`.
//! Coarser than a grammar's tags query (no nesting, the end of a definition guessed from
//! indentation), but it gives symbol search and name lookups something in every language.

use std::sync::OnceLock;

use regex::Regex;

use super::kind::SymbolKind;
use super::language::Language;
use crate::lang::Symbol;

/// Most definitions kept from one file (a generated file can have a line for each of
/// thousands of entries).
const MAX_DEFINITIONS: usize = 5_000;
/// A definition whose end cannot be told from indentation ends this many lines on.
const MAX_SPAN: u32 = 200;

/// Whether files of `language` hold no definitions: prose, data and markup. Every language
/// is named, so a new one must be decided on.
fn not_code(language: Language) -> bool {
    match language {
        Language::Markdown
        | Language::Rst
        | Language::Json
        | Language::Yaml
        | Language::Toml
        | Language::Xml
        | Language::Html
        | Language::Css => true,
        Language::C
        | Language::Cpp
        | Language::CSharp
        | Language::Dockerfile
        | Language::Elixir
        | Language::Go
        | Language::Haskell
        | Language::Java
        | Language::JavaScript
        | Language::Kotlin
        | Language::Lua
        | Language::Make
        | Language::Php
        | Language::Python
        | Language::R
        | Language::Ruby
        | Language::Rust
        | Language::Scala
        | Language::Shell
        | Language::Sql
        | Language::Swift
        | Language::Text
        | Language::Tsx
        | Language::TypeScript
        | Language::Zig => false,
    }
}

/// How the files of a language are indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Chunked at syntax boundaries, definitions from the grammar's tags query.
    Syntax,
    /// Chunked as text, definitions from keyword lines (this module).
    DefinitionLines,
    /// Chunked as text (or markdown), no definitions: prose, data, markup.
    PlainText,
}

impl Treatment {
    /// How `status` names it.
    pub fn name(self) -> &'static str {
        match self {
            Treatment::Syntax => "syntax",
            Treatment::DefinitionLines => "definition lines",
            Treatment::PlainText => "plain text",
        }
    }

    /// The treatment of the files of `language` (a file over the syntax bounds is noted
    /// apart, see `lang::guard`; a `.txt` file of unknown language is plain text).
    pub fn of(language: Language) -> Treatment {
        if language.tags_query().is_some() {
            Treatment::Syntax
        } else if not_code(language) {
            Treatment::PlainText
        } else {
            Treatment::DefinitionLines
        }
    }
}

/// Whether `language` (of the file `path`) gets keyword definitions: code in a language
/// without a tags query, or a file of unknown kind that is not plain text by its name.
pub fn applies(language: Language, path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    !not_code(language) && !lower.ends_with(".txt") && !lower.ends_with(".lock")
}

/// The definition line pattern: modifiers, a keyword, a name.
fn keyword_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?:(?:export|public|private|protected|internal|static|abstract|final|sealed|open|override|async|pub(?:\([a-z]+\))?|local|extern|inline|virtual|partial|data|case|inner|unsafe|default|noinline|suspend|tailrec)\s+)*(class|def|defp|defmacro|defmacrop|defmodule|defprotocol|defimpl|fn|func|function|fun|sub|proc|module|interface|struct|trait|type|typedef|protocol|record|enum|object|namespace|impl|macro|method|newtype|datatype|signature|structure|functor)\s+([A-Za-z_$][A-Za-z0-9_$!?]*(?:(?:\.|::|:|->)[A-Za-z_$][A-Za-z0-9_$!?]*)*)",
        )
        .expect("a valid pattern")
    })
}

/// Shell's `name() {` and `function name {`.
fn shell_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?:function\s+([A-Za-z_][A-Za-z0-9_:.-]*)\s*(?:\(\s*\))?\s*\{?\s*$|([A-Za-z_][A-Za-z0-9_:.-]*)\s*\(\s*\)\s*\{?\s*$)")
            .expect("a valid pattern")
    })
}

/// The kind a keyword defines, in the words the tags queries use.
fn kind_of(keyword: &str) -> SymbolKind {
    match keyword {
        "class" | "struct" | "record" | "object" | "enum" | "datatype" | "structure" => {
            SymbolKind::Class
        }
        "interface" | "trait" | "protocol" | "defprotocol" | "signature" => SymbolKind::Interface,
        "module" | "defmodule" | "namespace" | "impl" | "defimpl" | "functor" => SymbolKind::Module,
        "type" | "typedef" | "newtype" => SymbolKind::Type,
        "macro" | "defmacro" | "defmacrop" => SymbolKind::Macro,
        _ => SymbolKind::Function,
    }
}

/// The keyword definitions of `text`, in order.
pub fn definitions(text: &str) -> Vec<Symbol> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Vec<(usize, usize, String, SymbolKind)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(c) = keyword_line().captures(trimmed) {
            let after = c.get(2).map_or("", |m| &trimmed[m.end()..]);
            if !names_a_type_in_use(&c[1], &c[2], after) {
                let name = last_part(&c[2]);
                found.push((i, indent, name.to_string(), kind_of(&c[1])));
            }
        } else if let Some(c) = shell_line().captures(trimmed) {
            let name = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
            if !matches!(name, "if" | "while" | "for" | "until" | "case") {
                found.push((i, indent, name.to_string(), SymbolKind::Function));
            }
        }
        if found.len() >= MAX_DEFINITIONS {
            break;
        }
    }
    found
        .iter()
        .map(|(i, indent, name, kind)| Symbol {
            name: name.clone(),
            kind: kind.clone(),
            start_line: *i as u32 + 1,
            end_line: end_of(&lines, *i, *indent),
            signature: lines[*i]
                .trim()
                .chars()
                .take(super::symbol::MAX_SIGNATURE)
                .collect(),
            doc: super::doc::doc_comment(&lines, *i + 1, false),
        })
        .collect()
}

/// Whether a C-family line names a type rather than defining it, by what follows the name:
/// a declaration without a body (`struct ZSTD_CCtx_s;`, `class Logger;`) or the type of a
/// field, parameter or variable (`struct ZSTD_CCtx_s const* cctx;`, `enum mode m`). A
/// header that the grammar could not parse whole has one of each for every struct it
/// passes around, and each took the lookup of the struct's name from its definition. A
/// unit struct of Rust (`struct Marker;`) is lost with them, in such a file only. C's
/// `typedef struct {` names no type on its line (the keyword line read `struct` as one).
fn names_a_type_in_use(keyword: &str, name: &str, after: &str) -> bool {
    let next = after.trim_start().chars().next();
    match keyword {
        "typedef" => matches!(name, "struct" | "enum" | "union"),
        "struct" | "enum" => next
            .is_some_and(|c| c == ';' || c == '*' || c == '&' || c == '_' || c.is_alphanumeric()),
        "class" => next == Some(';'),
        _ => false,
    }
}

/// The last part of a qualified name (`M.helper`, `Picker:find`, `Phoenix.Channel`): the
/// name a search asks for.
fn last_part(name: &str) -> &str {
    name.rsplit(['.', ':', '>'])
        .find(|s| !s.is_empty())
        .unwrap_or(name)
}

/// The 1-based last line of a definition starting at 0-based `start` with `indent`: the
/// line before the next non-blank line indented no deeper that is not its closing line
/// (`}`, `end`, `)`), at most [`MAX_SPAN`] lines on.
fn end_of(lines: &[&str], start: usize, indent: usize) -> u32 {
    let limit = lines.len().min(start + MAX_SPAN as usize);
    let mut last = start;
    for (j, line) in lines.iter().enumerate().take(limit).skip(start + 1) {
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        let depth = line.len() - t.len();
        if depth <= indent {
            let closing = t.starts_with('}') || t.starts_with(')') || t.starts_with("end");
            if closing {
                last = j;
            }
            break;
        }
        last = j;
    }
    last as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, String, u32, u32)> {
        definitions(text)
            .into_iter()
            .map(|s| (s.name, s.kind.to_string(), s.start_line, s.end_line))
            .collect()
    }

    #[test]
    fn each_language_has_the_treatment_it_had_by_name() {
        for l in Language::ALL {
            let want = if Language::CODE.contains(&l) {
                Treatment::Syntax
            } else if [
                "markdown", "rst", "json", "yaml", "toml", "xml", "html", "css",
            ]
            .contains(&l.name())
            {
                Treatment::PlainText
            } else {
                Treatment::DefinitionLines
            };
            assert_eq!(Treatment::of(l), want, "{l}");
        }
    }

    #[test]
    fn definition_keywords_of_several_languages() {
        let dart = "/// A router.\nclass Router {\n  void add() {}\n}\n";
        assert_eq!(names(dart), [("Router".into(), "class".into(), 1 + 1, 4)]);
        let ocaml = "module Parser = struct\n  let x = 1\nend\ntype token =\n  | A\n";
        let got = names(ocaml);
        assert_eq!(got[0].0, "Parser");
        assert_eq!((got[0].2, got[0].3), (1, 3));
        assert_eq!((got[1].0.as_str(), got[1].1.as_str()), ("token", "type"));
        let julia = "function solve(a, b)\n    a + b\nend\n";
        assert_eq!(names(julia)[0].0, "solve");
        let lua = "local function helper()\nend\nfunction Picker:find()\nend\n";
        let got = names(lua);
        assert_eq!(got[0].0, "helper");
        assert_eq!(got[1].0, "find");
        let elixir = "defmodule Phoenix.Channel do\n  def join(topic) do\n  end\nend\n";
        let got = names(elixir);
        assert_eq!(
            (got[0].0.as_str(), got[0].1.as_str()),
            ("Channel", "module")
        );
        assert_eq!((got[1].0.as_str(), got[1].1.as_str()), ("join", "function"));
    }

    #[test]
    fn a_struct_named_in_a_declaration_is_not_defined_there() {
        let c = "struct ZSTD_CCtx_s;\ntypedef struct {\n    struct ZSTD_CCtx_s const* cctx;\n    struct ZSTD_CCtx_s *next;\n} T;\nvoid f(struct ZSTD_CCtx_s const* cctx);\nclass Logger;\nstruct ZSTD_CCtx_s {\n    int level;\n};\nenum mode m;\nenum mode { A };\n";
        let got = names(c);
        let found: Vec<(&str, u32)> = got.iter().map(|g| (g.0.as_str(), g.2)).collect();
        assert_eq!(found, [("ZSTD_CCtx_s", 8), ("mode", 12)]);
        let swift =
            "struct Point: Codable {\n}\nenum Kind: Int {\n}\nclass Base extends Object {\n}\n";
        let found: Vec<String> = names(swift).into_iter().map(|g| g.0).collect();
        assert_eq!(found, ["Point", "Kind", "Base"]);
    }

    #[test]
    fn shell_functions_and_not_control_flow() {
        let sh =
            "bats_load_library() {\n  echo hi\n}\nfunction nvm_has {\n  type \"$1\"\n}\nif() {\n";
        let got = names(sh);
        let found: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(found, ["bats_load_library", "nvm_has"]);
        assert_eq!((got[0].2, got[0].3), (1, 3));
    }

    #[test]
    fn prose_and_data_get_none() {
        assert!(!applies(Language::Markdown, "README.md"));
        assert!(!applies(Language::Text, "notes.txt"));
        assert!(applies(Language::Text, "bin/tool"));
        assert!(applies(Language::Text, "lib/router.dart"));
        assert!(names("The class of problems we solve.\n").is_empty());
    }
}
