//! BERT's uncased tokenizer, as the static model was trained with it (Hugging Face
//! `BertNormalizer` + `BertPreTokenizer` + `WordPiece`), over a sorted vocabulary that is
//! searched in place: nothing is built at start, which keeps a search process's cost at a
//! few microseconds instead of the milliseconds a `tokenizer.json` takes to load.
//!
//! Before BERT's rules, identifiers are spelled as words ([`spell`]): BERT's English
//! vocabulary knows `parse`, `http` and `request`, not `parseHTTPRequest`.

use tokenizers::normalizers::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::{Normalizer, OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer};

use crate::text::words::split_identifier;

/// Longer words are one unknown token, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A vocabulary the tokenizer can look pieces up in: `##` marks a piece that continues a
/// word.
pub trait Vocab {
    /// The id of `piece`, if the vocabulary has it.
    fn id(&self, piece: &[u8]) -> Option<u32>;
}

/// The text with every identifier (a run of letters, digits and `_`) replaced by its
/// lower-case words separated by spaces; everything else is kept. The model's training
/// script (`scripts/make-static-model.py`, `spell`) does exactly this.
pub fn spell(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut rest = text;
    while let Some(start) = rest.find(is_word_char) {
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let end = run.find(|c: char| !is_word_char(c)).unwrap_or(run.len());
        for (i, w) in split_identifier(&run[..end]).iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(w);
        }
        rest = &run[end..];
    }
    out.push_str(rest);
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The ids of `text`'s WordPiece tokens (after [`spell`]), unknown words left out, appended
/// to `out`.
pub fn tokenize(text: &str, vocab: &impl Vocab, out: &mut Vec<u32>) {
    let spelled = spell(text);
    if spelled.is_ascii() {
        ascii_words(&spelled, |w| word_pieces(w, vocab, out));
    } else {
        unicode_words(&spelled, |w| word_pieces(w, vocab, out));
    }
}

/// BERT's basic tokenizer for ASCII text, without allocating: control characters dropped,
/// split at whitespace, every punctuation character a word of its own, lower case.
fn ascii_words(text: &str, mut emit: impl FnMut(&[u8])) {
    let mut word: Vec<u8> = Vec::with_capacity(32);
    for &b in text.as_bytes() {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => flush(&mut word, &mut emit),
            0..=31 | 127 => {}
            _ if b.is_ascii_punctuation() => {
                flush(&mut word, &mut emit);
                emit(&[b]);
            }
            _ => word.push(b.to_ascii_lowercase()),
        }
    }
    flush(&mut word, &mut emit);
}

fn flush(word: &mut Vec<u8>, emit: &mut impl FnMut(&[u8])) {
    if !word.is_empty() {
        emit(word);
        word.clear();
    }
}

/// BERT's basic tokenizer for any text (accents stripped, Chinese characters split), by the
/// `tokenizers` crate's own normalizer and pre-tokenizer.
fn unicode_words(text: &str, mut emit: impl FnMut(&[u8])) {
    let mut pre = PreTokenizedString::from(text);
    let normalizer = BertNormalizer::default();
    let ok = pre
        .normalize(|n| normalizer.normalize(n))
        .and_then(|()| BertPreTokenizer.pre_tokenize(&mut pre));
    if ok.is_err() {
        // Neither step fails on text; should one, the ASCII rules are a fair stand-in.
        return ascii_words(text, emit);
    }
    for (word, _, _) in pre.get_splits(OffsetReferential::Normalized, OffsetType::Byte) {
        emit(word.as_bytes());
    }
}

/// Greedy longest-match-first WordPiece of one word: its pieces' ids, or nothing when some
/// part of it is in no piece (BERT's `[UNK]`, which the static model leaves out).
fn word_pieces(word: &[u8], vocab: &impl Vocab, out: &mut Vec<u32>) {
    let Ok(text) = std::str::from_utf8(word) else {
        return;
    };
    if text.chars().count() > MAX_WORD_CHARS {
        return;
    }
    let mark = out.len();
    let mut key: Vec<u8> = Vec::with_capacity(word.len() + 2);
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len();
        let mut found = None;
        while end > start {
            if text.is_char_boundary(end) {
                key.clear();
                if start > 0 {
                    key.extend_from_slice(b"##");
                }
                key.extend_from_slice(&word[start..end]);
                if let Some(id) = vocab.id(&key) {
                    found = Some(id);
                    break;
                }
            }
            end -= 1;
        }
        match found {
            Some(id) => out.push(id),
            None => {
                out.truncate(mark);
                return;
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small vocabulary: ids are positions.
    struct Toy(Vec<&'static str>);

    impl Vocab for Toy {
        fn id(&self, piece: &[u8]) -> Option<u32> {
            self.0
                .iter()
                .position(|t| t.as_bytes() == piece)
                .map(|i| i as u32)
        }
    }

    fn pieces(text: &str, v: &Toy) -> Vec<&'static str> {
        let mut ids = Vec::new();
        tokenize(text, v, &mut ids);
        ids.iter().map(|&i| v.0[i as usize]).collect()
    }

    #[test]
    fn identifiers_are_spelled_as_words() {
        assert_eq!(spell("parseHTTPRequest(x_y)"), "parse http request(x y)");
        assert_eq!(spell("a.b::C  d"), "a.b::c  d");
        assert_eq!(spell("__init__"), "init");
    }

    #[test]
    fn words_split_at_punctuation_and_into_longest_pieces() {
        let v = Toy(vec![
            "parse", "http", "request", "(", ")", "un", "##know", "##n", ".",
        ]);
        assert_eq!(
            pieces("parseHTTPRequest(unknown).", &v),
            ["parse", "http", "request", "(", "un", "##know", "##n", ")", "."]
        );
        // A word with a part in no piece is left out whole, as BERT's [UNK] is.
        assert_eq!(pieces("unknowz http", &v), ["http"]);
    }

    #[test]
    fn accents_and_case_go_as_in_bert() {
        let v = Toy(vec!["cafe", "naive", "!", "創", "造"]);
        assert_eq!(pieces("Café NAÏVE!", &v), ["cafe", "naive", "!"]);
        assert_eq!(pieces("創造", &v), ["創", "造"]);
        let long = "a".repeat(MAX_WORD_CHARS + 1);
        assert!(pieces(&long, &Toy(vec!["a", "##a"])).is_empty());
    }
}
