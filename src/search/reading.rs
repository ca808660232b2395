//! One reading of the query, computed once (`Reading::of`, then settled by the repository's
//! names where the wording cannot tell a verb from a noun: `Reading::settle_verb`, which the
//! pipeline calls before any stage) and read by every stage that depends on what the query
//! is: its shape (a question of a few words, or a pasted issue, log or message), whether a
//! question describes what one piece of code does or names a topic, the names it asks for (a
//! name, a qualified name in some language's notation, or the identifiers of a sentence) and
//! the words that can name a file. The stages read this value, not the text: only the
//! embedder and a chat model get the text itself.

use serde::Serialize;

use super::evidence::{self, Names};
use super::query::Query;
use super::wording::{self, Wording};

/// A one-line query of at most this many words is a question; longer or several lines is
/// an issue. The short-question set runs to 18 words; the issues' median is 24, and only one
/// of the 268 is a single line.
pub const QUESTION_MAX_WORDS: usize = 30;

/// What kind of query it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One line, at most [`QUESTION_MAX_WORDS`] words.
    Question,
    /// Several lines, or a long line: a pasted issue, log or message.
    Issue,
}

/// What a query is, read once.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// Question or issue.
    pub shape: Shape,
    /// How many words (white-space separated) it has: one word is a name or a code.
    pub words: usize,
    /// A question that describes what one piece of code does ("Returns the …"), rather than
    /// naming a topic (`search::wording`; `search::verbs` through [`Reading::settle_verb`]).
    pub describes_behaviour: bool,
    /// The base forms of a first word that reads as a verb before its object if it is one
    /// ("Convert Pandoc block …", "command group …"): the question describes behaviour when
    /// the repository's names say one is a verb (`search::verbs`, [`Reading::settle_verb`]).
    /// Empty when the wording decides alone.
    pub verbs_to_ask: Vec<String>,
    /// The word the question opens with as its verb, lower case, after a leading condition
    /// ("returns", "get"): a description's, or the one asked of the repository
    /// ([`Reading::verbs_to_ask`]). None for a topic the wording decides, and for a
    /// description opening with "Whether" or a routine ("Method called when …").
    pub verb: Option<String>,
    /// The names it asks for (`search::evidence::names`).
    pub names: Names,
    /// Its words that can name a file (`search::evidence::keywords`).
    pub keywords: Vec<evidence::Keyword>,
    /// It opens with a stop word ("how are routes registered", "where is …"): a sentence
    /// about how something works, not a noun phrase naming a feature
    /// (`search::params::rerank::COHERENCE_FULL_BYTES`).
    pub opens_with_stop_word: bool,
}

impl Reading {
    /// The reading of `q`.
    pub fn of(q: &Query) -> Reading {
        let words = q.raw.split_whitespace().count();
        let shape = if q.title.is_none() && words <= QUESTION_MAX_WORDS {
            Shape::Question
        } else {
            Shape::Issue
        };
        let wording = if shape == Shape::Question {
            wording::read(&q.raw)
        } else {
            Wording::Topic
        };
        let (describes_behaviour, verbs_to_ask, verb) = match wording {
            Wording::Behaviour { verb } => (true, Vec::new(), verb),
            Wording::Topic => (false, Vec::new(), None),
            Wording::Ask { word, forms } => (false, forms, Some(word)),
        };
        Reading {
            shape,
            words,
            describes_behaviour,
            verbs_to_ask,
            verb,
            names: evidence::names(q),
            keywords: evidence::keywords(q),
            opens_with_stop_word: opens_with_stop_word(&q.raw),
        }
    }

    /// Settle [`Reading::verbs_to_ask`]: a verb makes the question a description.
    /// A word the names call a noun is no verb ([`Reading::verb`] is then `None`).
    pub fn settle_verb(&mut self, is_verb: bool) {
        let asked = !std::mem::take(&mut self.verbs_to_ask).is_empty();
        if asked && is_verb {
            self.describes_behaviour = true;
        } else if asked {
            self.verb = None;
        }
    }

    /// A query of one word: a name, an identifier or an error code.
    pub fn is_one_word(&self) -> bool {
        self.words == 1
    }
}

/// Whether the first word of `raw`, up to its first character that is not a letter or
/// digit ("Where's" → "where", "how?" → "how"), is an English stop word.
fn opens_with_stop_word(raw: &str) -> bool {
    raw.split_whitespace().next().is_some_and(|w| {
        let word: String = w.chars().take_while(|c| c.is_alphanumeric()).collect();
        super::query::is_stop_word(&word.to_lowercase())
    })
}

/// What a query is, in the kinds the learned scorer has a row of weights for
/// (`search::learned`; `--explain` shows which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// One word: a name, an identifier, an error code.
    Name,
    /// A one-line question naming a topic ("session cookies").
    Topic,
    /// A one-line question saying what one piece of code does ("Returns the …").
    Behaviour,
    /// A pasted issue, log or message.
    Issue,
}

