//! Query preprocessing: normalise white space, tokenise, split identifiers (camelCase,
//! snake_case, paths) while keeping the whole identifier, and drop English and Chinese stop
//! words. The result feeds BM25 (as text the index's own analyzer re-tokenises), symbol
//! search (as lower-case terms) and snippet highlighting.

use crate::text::words::split_identifier;
use std::collections::HashSet;

/// A preprocessed query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The query as typed.
    pub raw: String,
    /// Kept tokens as typed (identifiers whole), for the full-text engine.
    pub tokens: Vec<String>,
    /// Lower-case search terms: whole identifiers and their parts, no stop words.
    pub terms: Vec<String>,
    /// Lower-case whole identifiers that look like code (camelCase, snake_case, dotted) or
    /// that the query quotes as code (`like_this`).
    pub identifiers: Vec<String>,
    /// The first line of a query of several lines (a pasted issue's title).
    pub title: Option<String>,
}

impl Query {
    /// The text given to the BM25 engine.
    pub fn fts_text(&self) -> String {
        self.tokens.join(" ")
    }

    /// The query of its title alone, when it has one (a pasted issue).
    pub fn title_query(&self) -> Option<Query> {
        parse(self.title.as_deref()?).ok()
    }
}

/// Why a query cannot be run.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryProblem {
    /// Nothing but white space.
    Empty,
    /// Every word is a stop word.
    OnlyStopWords,
}

const ENGLISH_STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "done", "down", "during", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "might", "more", "most",
    "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    "yours", "let", "lets", "us", "get", "got", "please", "find", "show", "also",
];

/// Common Chinese function words and question words.
const CHINESE_STOP: &[&str] = &[
    "的",
    "了",
    "在",
    "是",
    "我",
    "我们",
    "有",
    "和",
    "就",
    "不",
    "都",
    "一",
    "一个",
    "上",
    "也",
    "很",
    "到",
    "说",
    "要",
    "去",
    "你",
    "会",
    "着",
    "没有",
    "看",
    "这",
    "那",
    "这个",
    "那个",
    "哪里",
    "哪儿",
    "在哪",
    "什么",
    "怎么",
    "怎样",
    "如何",
    "为什么",
    "吗",
    "呢",
    "吧",
    "把",
    "被",
    "与",
    "及",
    "或",
    "从",
    "对",
    "以",
    "其",
    "中",
    "代码",
    "找",
    "请",
    "哪",
];

/// Whether a lower-case word is an English stop word.
pub fn is_stop_word(word: &str) -> bool {
    // A set, not the list: the definitions stage asks this of every word of thousands of
    // names per question, and a scan of the list cost milliseconds there.
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| ENGLISH_STOP.iter().copied().collect())
        .contains(word)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Whether a token looks like code rather than a plain word.
fn looks_like_identifier(tok: &str) -> bool {
    let has_lower = tok.chars().any(|c| c.is_lowercase());
    let inner_upper = tok.chars().skip(1).any(|c| c.is_uppercase());
    tok.contains('_') || tok.contains('.') || tok.contains("::") || (has_lower && inner_upper)
}

/// Preprocess a query.
pub fn parse(raw: &str) -> Result<Query, QueryProblem> {
    let visible = without_html_comments(clip(raw, MAX_QUERY_BYTES));
    let normalized: String = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    if normalized.is_empty() {
        return Err(QueryProblem::Empty);
    }
    let english: HashSet<&str> = ENGLISH_STOP.iter().copied().collect();
    let mut q = Query {
        raw: normalized.clone(),
        tokens: Vec::new(),
        terms: Vec::new(),
        identifiers: Vec::new(),
        title: visible
            .trim()
            .split_once('\n')
            .map(|(t, _)| t.trim().to_string())
            .filter(|t| !t.is_empty()),
    };
    let quoted: HashSet<String> = quoted_code(&normalized)
        .iter()
        .flat_map(|c| raw_tokens(c))
        .collect();
    let mut seen_terms = HashSet::new();
    for tok in raw_tokens(&normalized) {
        if tok.chars().any(is_cjk) {
            for word in chinese_words(&tok) {
                if seen_terms.insert(word.clone()) {
                    q.tokens.push(word.clone());
                    q.terms.push(word);
                }
            }
            continue;
        }
        let lower = tok.to_lowercase();
        let ident = looks_like_identifier(&tok)
            || (quoted.contains(&tok) && !english.contains(lower.as_str()) && tok.len() > 2);
        if !ident && english.contains(lower.as_str()) {
            continue;
        }
        q.tokens.push(tok.clone());
        if ident {
            q.identifiers.push(lower.clone());
            if seen_terms.insert(lower.clone()) {
                q.terms.push(lower.clone());
            }
        }
        for part in split_identifier(&tok) {
            if part.len() > 1 && !english.contains(part.as_str()) && seen_terms.insert(part.clone())
            {
                q.terms.push(part);
            }
        }
    }
    if q.terms.is_empty() {
        one_letter_names(&mut q);
        one_word_name(&mut q);
    }
    if q.tokens.is_empty() || q.terms.is_empty() {
        return Err(QueryProblem::OnlyStopWords);
    }
    bound(&mut q);
    Ok(q)
}

