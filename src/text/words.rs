//! Words and identifiers: splitting identifiers into their camelCase / snake_case parts,
//! the same way for queries and for code, and the terms of whole files for the file-level
//! BM25 retriever: every identifier of the text, lower-cased, whole and (when it has
//! several) split, so `parseConfigFile` in the code matches "parse config file" in an issue
//! and the identifier itself.

/// Split an identifier into lower-case words: `parseHTTPRequest` -> parse, http, request;
/// `max_line_len` -> max, line, len; `a.b/c` -> a, b, c.
pub fn split_identifier(ident: &str) -> Vec<String> {
    let chars: Vec<char> = ident.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
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
        cur.extend(c.to_lowercase());
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
    if ["ches", "shes", "sses", "xes", "zes"]
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
    fn singular_undoes_only_s_inflection() {
        for (w, s) in [
            ("names", "name"),
            ("sets", "set"),
            ("matches", "match"),
            ("boxes", "box"),
            ("entries", "entry"),
            ("releases", "release"),
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
