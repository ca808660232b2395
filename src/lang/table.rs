//! Language detection by file name, and the tree-sitter grammar and tags query of each
//! language we parse. Everything else is chunked as plain text (or markdown).

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

/// File extensions (lower-case) and the language name we record for them.
const EXTENSIONS: &[(&str, &str)] = &[
    ("rs", "rust"),
    ("py", "python"),
    ("pyi", "python"),
    ("go", "go"),
    ("java", "java"),
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("cts", "typescript"),
    ("tsx", "tsx"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "javascript"),
    ("c", "c"),
    ("h", "c"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("cxx", "cpp"),
    ("c++", "cpp"),
    ("hpp", "cpp"),
    ("hh", "cpp"),
    ("hxx", "cpp"),
    ("ipp", "cpp"),
    ("md", "markdown"),
    ("markdown", "markdown"),
    ("rb", "ruby"),
    ("rake", "ruby"),
    ("gemspec", "ruby"),
    ("php", "php"),
    ("cs", "csharp"),
    ("kt", "kotlin"),
    ("kts", "kotlin"),
    ("swift", "swift"),
    ("scala", "scala"),
    ("sc", "scala"),
    ("ex", "elixir"),
    ("exs", "elixir"),
    ("hs", "haskell"),
    ("sh", "shell"),
    ("bash", "shell"),
    ("zsh", "shell"),
    ("sql", "sql"),
    ("html", "html"),
    ("css", "css"),
    ("scss", "css"),
    ("json", "json"),
    ("toml", "toml"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("xml", "xml"),
    ("lua", "lua"),
    ("zig", "zig"),
    ("r", "r"),
    ("rst", "rst"),
    ("txt", "text"),
];

/// Languages chunked with a tree-sitter grammar and tagged with a tags query.
pub const CODE_LANGUAGES: [&str; 21] = [
    "rust",
    "python",
    "go",
    "java",
    "typescript",
    "tsx",
    "javascript",
    "c",
    "cpp",
    "php",
    "ruby",
    "csharp",
    "kotlin",
    "scala",
    "swift",
    "elixir",
    "haskell",
    "lua",
    "zig",
    "shell",
    "r",
];

/// The language name of a path (`rust`, `python`, …; `text` when unknown).
pub fn language_of(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return match name {
            "Makefile" | "makefile" | "GNUmakefile" => "make",
            "Dockerfile" => "dockerfile",
            _ => "text",
        };
    };
    let ext = ext.to_ascii_lowercase();
    EXTENSIONS
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, l)| *l)
        .unwrap_or("text")
}

/// Every language name we know, for `--lang` validation.
pub fn known_languages() -> Vec<&'static str> {
    let mut v: Vec<&str> = EXTENSIONS.iter().map(|(_, l)| *l).collect();
    v.extend(["make", "dockerfile", "text"]);
    v.sort();
    v.dedup();
    v
}

/// How text of `language` is split.
pub fn splitting(language: &str) -> Splitting {
    match language {
        "markdown" => Splitting::Markdown,
        l if grammar(l).is_some() => Splitting::Code,
        _ => Splitting::Text,
    }
}

/// The tree-sitter grammar of a language we parse.
pub fn grammar(language: &str) -> Option<tree_sitter::Language> {
    Some(match language {
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        "c" => tree_sitter_c::LANGUAGE.into(),
        "cpp" => tree_sitter_cpp::LANGUAGE.into(),
        // The PHP grammar with HTML around `<?php … ?>`, as a .php file is.
        "php" => tree_sitter_php::LANGUAGE_PHP.into(),
        "ruby" => tree_sitter_ruby::LANGUAGE.into(),
        "csharp" => tree_sitter_c_sharp::LANGUAGE.into(),
        "kotlin" => tree_sitter_kotlin_ng::LANGUAGE.into(),
        "scala" => tree_sitter_scala::LANGUAGE.into(),
        "swift" => tree_sitter_swift::LANGUAGE.into(),
        "elixir" => tree_sitter_elixir::LANGUAGE.into(),
        "haskell" => tree_sitter_haskell::LANGUAGE.into(),
        "lua" => tree_sitter_lua::LANGUAGE.into(),
        "zig" => tree_sitter_zig::LANGUAGE.into(),
        // The crate's grammar with a patched scanner (see `lang::bash`).
        "shell" => super::bash::language(),
        "r" => tree_sitter_r::LANGUAGE.into(),
        _ => return None,
    })
}