/// A query that is one stop word of three letters or more (`get`, `find`, `show`, `each`)
/// names it: typed alone it is an identifier, not English (`git codesearch get` was refused
/// as having "only stop words"). Two or more stop words ("where is the") still say nothing.
fn one_word_name(q: &mut Query) {
    let words = raw_tokens(&q.raw);
    let [word] = words.as_slice() else {
        return;
    };
    if word.chars().count() >= 3 && !word.chars().any(is_cjk) {
        let lower = word.to_lowercase();
        q.tokens.push(word.clone());
        q.identifiers.push(lower.clone());
        q.terms.push(lower);
    }
}

/// A query whose only words are single letters that are not stop words (`g`, Flask's
/// application globals; `t`, a translation helper) names them: each is kept as an identifier,
/// where a longer query drops it as too short to say anything.
fn one_letter_names(q: &mut Query) {
    for tok in &q.tokens {
        if tok.chars().count() == 1 && tok.chars().all(char::is_alphanumeric) {
            let lower = tok.to_lowercase();
            if !q.terms.contains(&lower) {
                q.identifiers.push(lower.clone());
                q.terms.push(lower);
            }
        }
    }
}

/// Longest query read, in bytes; the rest is ignored. Every retriever's cost grows with the
/// query (a 1 MB query of two repeated words took 157 s); a pasted issue is a few KB.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;
/// Most tokens and terms a query keeps.
pub const MAX_TERMS: usize = 512;

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Past [`MAX_TERMS`] tokens, repeats are dropped and the rest cut: a repeat adds little
/// and costs a full-text lookup each.
fn bound(q: &mut Query) {
    for list in [&mut q.tokens, &mut q.identifiers] {
        if list.len() > MAX_TERMS {
            let mut seen = HashSet::new();
            list.retain(|t| seen.insert(t.clone()));
            list.truncate(MAX_TERMS);
        }
    }
    q.terms.truncate(MAX_TERMS);
}