impl Kind {
    /// The kind of a query, from its reading.
    pub fn of(reading: &Reading) -> Kind {
        match reading.shape {
            Shape::Issue => Kind::Issue,
            Shape::Question if reading.is_one_word() => Kind::Name,
            Shape::Question if reading.describes_behaviour => Kind::Behaviour,
            Shape::Question => Kind::Topic,
        }
    }

    /// The kind in words, for a terminal.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Name => "a name",
            Kind::Topic => "a question naming a topic",
            Kind::Behaviour => "a question saying what one piece of code does",
            Kind::Issue => "a pasted issue, log or message",
        }
    }

    /// The kind's name, as `--json` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Name => "name",
            Kind::Topic => "topic",
            Kind::Behaviour => "behaviour",
            Kind::Issue => "issue",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(q: &str) -> Reading {
        Reading::of(&crate::search::prepare(q).unwrap())
    }

    #[test]
    fn a_question_word_opens_a_sentence_whatever_follows_it() {
        for q in [
            "how are routes registered",
            "Where's the cache kept",
            "how? routes",
        ] {
            assert!(read(q).opens_with_stop_word, "{q}");
        }
        for q in [
            "size-based log file rotation",
            "Howard's parser",
            "(how) routes",
        ] {
            assert!(!read(q).opens_with_stop_word, "{q}");
        }
    }

    #[test]
    fn each_kind_of_query_is_read_once_with_what_the_stages_need() {
        let name = read("serde::Deserialize");
        assert_eq!(name.shape, Shape::Question);
        assert!(name.is_one_word() && name.names.is_name);
        assert_eq!(name.names.names, ["deserialize"]);
        let described = read("Returns the path of the ignore file");
        assert!(described.describes_behaviour && !described.is_one_word());
        assert_eq!(described.verb.as_deref(), Some("returns"));
        let after_condition = read("If needed, get a default color");
        assert_eq!(after_condition.verb.as_deref(), Some("get"));
        assert_eq!(read("Whether to show line numbers").verb, None);
        let topic = read("type adapter factories and how they are selected");
        assert!(!topic.describes_behaviour);
        assert!(read("how routes are registered").verb.is_none());
        let mut open = read("Convert Pandoc block element to Textile.");
        assert_eq!(open.verbs_to_ask, ["convert"]);
        assert_eq!(open.verb.as_deref(), Some("convert"));
        open.settle_verb(true);
        assert!(open.describes_behaviour && open.verbs_to_ask.is_empty());
        let mut noun = read("command group and subcommand dispatch");
        assert_eq!(noun.verbs_to_ask, ["command"]);
        noun.settle_verb(false);
        assert!(!noun.describes_behaviour && noun.verb.is_none());
        // Nothing asked: a verb found elsewhere changes nothing.
        let mut decided = read("how routes are registered");
        decided.settle_verb(true);
        assert!(!decided.describes_behaviour);
        let issue = read("Crash on load\nWhen I open a file the app crashes.");
        assert_eq!(issue.shape, Shape::Issue);
        assert!(
            !issue.describes_behaviour,
            "only a question describes behaviour"
        );
        let long_line = read(&"word ".repeat(QUESTION_MAX_WORDS + 1));
        assert_eq!(long_line.shape, Shape::Issue);
    }

    /// Query-like text: words, names in several notations, stop words, CJK, markup and
    /// punctuation, in any order.
    fn query_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            "[a-z]{1,12}",
            "[A-Z][a-z]{1,8}[A-Z][a-z]{1,8}",
            "[a-z_]{1,8}(::|\\.|->|#)[a-z_]{1,8}",
            Just("the".to_string()),
            Just("get".to_string()),
            Just("`".to_string()),
            Just("<!--".to_string()),
            Just("-->".to_string()),
            Just("\n".to_string()),
            Just("在哪里解析".to_string()),
            "[[:punct:]]{1,3}",
            any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|p| p.join(" "))
    }

    proptest::proptest! {
        #![proptest_config(crate::util::fuzzing::config(256))]
        /// Any text, as an MCP request or a pasted log brings it: prepared, read and ranked
        /// without a panic, and a query that is accepted has something to search for, within
        /// the bounds every stage assumes.
        #[test]
        fn any_query_is_read_or_refused_never_a_panic(
            raw in proptest::prop_oneof![query_text(), proptest::prelude::any::<String>()]
        ) {
            if let Ok(q) = crate::search::prepare(&raw) {
                proptest::prop_assert!(!q.terms.is_empty());
                proptest::prop_assert!(q.terms.len() <= crate::search::query::MAX_TERMS);
                proptest::prop_assert!(q.raw.len() <= crate::search::query::MAX_QUERY_BYTES);
                let reading = Reading::of(&q);
                proptest::prop_assert!(reading.words >= 1);
                let config = crate::config::Config::default();
                let _ = crate::search::params::Ranking::for_query(&config.search, &reading);
            }
        }
    }
}
