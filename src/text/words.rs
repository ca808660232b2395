//! Words and identifiers: splitting identifiers into their camelCase / snake_case parts,
//! the same way for queries and for code, and the terms of whole files for the file-level
//! BM25 retriever: every identifier of the text, lower-cased, whole and (when it has
//! several) split, so `parseConfigFile` in the code matches "parse config file" in an issue
//! and the identifier itself.

/// Split an identifier into lower-case words: `parseHTTPRequest` -> parse, http, request;
/// `max_line_len` -> max, line, len; `a.b/c` -> a, b, c.
pub fn split_identifier(ident: &str) -> Vec<String> {
    // Nearly every identifier is ASCII, and an index run splits every word of every chunk:
    // its bytes are its characters, with no decoding into a vector first.
    if ident.is_ascii() {
        let b = ident.as_bytes();
        return split_at(b.len(), |i| char::from(b[i]));
    }
    let chars: Vec<char> = ident.chars().collect();
    split_at(chars.len(), |i| chars[i])
}

/// The words of a text of `len` characters, the `i`-th being `at(i)`.
fn split_at(len: usize, at: impl Fn(usize) -> char) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    for i in 0..len {
        let c = at(i);
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(&at);
        let next = (i + 1 < len).then(|| at(i + 1));
        let boundary = match prev {
            Some(p) if p.is_alphanumeric() => {
                ((p.is_lowercase() || p.is_ascii_digit()) && c.is_uppercase())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()))
            }
            _ => false,
        };
        if boundary && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        if c.is_ascii() {
            cur.push(c.to_ascii_lowercase());
        } else {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The terms of a text, space-separated, in order, repeats kept (BM25 counts them).
pub fn document_terms(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    for word in words(text) {
        push_terms(&mut out, word);
    }
    out
}

/// Append the terms of one identifier: the whole (lower-cased) and its parts of two or
/// more characters.
pub fn push_terms(out: &mut String, word: &str) {
    let parts = split_identifier(word);
    if parts.is_empty() {
        return;
    }
    let mut push = |t: &str| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    };
    push(&word.to_lowercase());
    if parts.len() > 1 {
        for p in parts.iter().filter(|p| p.chars().count() > 1) {
            push(p);
        }
    }
}

/// The identifiers and words of a text: runs of letters, digits and `_` that do not start
/// with a digit.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
}

/// An English word without its plural or third-person `-s` (`names` -> `name`, `matches`
/// -> `match`, `entries` -> `entry`), so that a question's "sets the field names" meets the
/// identifier words `set`, `field`, `name`. Deliberately light: only what `-s` inflection
/// does, never a cut that could join unrelated identifier words.
pub fn singular(word: &str) -> String {
    let n = word.len();
    let keep = n <= 3 || !word.is_ascii() || ["ss", "us", "is"].iter().any(|s| word.ends_with(s));
    if keep {
        return word.to_string();
    }
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() > 1) {
        return format!("{stem}y");
    }
    // "-zes" is a "-ze" word's ("sizes", "serializes", "initializes"), but "buzzes".
    if ["ches", "shes", "sses", "xes", "zzes"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        return word[..n - 2].to_string();
    }
    word.strip_suffix('s').unwrap_or(word).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_identifiers_split_as_any_text_does() {
        for ident in [
            "parseHTTPRequest",
            "max_line_len",
            "a.b/c",
            "HTTPServer2Go",
            "getX",
            "X",
            "__init__",
            "ABCdef",
            "v2Beta3API",
            "snake_Case_MIXED",
            "a--b",
            "",
            "9lives",
            "IOError",
        ] {
            let chars: Vec<char> = ident.chars().collect();
            let by_chars = split_at(chars.len(), |i| chars[i]);
            assert_eq!(split_identifier(ident), by_chars, "{ident}");
        }
    }

    #[test]
    fn singular_undoes_only_s_inflection() {
        for (w, s) in [
            ("names", "name"),
            ("sets", "set"),
            ("matches", "match"),
            ("boxes", "box"),
            ("entries", "entry"),
            ("releases", "release"),
            ("sizes", "size"),
            ("serializes", "serialize"),
            ("buzzes", "buzz"),
            ("bytes", "byte"),
            ("class", "class"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("has", "has"),
            ("name", "name"),
        ] {
            assert_eq!(singular(w), s, "{w}");
        }
    }

    #[test]
    fn identifiers_whole_and_split() {
        assert_eq!(
            document_terms("fn parseConfigFile(max_len: usize) -> 42x { a.b }"),
            "fn parseconfigfile parse config file max_len max len usize a b"
        );
        assert_eq!(document_terms("  ...  "), "");
    }
}
