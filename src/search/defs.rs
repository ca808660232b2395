//! The function-level stage: among the contents the first stage found, the definitions
//! whose *names* say what the query says. A short question says in words what a
//! function's name says in an identifier ("Sets the field names serialization format" and
//! `setFieldNameSerializationFormat`); chunk BM25 sees those words spread over a chunk
//! that may hold five functions, symbol search only matches whole names or prefixes. This
//! list ranks each candidate definition by how much of its name the query covers, rarer
//! name words counting more, and gives the chunk that holds it. For a question that says
//! what one function does, a name word may abbreviate one of its words (`mut`, "mutable").

use std::collections::{HashMap, HashSet};

use super::learned::Kind;
use super::query::{is_stop_word, Query};
use super::reading::Reading;
use super::types::{Context, Fetch, SearchError};
use crate::store::catalog::SymbolHit;
use crate::store::ChunkRef;
use crate::text::words::{singular, split_identifier};

use super::params::defs::{ABBREVIATION_CREDIT, MIN_ABBREVIATION, MISSING_WORD_COST};

/// The chunks holding the definitions of `hashes` that the query names best, best first, at
/// most `n`. The query's reading says whether name words may abbreviate its words, and which
/// verb counts though a stop word ([`Wanted`]).
pub fn name_matches(
    cx: &Context<'_>,
    q: &Query,
    reading: &Reading,
    hashes: &[String],
    fetch: Fetch<'_>,
) -> Result<Vec<ChunkRef>, SearchError> {
    let (db, chunks, n, lang) = (cx.db, cx.chunks, fetch.n, fetch.lang);
    let wanted = Wanted::of(q, Kind::of(reading), reading.verb.as_deref());
    if wanted.words.is_empty() || hashes.is_empty() {
        return Ok(Vec::new());
    }
    let mut defs = named_by_words(db.symbols().definitions_of(hashes)?);
    if let Some(name) = one_name(reading) {
        let words = name_words(name, &wanted);
        defs.retain(|d| holds_every_word(&name_words(&d.name, &wanted), &words));
    }
    tracing::debug!(
        definitions = defs.len(),
        contents = hashes.len(),
        "definitions read"
    );
    let ranked = rank(&defs, &wanted);
    let best: Vec<SymbolHit> = ranked.into_iter().take(n).cloned().collect();
    tracing::debug!(best = best.len(), "definitions ranked");
    let by_hash = super::retrieve::chunks_of_definitions(chunks, &best, lang)?;
    let mut seen = HashSet::new();
    Ok(best
        .iter()
        .filter_map(|d| by_hash.get(&d.content_hash).map(|cs| (cs, d)))
        .flat_map(|(cs, d)| [body_chunk(cs, d), first_chunk(cs, d)])
        .flatten()
        .filter(|c| seen.insert(c.id.clone()))
        .collect())
}

/// The definitions a name's words may find: not a constant, found by its exact name only
/// (`SymbolKind::is_lookup_only`).
fn named_by_words(mut defs: Vec<SymbolHit>) -> Vec<SymbolHit> {
    defs.retain(|d| !d.kind.is_lookup_only());
    defs
}

/// The name a query that is one name asks for, as written (`GIT_CODESEARCH_BACKGROUND`,
/// `renderStatsCard`, `render` of `Phoenix.Controller.render/3`).
fn one_name(reading: &Reading) -> Option<&str> {
    let names = &reading.names;
    (Kind::of(reading) == Kind::Name && names.whole_query && names.is_name)
        .then(|| names.written.first().map(String::as_str))
        .flatten()
}

/// Whether a definition's name words hold every word of the name asked for. A query that is
/// one name asks for that name: a definition sharing two of its three words is another name
/// (`_git_codesearch` for `GIT_CODESEARCH_BACKGROUND`), and it ranked above the lines that
/// hold the name itself (`pub const BACKGROUND: &str = "GIT_CODESEARCH_BACKGROUND"`).
fn holds_every_word(def_words: &[String], asked: &[String]) -> bool {
    asked.iter().all(|w| def_words.contains(w))
}

