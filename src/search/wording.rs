//! What a question's wording says about the answer's size. A question that names a topic
//! ("session management", "how are routes registered", "retry with backoff") asks for a
//! file or a part of the project; one that describes what a piece of code does ("Returns
//! the file path of the global gitignore file", "Set the separator on this path", "Method
//! called when an EOF is encountered") asks for one function, in whatever file holds it.
//! The second stage (`search::rerank`) lifts whole files for the first kind and much less
//! for the second. No tagger ships here, so the test is the shape English gives such a
//! description: a first word that can be a verb followed by its object's determiner
//! (perhaps after a particle: "Set up all of the …", "Convolve an ndarray …"), a noun for a
//! routine followed by what it does, or "whether"; a leading condition ending in a comma
//! ("If needed, get a …") is skipped. A noun seldom comes before a lower-case article, so a
//! verb needs no list, only the stop words and the other words that are never one
//! (`NOT_VERBS`); the objects a noun does come before are told apart by what follows them
//! ("middleware *that handles*", "Python *3 compatibility*"). Before a bare object or a
//! complement ("Convert Pandoc block …", "Tries to …", but also "command group …") the
//! wording cannot tell a verb from a noun: [`read`] gives the first word's base forms to
//! ask, and the repository's names decide (`search::verbs`).

use super::query::is_stop_word;
use super::wordlists::{
    COMMANDS, CONDITIONS, CONDITION_WORDS, DETERMINERS, NOT_COMPLEMENTS, NOT_VERBS, PARTICLES,
    ROUTINES, ROUTINE_CLAUSES,
};
use crate::text::words::singular;

/// One word of a question, with what its punctuation says.
struct Token {
    /// The word, lower case, without the punctuation around it.
    word: String,
    /// It was typed in lower case (an article mid-sentence is; "Class *A* network" is not).
    lower: bool,
    /// Punctuation follows it ("Bug: the …", "Router, the …", "If needed, get …").
    stop: bool,
    /// It was typed in capitals (`CORS`, `HTTP`): an acronym, not a verb.
    capitals: bool,
}

/// The question's words; punctuation alone is not a word ("/// Returns the …" and "- Sets
/// the …" are pasted doc comments and list items).
fn tokens(raw: &str) -> Vec<Token> {
    raw.split_whitespace()
        .map(|t| {
            let trimmed = t.trim_matches(|c: char| !c.is_alphanumeric());
            Token {
                word: trimmed.to_lowercase(),
                lower: !trimmed.chars().any(char::is_uppercase),
                stop: t.ends_with([',', ':', ';', '.', '?', '!']),
                capitals: trimmed.chars().count() > 1 && !trimmed.chars().any(char::is_lowercase),
            }
        })
        .filter(|t| !t.word.is_empty())
        .collect()
}

/// What a question's wording says it is (module docs above), read in one pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Wording {
    /// It describes what one piece of code does. `verb` is the word it opens with, lower
    /// case, after a leading condition ("returns", "get"); none for "Whether …" or a routine
    /// named first ("Method called when …").
    Behaviour { verb: Option<String> },
    /// It names a topic.
    Topic,
    /// Its first word reads as a verb before a bare object or a complement if it is one
    /// ("Convert Pandoc block element …", "Tries to acquire …", but also "command group
    /// dispatch"): only the repository's names can tell (`search::verbs`). `word` is that word,
    /// `forms` its base forms to ask ([`base_forms`]).
    Ask { word: String, forms: Vec<String> },
}

/// The wording of the question `raw`.
pub(super) fn read(raw: &str) -> Wording {
    let tokens = tokens(raw);
    let tokens = &tokens[after_condition(&tokens)..];
    let [first, second, ..] = tokens else {
        return Wording::Topic;
    };
    let (word, next) = (first.word.as_str(), second.word.as_str());
    if word == "whether" {
        return Wording::Behaviour { verb: None };
    }
    if ROUTINES.contains(&word) {
        return if ROUTINE_CLAUSES.contains(&next) {
            Wording::Behaviour { verb: None }
        } else {
            Wording::Topic
        };
    }
    if COMMANDS.contains(&word) || first.stop || !can_be_verb(word) {
        return Wording::Topic;
    }
    // "Set up all of the …": the object begins after the particle.
    let object = if PARTICLES.contains(&next) { 2 } else { 1 };
    if begins_object(tokens, object) {
        return Wording::Behaviour {
            verb: Some(word.to_string()),
        };
    }
    if !first.capitals && (begins_bare_object(second) || opens_complement(next)) {
        return Wording::Ask {
            word: word.to_string(),
            forms: base_forms(word),
        };
    }
    Wording::Topic
}