/// The grammar's whole tags query (definitions and references) of a language we parse, or
/// ours (`queries/*.scm`, definitions only) where the grammar ships none, one
/// tree-sitter-tags refuses, or one that misses or misplaces definitions. TypeScript's
/// query only adds to JavaScript's, as the grammar does. Indexing uses [`definitions_query`].
pub fn tags_query(language: &str) -> Option<String> {
    Some(match language {
        "rust" => tree_sitter_rust::TAGS_QUERY.to_string(),
        "python" => tree_sitter_python::TAGS_QUERY.to_string(),
        "go" => tree_sitter_go::TAGS_QUERY.to_string(),
        "java" => tree_sitter_java::TAGS_QUERY.to_string(),
        "typescript" | "tsx" => format!(
            "{}\n{}",
            tree_sitter_javascript::TAGS_QUERY,
            tree_sitter_typescript::TAGS_QUERY
        ),
        "javascript" => tree_sitter_javascript::TAGS_QUERY.to_string(),
        "c" => tree_sitter_c::TAGS_QUERY.to_string(),
        "cpp" => tree_sitter_cpp::TAGS_QUERY.to_string(),
        "ruby" => tree_sitter_ruby::TAGS_QUERY.to_string(),
        "r" => tree_sitter_r::TAGS_QUERY.to_string(),
        "php" => include_str!("queries/php.scm").to_string(),
        "csharp" => include_str!("queries/csharp.scm").to_string(),
        "kotlin" => include_str!("queries/kotlin.scm").to_string(),
        "scala" => include_str!("queries/scala.scm").to_string(),
        "swift" => include_str!("queries/swift.scm").to_string(),
        "elixir" => include_str!("queries/elixir.scm").to_string(),
        "haskell" => include_str!("queries/haskell.scm").to_string(),
        "lua" => include_str!("queries/lua.scm").to_string(),
        "zig" => include_str!("queries/zig.scm").to_string(),
        "shell" => include_str!("queries/shell.scm").to_string(),
        _ => return None,
    })
}

/// The definition patterns of the tags query of `language` (see `lang::tagsquery`).
pub fn definitions_query(language: &str) -> Option<String> {
    tags_query(language).map(|q| super::tagsquery::definitions_only(&q))
}

/// The name a definition is searched by, from the text its tag names. An Elixir alias is
/// one token (`Phoenix.Channel`); like `Sinatra::Base` in Ruby (`Base`), it is named by its
/// last part. The signature keeps the whole.
pub fn symbol_name<'t>(language: &str, name: &'t str) -> &'t str {
    match language {
        "elixir" => name.rsplit('.').next().unwrap_or(name),
        _ => name,
    }
}

/// Whether one definition is written as several clauses in a row, each tagged: a Haskell
/// type signature and its equations, an Elixir `def` per pattern. The tags of one name are
/// then one symbol. Elsewhere two definitions of a name in a row are overloads, kept apart.
pub fn merges_clauses(language: &str) -> bool {
    matches!(language, "haskell" | "elixir")
}

/// Whether a line comment of `language` starts with `--` (Lua, Haskell), for doc comments
/// the tags query does not capture.
pub fn dash_comments(language: &str) -> bool {
    matches!(language, "lua" | "haskell")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension() {
        assert_eq!(language_of("src/main.rs"), "rust");
        assert_eq!(language_of("a/b/C.JAVA"), "java");
        assert_eq!(language_of("x.hpp"), "cpp");
        assert_eq!(language_of("Makefile"), "make");
        assert_eq!(language_of("LICENSE"), "text");
        assert_eq!(splitting("go"), Splitting::Code);
        assert_eq!(splitting("markdown"), Splitting::Markdown);
        assert_eq!(splitting("ruby"), Splitting::Code);
        assert_eq!(splitting("yaml"), Splitting::Text);
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
            assert_eq!(language_of(path), language, "{path}");
            assert_eq!(splitting(language), Splitting::Code, "{path}");
        }
    }

    #[test]
    fn every_grammar_loads_with_its_tags_query() {
        for lang in CODE_LANGUAGES {
            let g = grammar(lang).unwrap();
            let q = tags_query(lang).unwrap();
            tree_sitter_tags::TagsConfiguration::new(g, &q, "")
                .unwrap_or_else(|e| panic!("{lang}: {e}"));
        }
    }

    #[test]
    fn every_grammar_has_an_abi_tree_sitter_loads() {
        for lang in CODE_LANGUAGES {
            let g = grammar(lang).unwrap();
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
        assert_eq!(symbol_name("elixir", "Phoenix.Channel"), "Channel");
        assert_eq!(symbol_name("elixir", "join"), "join");
        assert_eq!(symbol_name("ruby", "a.b"), "a.b");
    }
}
