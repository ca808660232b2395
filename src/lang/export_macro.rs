//! C and C++ headers often write a library's export macro between `class` and the name:
//! `class SPDLOG_API async_logger final : public logger {`. A grammar without the
//! preprocessor reads the macro as the class's name and the rest as an error, so the class
//! was named `SPDLOG_API` (16 of spdlog's classes were) and its name found nothing. The
//! text the grammar parses has each such macro blanked out, byte for byte, so every offset
//! into it is one into the file; names and signatures are still read from the file itself.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use super::language::Language;

/// A class head with a capitalised word before the name: `class FMT_API format_error :`,
/// `struct SPDLOG_API source_loc {`. The name must be followed by what a class head goes
/// on with (`final`, a base, a body, a template's arguments, the line's end), so a variable
/// of a struct type (`struct FOO bar;`, `struct FOO bar = {`) is left alone.
fn class_head() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?m)\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]{2,})[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:final[ \t]*)?(?:[:{<]|$)")
            .expect("a valid pattern")
    })
}

/// `text` as the grammar of `language` should parse it: for C and C++, with export macros
/// in class heads replaced by as many spaces; anything else as it is.
pub fn blanked(language: Language, text: &str) -> Cow<'_, str> {
    if !matches!(language, Language::C | Language::Cpp) {
        return Cow::Borrowed(text);
    }
    let macros: Vec<_> = class_head()
        .captures_iter(text)
        .filter(|c| &c[2] != "final")
        .filter_map(|c| c.get(1))
        .map(|m| m.range())
        .collect();
    if macros.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = text.as_bytes().to_vec();
    for range in macros {
        out[range].fill(b' ');
    }
    // Only ASCII letters, digits and underscores were replaced, by ASCII spaces.
    Cow::Owned(String::from_utf8(out).expect("still UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_macro_in_a_class_head_is_blanked_byte_for_byte() {
        let src = "class SPDLOG_API async_logger final : public logger {\nstruct FMT_API format_error {};\nclass FOO final {};\nstruct FOO bar;\nstruct FOO bar = {0};\nclass EXPORT name\n";
        let out = blanked(Language::Cpp, src);
        assert_eq!(out.len(), src.len());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "class            async_logger final : public logger {"
        );
        assert_eq!(lines[1], "struct         format_error {};");
        assert_eq!(lines[2], "class FOO final {};");
        assert_eq!(lines[3], "struct FOO bar;");
        assert_eq!(lines[4], "struct FOO bar = {0};");
        assert_eq!(lines[5], "class        name");
        assert!(matches!(blanked(Language::Java, src), Cow::Borrowed(_)));
        assert!(matches!(
            blanked(Language::C, "struct s {};"),
            Cow::Borrowed(_)
        ));
    }
}