/// The chunk that holds the definition's first line.
fn first_chunk(chunks: &[ChunkRef], d: &SymbolHit) -> Option<ChunkRef> {
    chunks
        .iter()
        .find(|c| c.start_line <= d.start_line && d.start_line <= c.end_line)
        .cloned()
}

/// The chunk that holds most of the definition's lines, the first on a tie: a definition
/// longer than a chunk starts with a chunk of comment and signature, and its body is what
/// answers.
fn body_chunk(chunks: &[ChunkRef], d: &SymbolHit) -> Option<ChunkRef> {
    let overlap = |c: &ChunkRef| {
        let (start, end) = (c.start_line.max(d.start_line), c.end_line.min(d.end_line));
        (end + 1).saturating_sub(start)
    };
    chunks
        .iter()
        .filter(|c| overlap(c) > 0)
        .max_by(|a, b| {
            overlap(a)
                .cmp(&overlap(b))
                .then(b.start_line.cmp(&a.start_line))
        })
        .cloned()
}

/// The name words that carry meaning: split, lower-cased, singular, no stop words (`get`,
/// `of`) but the verb a description opens with ([`Wanted::verb`]), and no single letters.
fn name_words(name: &str, wanted: &Wanted) -> Vec<String> {
    let mut out: Vec<String> = split_identifier(name)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && (!is_stop_word(w) || wanted.is_verb(w)))
        .map(|w| singular(&w))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `defs` with a positive score, best first: the rarity (among `defs`) of the name words the
/// query holds, less [`MISSING_WORD_COST`] of the rarity of those it does not (a word it
/// holds in part, [`Wanted::credit`], counts in part each way); ties keep the order of the
/// contents as the first stage found them.
fn rank<'a>(defs: &'a [SymbolHit], wanted: &Wanted) -> Vec<&'a SymbolHit> {
    // Names repeat across a file's methods and files (`__init__`, `new`, `get`): each
    // distinct name is split once, and each distinct word numbered once, so that counting
    // and scoring the thousands of definitions index vectors instead of hashing words.
    let mut vocab = Vocabulary::default();
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut split: Vec<Vec<usize>> = Vec::new();
    let of_def: Vec<usize> = defs
        .iter()
        .map(|d| {
            *names.entry(d.name.as_str()).or_insert_with(|| {
                split.push(vocab.ids(name_words(&d.name, wanted), wanted));
                split.len() - 1
            })
        })
        .collect();
    let words: Vec<&[usize]> = of_def.iter().map(|&n| split[n].as_slice()).collect();
    let mut df = vec![0.0f64; vocab.credits.len()];
    for ws in &words {
        for &w in ws.iter() {
            df[w] += 1.0;
        }
    }
    let total = defs.len() as f64;
    let idf = |w: usize| (1.0 + total / df[w]).ln();
    let mut scored: Vec<(f64, usize)> = words
        .iter()
        .enumerate()
        .filter_map(|(i, ws)| {
            // Most names hold none of the query's words.
            if !ws.iter().any(|&w| vocab.credits[w] > 0.0) {
                return None;
            }
            let (mut hit, mut miss) = (0.0, 0.0);
            for &w in ws.iter() {
                let credit = vocab.credits[w];
                hit += credit * idf(w);
                miss += (1.0 - credit) * idf(w);
            }
            let score = hit - MISSING_WORD_COST * miss;
            (score > 0.0).then_some((score, i))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| &defs[i]).collect()
}

/// The distinct name words of one ranking, numbered in order of appearance, and how much
/// of each the query holds ([`Wanted::credit`]).
#[derive(Default)]
struct Vocabulary {
    numbers: HashMap<String, usize>,
    credits: Vec<f64>,
}