/// The forms a verb may open a name with: itself, or a third person's base form. Names open
/// with the base form (`try_acquire` for "Tries …"), which the ending alone does not give:
/// "tries" → "try", "matches" → "match", but "caches" → "cache" and "goes" → "go".
fn base_forms(word: &str) -> Vec<String> {
    if !third_person(word) {
        return vec![word.to_string()];
    }
    let mut forms = vec![singular(word), word[..word.len() - 1].to_string()];
    if let Some(stem) = word.strip_suffix("es") {
        forms.push(stem.to_string());
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Whether a stop word after a verb can open its complement ("Tries *to* …", "Checks *for*
/// …", "Filter *out* …", "Check *that* …"; `NOT_COMPLEMENTS` cannot).
fn opens_complement(word: &str) -> bool {
    is_stop_word(word) && !NOT_COMPLEMENTS.contains(&word)
}

/// Whether `tokens[at]` can begin a verb's object, judged with the word after it where a
/// noun could come before it too.
fn begins_object(tokens: &[Token], at: usize) -> bool {
    let Some(t) = tokens.get(at) else {
        return false;
    };
    let then = tokens.get(at + 1).map(|n| n.word.as_str());
    let w = t.word.as_str();
    match w {
        // In capitals, a title's ("Kubernetes The Hard Way", "Class A network").
        "a" | "an" | "the" => t.lower,
        // A clause with its subject ("Indicate that *a* field …"), not a relative clause
        // after a noun ("middleware that *handles* …").
        "that" => then.is_some_and(|n| DETERMINERS.contains(&n) && n != "that"),
        // A value returned on a condition ("Returns true *if* …", "Returns 1 *if* …"); after a
        // name a number is a version or a code ("Python 3 compatibility", "Error 404").
        "true" | "false" => then.is_some_and(says_when),
        _ if w.starts_with(|c: char| c.is_ascii_digit()) => {
            // "Computes 128-bit results": a measure, an adjective of the object.
            w.contains('-') || then.is_some_and(says_when)
        }
        _ => DETERMINERS.contains(&w),
    }
}

/// Whether `word` has the form of a verb in the third person ("Computes", "Wakes",
/// "Returns"), whose base forms a routine's name would open with. A plural noun has the form
/// too ("Sessions", "Rails"): the repository's names tell them apart. The endings of words
/// that are neither are left out ("class", "status", "analysis", "metrics", "alias").
fn third_person(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !["ss", "us", "is", "ics", "as"]
            .iter()
            .any(|e| word.ends_with(e))
}

/// Whether `t` can begin a verb's object without a determiner ("Computes *approximate*
/// display width", "Gets *template* content"): a plain word that is not a stop word, nor a
/// gerund, which makes the two words a noun phrase ("alias *handling*", "options *parsing*").
fn begins_bare_object(t: &Token) -> bool {
    let w = t.word.as_str();
    let gerund = w.len() > 5 && w.ends_with("ing");
    // "Errors *without* …", "Requests *via* …", "Plugins *using* …": a noun's modifier.
    let never_object = NOT_VERBS.binary_search(&w).is_ok() || CONDITIONS.contains(&w);
    !is_stop_word(w)
        && !gerund
        && !never_object
        && w.chars().all(|c| c.is_alphanumeric() || c == '-')
}

/// Words that say when a value is returned.
fn says_when(word: &str) -> bool {
    matches!(word, "if" | "when" | "unless" | "otherwise" | "on")
}

/// Whether `word` can be the imperative or third-person verb that opens a description
/// ("Convolve an ndarray …", "Returns the …"): a plain word that no list here gives another
/// part, and no stop word but "get", "let" and "lets" ("Get the …", "Lets the caller …"). A
/// gerund ("loading the config" may name a topic) and a past tense ("Fixed a crash …"
/// reports) are not.
fn can_be_verb(word: &str) -> bool {
    let gerund = word.len() > 5 && word.ends_with("ing");
    let past = word.len() > 4 && word.ends_with("ed");
    let stop = is_stop_word(word) && !matches!(word, "get" | "let" | "lets");
    word.chars().all(|c| c.is_ascii_alphabetic())
        && !gerund
        && !past
        && !stop
        && NOT_VERBS.binary_search(&word).is_err()
        && ![DETERMINERS, CONDITIONS, PARTICLES, ROUTINES]
            .iter()
            .any(|list| list.contains(&word))
}

/// Where the question's verb may begin: after a leading condition of at most
/// [`CONDITION_WORDS`] words that ends with a comma ("If needed, get a default color …"),
/// else at the first word.
fn after_condition(tokens: &[Token]) -> usize {
    let opens_condition = tokens
        .first()
        .is_some_and(|t| CONDITIONS.contains(&t.word.as_str()));
    if !opens_condition {
        return 0;
    }
    tokens
        .iter()
        .take(CONDITION_WORDS)
        .position(|t| t.stop)
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describes_behaviour(raw: &str) -> bool {
        matches!(read(raw), Wording::Behaviour { .. })
    }

    fn verbs_to_ask(raw: &str) -> Vec<String> {
        match read(raw) {
            Wording::Ask { forms, .. } => forms,
            _ => Vec::new(),
        }
    }

    #[test]
    fn not_verbs_are_sorted_for_binary_search() {
        assert!(NOT_VERBS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_description_of_what_code_does() {
        for q in [
            "Returns a match for the given path against this file type matcher.",
            "Set the separator on this path.",
            "Returns true if and only if this command requires executing a search.",
            "Copies the bytes into a new buffer",
            "Matches the glob against every path",
            "Method called when an EOF is encountered between tokens.",
            "Helper function that returns the index a key goes to.",
            "Whether to show line numbers",
            "check whether the lock is held",
            "/// Returns the path of the file",
            "- Sets the separator",
            "Finds a compatible runtime type",
            "Convolve an ndarray with an nd-kernel.",
            "Obtain the url to use when making the final request.",
            "Given a URL that may or may not have a scheme, prepend the given scheme.",
            "Set up all of the standard metric prefixes for a unit.",
            "If needed, get a default color by using the matplotlib property cycle.",
            "When called, returns the value",
            "If the file is missing, create the file",
            "Given a type annotation, store all the name nodes it refers to.",
            "Ping the server",
            "Get the default color",
            "Lets the caller choose a format",
            "Indicate that a struct field has been skipped.",
            "Pulls all flashed messages from the session and returns them.",
            "Returns 1 if the queue is full and 0 otherwise.",
            "Return True if the given leaf is a type comment.",
            "Computes 128-bit result of multiplication of two 64-bit unsigned integers.",
            "Spin up a worker for each core",
            "Ensure that the function is synchronous",
        ] {
            assert!(describes_behaviour(q), "{q}");
        }
    }

    #[test]
    fn a_verb_or_a_noun_before_a_bare_object_is_left_to_the_repository() {
        for (q, forms) in [
            ("Convert Pandoc block element to Textile.", &["convert"][..]),
            ("command group and subcommand dispatch", &["command"]),
            ("If needed, escape special characters", &["escape"]),
            ("Tests for the parser", &["test"]),
            // A third person, asked by its base forms, before an object or a complement.
            (
                "Computes approximate width of a line",
                &["comput", "compute"],
            ),
            ("Wakes one waiter, if there is any.", &["wak", "wake"]),
            ("Tries to acquire a token", &["tri", "trie", "try"]),
            ("Caches for one minute", &["cach", "cache"]),
            ("Check that accessed members are defined", &["check"]),
            ("Filter out values that are not finite", &["filter"]),
            ("Sessions and cookies for login state", &[]),
            ("Sessions can expire", &[]),
            ("cache of parsed files", &[]),
            // A noun's modifier, not an object.
            ("Errors without context", &[]),
            ("Plugins using hooks", &[]),
            ("new session handling", &[]),
            // The wording decides these alone.
            ("Convert the block to Textile", &[]),
            ("session and cookie handling", &[]),
            ("alias handling for column names", &[]),
            ("Find config loading", &[]),
            ("CORS headers for preflight requests", &[]),
            ("how routes are registered", &[]),
            ("loaded plugins list", &[]),
            ("Router", &[]),
        ] {
            assert_eq!(verbs_to_ask(q), forms, "{q}");
        }
    }

    #[test]
    fn a_topic_or_a_how_question() {
        for q in [
            "session management",
            "how are routes registered",
            "retry with backoff",
            "request context handling",
            "store creation and dispatch lifecycle",
            "test runner for CLI commands in isolation",
            "Serialize and Serializer trait definitions",
            "function composition utility",
            "Find all the places that open a socket",
            "show the file that defines routes",
            "Look up a theme by name",
            "how the router matches a path",
            "in a lambda expression, more than one argument",
            "Is the implementation of the hset command",
            "loading the configuration file",
            "if the cache is cold",
            "set of all options",
            "If needed,",
            "Set up",
            "Clean up temp files",
            "v2 the api",
            "send over the wire",
            "Explain the authentication flow",
            "Describe the plugin system",
            "Bug: the parser crashes on empty input",
            "Router, the main entry point",
            "All the places where a socket is opened",
            "the the parser",
            "Sometimes the build hangs",
            "whats the entry point",
            "Given a user id, how do I find their sessions",
            "Class A network address parsing",
            "Fixed a crash when opening a file",
            "Using the cache for lookups",
            "Via the proxy settings",
            "More the merrier",
            "middleware that handles auth",
            "files that change together",
            "Routes that require authentication",
            "Python 3 compatibility",
            "HTTP 2 support",
            "Error 404 handling",
            "Kubernetes The Hard Way",
            "Update: the parser now accepts tabs",
            "Router",
            "Returns",
            "Sessions and cookies for login state",
            "alias handling for column names",
            "options parsing",
            "CORS headers for preflight requests",
            "status bar rendering",
            "Errors without context",
            "Requests via proxy",
            "Plugins using hooks",
            "",
        ] {
            assert!(!describes_behaviour(q), "{q}");
        }
    }
}
