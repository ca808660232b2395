//! The languages we tell files apart by, a closed set: detected once from a file's name
//! ([`Language::of_path`]) and parsed once where a name comes in (a `--lang` option, a stored
//! row), so every later stage matches variants, not text. The names are what the index
//! stores, `--json` shows and `--lang` takes: they must never change. What each language is
//! parsed with (grammar, tags query, how it is cut) is `table`'s.

use std::fmt;

/// A language, stored and shown as its name (`rust`, `python`, …; `text` when unknown).
/// Declared in the order of the names, so that sorting languages sorts their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// `c`.
    C,
    /// `cpp`: C++.
    Cpp,
    /// `csharp`: C#.
    CSharp,
    /// `css` (and SCSS).
    Css,
    /// `dockerfile`.
    Dockerfile,
    /// `elixir`.
    Elixir,
    /// `go`.
    Go,
    /// `haskell`.
    Haskell,
    /// `html`.
    Html,
    /// `java`.
    Java,
    /// `javascript` (and JSX).
    JavaScript,
    /// `json`.
    Json,
    /// `kotlin`.
    Kotlin,
    /// `lua`.
    Lua,
    /// `make`: a makefile.
    Make,
    /// `markdown`.
    Markdown,
    /// `php`.
    Php,
    /// `python`.
    Python,
    /// `r`.
    R,
    /// `rst`: reStructuredText.
    Rst,
    /// `ruby`.
    Ruby,
    /// `rust`.
    Rust,
    /// `scala`.
    Scala,
    /// `shell`: sh, bash, zsh.
    Shell,
    /// `sql`.
    Sql,
    /// `swift`.
    Swift,
    /// `text`: plain text, and every file of a kind we do not know.
    Text,
    /// `toml`.
    Toml,
    /// `tsx`: TypeScript with JSX.
    Tsx,
    /// `typescript`.
    TypeScript,
    /// `xml`.
    Xml,
    /// `yaml`.
    Yaml,
    /// `zig`.
    Zig,
}

/// File extensions (lower-case) and the language of the files that have them.
const EXTENSIONS: &[(&str, Language)] = &[
    ("rs", Language::Rust),
    ("py", Language::Python),
    ("pyi", Language::Python),
    ("go", Language::Go),
    ("java", Language::Java),
    ("ts", Language::TypeScript),
    ("mts", Language::TypeScript),
    ("cts", Language::TypeScript),
    ("tsx", Language::Tsx),
    ("js", Language::JavaScript),
    ("mjs", Language::JavaScript),
    ("cjs", Language::JavaScript),
    ("jsx", Language::JavaScript),
    ("c", Language::C),
    ("h", Language::C),
    ("cc", Language::Cpp),
    ("cpp", Language::Cpp),
    ("cxx", Language::Cpp),
    ("c++", Language::Cpp),
    ("hpp", Language::Cpp),
    ("hh", Language::Cpp),
    ("hxx", Language::Cpp),
    ("ipp", Language::Cpp),
    ("md", Language::Markdown),
    ("markdown", Language::Markdown),
    ("rb", Language::Ruby),
    ("rake", Language::Ruby),
    ("gemspec", Language::Ruby),
    ("php", Language::Php),
    ("cs", Language::CSharp),
    ("kt", Language::Kotlin),
    ("kts", Language::Kotlin),
    ("swift", Language::Swift),
    ("scala", Language::Scala),
    ("sc", Language::Scala),
    ("ex", Language::Elixir),
    ("exs", Language::Elixir),
    ("hs", Language::Haskell),
    ("sh", Language::Shell),
    ("bash", Language::Shell),
    ("zsh", Language::Shell),
    ("sql", Language::Sql),
    ("html", Language::Html),
    ("css", Language::Css),
    ("scss", Language::Css),
    ("json", Language::Json),
    ("toml", Language::Toml),
    ("yaml", Language::Yaml),
    ("yml", Language::Yaml),
    ("xml", Language::Xml),
    ("lua", Language::Lua),
    ("zig", Language::Zig),
    ("r", Language::R),
    ("rst", Language::Rst),
    ("txt", Language::Text),
];