impl Vocabulary {
    /// The numbers of `words`, numbering the new ones.
    fn ids(&mut self, words: Vec<String>, wanted: &Wanted) -> Vec<usize> {
        words
            .into_iter()
            .map(|w| {
                let next = self.credits.len();
                *self.numbers.entry(w).or_insert_with_key(|w| {
                    self.credits.push(wanted.credit(w));
                    next
                })
            })
            .collect()
    }
}

/// The query's words a definition's name is matched against.
struct Wanted {
    /// The query's terms, singular.
    words: HashSet<String>,
    /// Whether a name word may stand for a longer query word ([`stands_for`]): only when the
    /// question says what one function does, whose name abbreviates the words its doc comment
    /// spells out. A topic's broader words begin too many unrelated names ("integration" and
    /// fmt's `int` overloads: with topics too, concept NDCG@10 0.8942 → 0.8902 at this
    /// credit, 0.8891 at full credit). A question word may be credited to two words of one
    /// name (`str_to_string` for "string"), as a name that repeats a word says it twice.
    abbreviations: bool,
    /// The first word of a question that says what one function does, when it is a stop
    /// word ("Gets the serialized name …", "Find the …"): there it is the verb the function's
    /// name opens with (`GetPropertyName` against the property `PropertyName`), where
    /// elsewhere it asks for something ("get me the …").
    verb: Option<String>,
}

impl Wanted {
    fn of(q: &Query, kind: Kind, verb: Option<&str>) -> Wanted {
        let mut words: HashSet<String> = q.terms.iter().map(|t| singular(t)).collect();
        let verb = verb
            .filter(|_| kind == Kind::Behaviour)
            .map(singular)
            .filter(|w| is_stop_word(w));
        words.extend(verb.clone());
        Wanted {
            words,
            abbreviations: kind == Kind::Behaviour,
            verb,
        }
    }

    /// Whether a name word is the verb the question opens with ([`Wanted::verb`]).
    fn is_verb(&self, word: &str) -> bool {
        self.verb.as_deref() == Some(singular(word).as_str())
    }

    /// How much of the query a name word is: 1 when the query holds it,
    /// [`ABBREVIATION_CREDIT`] when it stands for a longer query word, 0 otherwise.
    fn credit(&self, word: &str) -> f64 {
        if self.words.contains(word) {
            1.0
        } else if self.abbreviations && self.words.iter().any(|t| stands_for(word, t)) {
            ABBREVIATION_CREDIT
        } else {
            0.0
        }
    }
}