/// The text without `<!-- … -->` comments: pasted issue templates are full of them, and a
/// reader never sees them, so they are not what the writer is looking for.
fn without_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        out.push(' ');
        rest = match rest[open + 4..].find("-->") {
            Some(close) => &rest[open + 4 + close + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// The text between pairs of backticks: what the writer marked as code.
fn quoted_code(text: &str) -> Vec<&str> {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd part is quoted; the last one is not when its backtick is never closed.
    let closed = if parts.len() % 2 == 1 {
        parts.len()
    } else {
        parts.len() - 1
    };
    parts[..closed].iter().skip(1).step_by(2).copied().collect()
}

/// Tokens: runs of letters, digits, `_`, and `.`/`::` joining identifier parts.
fn raw_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let joins = (c == '.' || c == ':')
            && !cur.is_empty()
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_alphanumeric() || *n == ':' || *n == '_');
        if c.is_alphanumeric() || c == '_' || joins {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
        .map(|t| t.trim_matches(|c| c == '.' || c == ':').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Chinese has no spaces: drop stop words (longest first) and keep the remaining runs.
fn chinese_words(tok: &str) -> Vec<String> {
    let mut stops: Vec<&str> = CHINESE_STOP.to_vec();
    stops.sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    let mut text = tok.to_string();
    for s in stops {
        text = text.replace(s, " ");
    }
    text.split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::words::split_identifier;

    #[test]
    fn a_huge_query_is_bounded() {
        let q = parse(&"needle haystack ".repeat(100_000)).unwrap();
        assert!(q.raw.len() <= MAX_QUERY_BYTES);
        assert_eq!(q.tokens, ["needle", "haystack"]);
        let many: String = (0..5000).map(|i| format!("word{i} ")).collect();
        let q = parse(&many).unwrap();
        assert_eq!(q.tokens.len(), MAX_TERMS);
        assert!(q.terms.len() <= MAX_TERMS);
        // Multi-byte text cut at the limit stays valid.
        assert!(parse(&"é".repeat(MAX_QUERY_BYTES)).is_ok());
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(
            split_identifier("parseHTTPRequest"),
            ["parse", "http", "request"]
        );
        assert_eq!(split_identifier("max_line_len"), ["max", "line", "len"]);
        assert_eq!(split_identifier("utf8Decode"), ["utf8", "decode"]);
        assert_eq!(split_identifier("config.rs"), ["config", "rs"]);
    }

    #[test]
    fn the_first_of_several_lines_is_the_title() {
        let q = parse("Crash on load\n\nSteps: open the file.").unwrap();
        assert_eq!(q.title.as_deref(), Some("Crash on load"));
        assert_eq!(q.raw, "Crash on load Steps: open the file.");
        assert_eq!(parse("crash on load").unwrap().title, None);
        assert_eq!(parse("\n  crash on load \n").unwrap().title, None);
        assert_eq!(q.title_query().unwrap().terms, ["crash", "load"]);
        assert_eq!(parse("crash on load").unwrap().title_query(), None);
    }

    #[test]
    fn natural_language_drops_stop_words() {
        let q = parse("  where do we   parse the config file ").unwrap();
        assert_eq!(q.raw, "where do we parse the config file");
        assert_eq!(q.terms, ["parse", "config", "file"]);
        assert_eq!(q.fts_text(), "parse config file");
    }

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        let q = parse("why does parseConfigFile fail in std::fs").unwrap();
        assert!(q.identifiers.contains(&"parseconfigfile".to_string()));
        assert!(q.terms.contains(&"parseconfigfile".to_string()));
        assert!(q.terms.contains(&"parse".to_string()));
        assert!(q.identifiers.contains(&"std::fs".to_string()));
        assert!(q.tokens.contains(&"parseConfigFile".to_string()));
    }

    #[test]
    fn html_comments_are_not_part_of_the_query() {
        let q =
            parse("IndexError in identify_format <!-- hidden template text --> registry").unwrap();
        assert_eq!(q.raw, "IndexError in identify_format registry");
        let q = parse("crash on load <!-- unclosed template").unwrap();
        assert_eq!(q.raw, "crash on load");
        assert_eq!(parse("<!-- only a comment -->"), Err(QueryProblem::Empty));
    }

    #[test]
    fn backticked_words_are_code() {
        let q = parse("tell if `Bytes` is unique, see `Buf::chunk` and Bytes again `open").unwrap();
        assert!(q.identifiers.contains(&"bytes".to_string()));
        assert!(q.identifiers.contains(&"buf::chunk".to_string()));
        // An unclosed backtick quotes nothing; plain words stay plain.
        assert!(!q.identifiers.contains(&"open".to_string()));
        assert!(!q.identifiers.contains(&"unique".to_string()));
    }

    #[test]
    fn stop_words_only_and_empty_are_rejected() {
        assert_eq!(parse("   "), Err(QueryProblem::Empty));
        assert_eq!(parse("where is the"), Err(QueryProblem::OnlyStopWords));
        assert_eq!(parse("的 在 是"), Err(QueryProblem::OnlyStopWords));
    }

    #[test]
    fn a_query_of_one_letter_names_asks_for_them() {
        let q = parse("g").unwrap();
        assert_eq!(
            (q.terms.as_slice(), q.identifiers.as_slice()),
            (&["g".to_string()][..], &["g".to_string()][..])
        );
        // A one-letter stop word is still nothing to search for, and beside other words a
        // single letter is still dropped.
        assert_eq!(parse("a"), Err(QueryProblem::OnlyStopWords));
        assert_eq!(parse("the g value").unwrap().terms, ["value"]);
    }

    #[test]
    fn a_query_of_one_stop_word_names_it() {
        for word in ["get", "Find", "show"] {
            let q = parse(word).unwrap();
            let lower = word.to_lowercase();
            assert_eq!(q.terms, q.identifiers, "{word}");
            assert_eq!(q.identifiers, [lower], "{word}");
        }
        // Short words, several stop words, and stop words beside others stay as they were.
        assert_eq!(parse("is"), Err(QueryProblem::OnlyStopWords));
        assert_eq!(parse("get the"), Err(QueryProblem::OnlyStopWords));
        assert_eq!(parse("get user").unwrap().terms, ["user"]);
    }

    #[test]
    fn chinese_stop_words_are_removed() {
        let q = parse("在哪里解析配置文件").unwrap();
        assert_eq!(q.terms, ["解析配置文件"]);
    }
}
