//! What each [`Language`] is parsed with: the tree-sitter grammar and tags query of each
//! language we parse, and how its text is cut. Everything else is chunked as plain text (or
//! markdown). Each is a `match` over every language, so a new one must be decided on.

use super::language::Language;

/// How a language is cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Splitting {
    /// At syntax boundaries with a tree-sitter grammar.
    Code,
    /// At markdown structure (headings, paragraphs).
    Markdown,
    /// At blank lines and sentences.
    Text,
}

/// The languages without a grammar here, as a pattern: the matches below name every
/// language, so a new one must be given a grammar and a query or be put here.
macro_rules! not_parsed {
    () => {
        Language::Css
            | Language::Dockerfile
            | Language::Html
            | Language::Json
            | Language::Make
            | Language::Markdown
            | Language::Rst
            | Language::Sql
            | Language::Text
            | Language::Toml
            | Language::Xml
            | Language::Yaml
    };
}

impl Language {
    /// How text of this language is split.
    pub fn splitting(self) -> Splitting {
        match self {
            Language::Markdown => Splitting::Markdown,
            l if l.grammar().is_some() => Splitting::Code,
            _ => Splitting::Text,
        }
    }

    /// The tree-sitter grammar of a language we parse.
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        Some(match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            // The PHP grammar with HTML around `<?php … ?>`, as a .php file is.
            Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Language::Scala => tree_sitter_scala::LANGUAGE.into(),
            Language::Swift => tree_sitter_swift::LANGUAGE.into(),
            Language::Elixir => tree_sitter_elixir::LANGUAGE.into(),
            Language::Haskell => tree_sitter_haskell::LANGUAGE.into(),
            Language::Lua => tree_sitter_lua::LANGUAGE.into(),
            Language::Zig => tree_sitter_zig::LANGUAGE.into(),
            // The crate's grammar with a patched scanner (see `lang::bash`).
            Language::Shell => super::bash::language(),
            Language::R => tree_sitter_r::LANGUAGE.into(),
            not_parsed!() => return None,
        })
    }

    /// The grammar's whole tags query (definitions and references) of a language we parse,
    /// or ours (`queries/*.scm`, definitions only) where the grammar ships none, one
    /// tree-sitter-tags refuses, or one that misses or misplaces definitions. TypeScript's
    /// query only adds to JavaScript's, as the grammar does; Java's and TypeScript's get
    /// the kinds of definition theirs leave out (`queries/*_more.scm`: enums, records, type
    /// aliases), and each of Rust, Go, C, C++, Java, JavaScript and TypeScript its constants
    /// (C#'s are in ours). Indexing uses
    /// [`Language::definitions_query`].
    pub fn tags_query(self) -> Option<String> {
        // The grammars' own queries, then ours adding what they leave out.
        const JS: &str = tree_sitter_javascript::TAGS_QUERY;
        const JS_MORE: &str = include_str!("queries/javascript_more.scm");
        const C_MORE: &str = include_str!("queries/c_more.scm");
        let join = |parts: &[&str]| parts.join("\n");
        Some(match self {
            Language::Rust => join(&[
                tree_sitter_rust::TAGS_QUERY,
                include_str!("queries/rust_more.scm"),
            ]),
            Language::Python => tree_sitter_python::TAGS_QUERY.to_string(),
            Language::Go => join(&[
                tree_sitter_go::TAGS_QUERY,
                include_str!("queries/go_more.scm"),
            ]),
            Language::Java => join(&[
                tree_sitter_java::TAGS_QUERY,
                include_str!("queries/java_more.scm"),
            ]),
            Language::TypeScript | Language::Tsx => join(&[
                JS,
                tree_sitter_typescript::TAGS_QUERY,
                include_str!("queries/typescript_more.scm"),
                JS_MORE,
            ]),
            Language::JavaScript => join(&[JS, JS_MORE]),
            Language::C => join(&[tree_sitter_c::TAGS_QUERY, C_MORE]),
            Language::Cpp => join(&[tree_sitter_cpp::TAGS_QUERY, C_MORE]),
            Language::Ruby => tree_sitter_ruby::TAGS_QUERY.to_string(),
            Language::R => tree_sitter_r::TAGS_QUERY.to_string(),
            Language::Php => include_str!("queries/php.scm").to_string(),
            Language::CSharp => include_str!("queries/csharp.scm").to_string(),
            Language::Kotlin => include_str!("queries/kotlin.scm").to_string(),
            Language::Scala => include_str!("queries/scala.scm").to_string(),
            Language::Swift => include_str!("queries/swift.scm").to_string(),
            Language::Elixir => include_str!("queries/elixir.scm").to_string(),
            Language::Haskell => include_str!("queries/haskell.scm").to_string(),
            Language::Lua => include_str!("queries/lua.scm").to_string(),
            Language::Zig => include_str!("queries/zig.scm").to_string(),
            Language::Shell => include_str!("queries/shell.scm").to_string(),
            not_parsed!() => return None,
        })
    }

    /// The definition patterns of this language's tags query (see `lang::tagsquery`).
    pub fn definitions_query(self) -> Option<String> {
        self.tags_query()
            .map(|q| super::tagsquery::definitions_only(&q))
    }

    /// The name a definition is searched by, from the text its tag names. An Elixir alias
    /// is one token (`Phoenix.Channel`); like `Sinatra::Base` in Ruby (`Base`), it is named
    /// by its last part. The signature keeps the whole.
    pub fn symbol_name(self, name: &str) -> &str {
        match self {
            Language::Elixir => name.rsplit('.').next().unwrap_or(name),
            _ => name,
        }
    }

    /// Whether one definition is written as several clauses in a row, each tagged: a
    /// Haskell type signature and its equations, an Elixir `def` per pattern. The tags of
    /// one name are then one symbol. Elsewhere two definitions of a name in a row are
    /// overloads, kept apart.
    pub fn merges_clauses(self) -> bool {
        matches!(self, Language::Haskell | Language::Elixir)
    }

    /// Whether a line comment of this language starts with `--` (Lua, Haskell), for doc
    /// comments the tags query does not capture.
    pub fn dash_comments(self) -> bool {
        matches!(self, Language::Lua | Language::Haskell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension() {
        let of = Language::of_path;
        assert_eq!(of("src/main.rs"), Language::Rust);
        assert_eq!(of("a/b/C.JAVA"), Language::Java);
        assert_eq!(of("x.hpp"), Language::Cpp);
        assert_eq!(of("Makefile"), Language::Make);
        assert_eq!(of("LICENSE"), Language::Text);
        assert_eq!(Language::Go.splitting(), Splitting::Code);
        assert_eq!(Language::Markdown.splitting(), Splitting::Markdown);
        assert_eq!(Language::Ruby.splitting(), Splitting::Code);
        assert_eq!(Language::Yaml.splitting(), Splitting::Text);
        for (path, language) in [
            ("lib/sinatra/base.rb", "ruby"),
            ("Rakefile.rake", "ruby"),
            ("sinatra.gemspec", "ruby"),
            ("src/Logger.php", "php"),
            ("Src/JsonWriter.cs", "csharp"),
            ("Flow.kt", "kotlin"),
            ("build.gradle.kts", "kotlin"),
            ("IO.scala", "scala"),
            ("build.sc", "scala"),
            ("Application.swift", "swift"),
            ("lib/phoenix/channel.ex", "elixir"),
            ("mix.exs", "elixir"),
            ("src/Text/Pandoc.hs", "haskell"),
            ("lua/telescope/pickers.lua", "lua"),
            ("src/main.zig", "zig"),
            ("install.sh", "shell"),
            ("lib.bash", "shell"),
            ("R/read.R", "r"),
        ] {
            assert_eq!(of(path).name(), language, "{path}");
            assert_eq!(of(path).splitting(), Splitting::Code, "{path}");
        }
    }

    #[test]
    fn the_languages_with_a_grammar_are_the_code_languages() {
        for l in Language::ALL {
            let code = Language::CODE.contains(&l);
            assert_eq!(l.grammar().is_some(), code, "{l}");
            assert_eq!(l.tags_query().is_some(), code, "{l}");
        }
    }

    #[test]
    fn every_grammar_loads_with_its_tags_query() {
        for lang in Language::CODE {
            let g = lang.grammar().unwrap();
            let q = lang.tags_query().unwrap();
            tree_sitter_tags::TagsConfiguration::new(g, &q, "")
                .unwrap_or_else(|e| panic!("{lang}: {e}"));
        }
    }

    #[test]
    fn every_grammar_has_an_abi_tree_sitter_loads() {
        for lang in Language::CODE {
            let g = lang.grammar().unwrap();
            let abi = g.abi_version();
            assert!(
                (tree_sitter::MIN_COMPATIBLE_LANGUAGE_VERSION..=tree_sitter::LANGUAGE_VERSION)
                    .contains(&abi),
                "{lang}: ABI {abi}"
            );
            tree_sitter::Parser::new()
                .set_language(&g)
                .unwrap_or_else(|e| panic!("{lang}: {e}"));
        }
    }

    #[test]
    fn symbol_names_drop_an_elixir_alias_prefix_only() {
        assert_eq!(Language::Elixir.symbol_name("Phoenix.Channel"), "Channel");
        assert_eq!(Language::Elixir.symbol_name("join"), "join");
        assert_eq!(Language::Ruby.symbol_name("a.b"), "a.b");
    }
}