/// Whether a name word stands for a longer query word that begins with it: an
/// abbreviation (`mut` for "mutable", `conn` for "connection", `seq` for "sequence") or the
/// stem of an inflected word (`invert` for "inverted", `skip` for "skipped"). Names
/// abbreviate what their doc comments spell out. Three letters at least (counted as
/// characters, not bytes): shorter words begin too many.
fn stands_for(name_word: &str, query_word: &str) -> bool {
    name_word.chars().count() >= MIN_ABBREVIATION
        && query_word.len() > name_word.len()
        && query_word.starts_with(name_word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::SymbolKind;

    fn def(name: &str, line: u32) -> SymbolHit {
        SymbolHit {
            content_hash: "h".into(),
            name: name.into(),
            kind: SymbolKind::Function,
            start_line: line,
            end_line: line + 5,
        }
    }

    /// The words `q` asks a name for, read as `kind`.
    fn wanted(q: &Query, kind: Kind) -> Wanted {
        Wanted::of(q, kind, Reading::of(q).verb.as_deref())
    }

    #[test]
    fn the_name_the_question_spells_out_ranks_first() {
        let defs = vec![
            def("setIndent", 1),
            def("getFieldName", 10),
            def("setFieldNameSerializationFormat", 20),
            def("format", 30),
            def("close", 40),
        ];
        let q = crate::search::prepare("Sets the field names serialization format").unwrap();
        let names: Vec<&str> = rank(&defs, &wanted(&q, Kind::Behaviour))
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(names[0], "setFieldNameSerializationFormat");
        assert!(!names.contains(&"close"), "{names:?}");
    }

    #[test]
    fn a_description_s_opening_verb_counts_though_a_stop_word() {
        let defs = vec![def("PropertyName", 1), def("GetPropertyName", 10)];
        let q =
            crate::search::prepare("Gets the serialized name for a given property name").unwrap();
        let names = |kind| -> Vec<String> {
            rank(&defs, &wanted(&q, kind))
                .iter()
                .map(|d| d.name.clone())
                .collect()
        };
        assert_eq!(names(Kind::Behaviour), ["GetPropertyName", "PropertyName"]);
        // A topic's "get" asks for something: the two names tie, in the first stage's order.
        assert_eq!(names(Kind::Topic), ["PropertyName", "GetPropertyName"]);
        // Only the opening word: "get" later in a description is still a stop word.
        let later = crate::search::prepare("Returns the name to get a property by").unwrap();
        let ranked: Vec<&str> = rank(&defs, &wanted(&later, Kind::Behaviour))
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(ranked, ["PropertyName", "GetPropertyName"]);
    }

    #[test]
    fn a_constant_is_never_read_for_a_description() {
        let constant = SymbolHit {
            kind: SymbolKind::Constant,
            ..def("MAX_NESTING_DEPTH", 1)
        };
        let cx_defs = vec![constant, def("checkNestingDepth", 10)];
        let read = named_by_words(cx_defs.clone());
        let q = crate::search::prepare("Fails when nesting depth goes past the max").unwrap();
        let names: Vec<&str> = rank(&read, &wanted(&q, Kind::Behaviour))
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(names, ["checkNestingDepth"]);
        // Without the filter the constant, whose every word the description holds, led.
        assert_eq!(
            rank(&cx_defs, &wanted(&q, Kind::Behaviour))[0].name,
            "MAX_NESTING_DEPTH"
        );
    }

    #[test]
    fn a_query_that_is_one_name_asks_for_every_word_of_it() {
        let q = crate::search::prepare("GIT_CODESEARCH_BACKGROUND").unwrap();
        let reading = Reading::of(&q);
        let name = one_name(&reading).expect("one name");
        let w = wanted(&q, Kind::of(&reading));
        let asked = name_words(name, &w);
        let holds = |def: &str| holds_every_word(&name_words(def, &w), &asked);
        assert!(!holds("_git_codesearch"), "another name");
        assert!(holds("GitCodesearchBackground"));
        assert!(holds("git_codesearch_background_mode"));
        let sentence = crate::search::prepare("how the background runs").unwrap();
        assert_eq!(one_name(&Reading::of(&sentence)), None);
    }

    #[test]
    fn a_name_of_words_the_query_lacks_is_not_ranked() {
        let defs = vec![def("parseHeaderBlockLength", 1), def("flush", 9)];
        let q = crate::search::prepare("the length of something").unwrap();
        assert!(rank(&defs, &wanted(&q, Kind::Behaviour)).is_empty());
    }

    #[test]
    fn a_name_word_stands_for_a_longer_word_it_begins() {
        assert!(stands_for("mut", "mutable"));
        assert!(stands_for("invert", "inverted"));
        assert!(
            !stands_for("is", "issue"),
            "two letters begin too many words"
        );
        assert!(
            !stands_for("key", "key"),
            "the same word is a match, not an abbreviation"
        );
        assert!(!stands_for("mutable", "mut"));
        assert!(!stands_for("éa", "éat"), "two letters, though three bytes");
        assert!(
            !stands_for("数据", "数据库"),
            "two characters, though six bytes"
        );
        assert!(stands_for("déc", "décimal"));
    }

    #[test]
    fn only_a_description_of_one_function_credits_abbreviations() {
        let defs = vec![def("get_mut", 1), def("flush", 9)];
        let q = crate::search::prepare("Returns a mutable reference").unwrap();
        let names: Vec<&str> = rank(&defs, &wanted(&q, Kind::Behaviour))
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(names, ["get_mut"]);
        assert!(rank(&defs, &wanted(&q, Kind::Topic)).is_empty());
    }
}