impl Language {
    /// Every language, in the order of their names (as `--lang`'s error lists them).
    pub const ALL: [Language; 33] = [
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Css,
        Language::Dockerfile,
        Language::Elixir,
        Language::Go,
        Language::Haskell,
        Language::Html,
        Language::Java,
        Language::JavaScript,
        Language::Json,
        Language::Kotlin,
        Language::Lua,
        Language::Make,
        Language::Markdown,
        Language::Php,
        Language::Python,
        Language::R,
        Language::Rst,
        Language::Ruby,
        Language::Rust,
        Language::Scala,
        Language::Shell,
        Language::Sql,
        Language::Swift,
        Language::Text,
        Language::Toml,
        Language::Tsx,
        Language::TypeScript,
        Language::Xml,
        Language::Yaml,
        Language::Zig,
    ];

    /// Languages chunked with a tree-sitter grammar and tagged with a tags query (those
    /// [`Language::grammar`] and [`Language::tags_query`] give one for).
    pub const CODE: [Language; 21] = [
        Language::Rust,
        Language::Python,
        Language::Go,
        Language::Java,
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::C,
        Language::Cpp,
        Language::Php,
        Language::Ruby,
        Language::CSharp,
        Language::Kotlin,
        Language::Scala,
        Language::Swift,
        Language::Elixir,
        Language::Haskell,
        Language::Lua,
        Language::Zig,
        Language::Shell,
        Language::R,
    ];

    /// The name, as stored, shown and taken by `--lang`.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Css => "css",
            Language::Dockerfile => "dockerfile",
            Language::Elixir => "elixir",
            Language::Go => "go",
            Language::Haskell => "haskell",
            Language::Html => "html",
            Language::Java => "java",
            Language::JavaScript => "javascript",
            Language::Json => "json",
            Language::Kotlin => "kotlin",
            Language::Lua => "lua",
            Language::Make => "make",
            Language::Markdown => "markdown",
            Language::Php => "php",
            Language::Python => "python",
            Language::R => "r",
            Language::Rst => "rst",
            Language::Ruby => "ruby",
            Language::Rust => "rust",
            Language::Scala => "scala",
            Language::Shell => "shell",
            Language::Sql => "sql",
            Language::Swift => "swift",
            Language::Text => "text",
            Language::Toml => "toml",
            Language::Tsx => "tsx",
            Language::TypeScript => "typescript",
            Language::Xml => "xml",
            Language::Yaml => "yaml",
            Language::Zig => "zig",
        }
    }

    /// The language a name says, if it is one we know (names are exact: `Rust` is not one).
    pub fn parse(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The language of a path, by its file name ([`Language::Text`] when unknown).
    pub fn of_path(path: &str) -> Language {
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some((_, ext)) = name.rsplit_once('.') else {
            return match name {
                "Makefile" | "makefile" | "GNUmakefile" => Language::Make,
                "Dockerfile" => Language::Dockerfile,
                _ => Language::Text,
            };
        };
        let ext = ext.to_ascii_lowercase();
        EXTENSIONS
            .iter()
            .find(|(e, _)| *e == ext)
            .map_or(Language::Text, |(_, l)| *l)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_sorted_and_serialize_as_the_name() {
        for l in Language::ALL {
            assert_eq!(Language::parse(l.name()), Some(l));
            assert_eq!(l.to_string(), l.name());
            assert_eq!(serde_json::to_string(&l).unwrap(), format!("\"{l}\""));
        }
        assert!(Language::ALL.windows(2).all(|w| w[0].name() < w[1].name()));
        assert!(Language::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Language::parse("Rust"), None);
        assert_eq!(Language::parse(""), None);
        assert_eq!(Language::parse("ocaml"), None);
    }

    #[test]
    fn every_language_is_detected_by_some_name_and_code_is_a_subset() {
        let detected: Vec<Language> = EXTENSIONS
            .iter()
            .map(|(_, l)| *l)
            .chain([Language::Make, Language::Dockerfile, Language::Text])
            .collect();
        for l in Language::ALL {
            assert!(detected.contains(&l), "{l}");
        }
        for l in Language::CODE {
            assert!(Language::ALL.contains(&l), "{l}");
        }
    }
}
