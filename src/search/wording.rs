//! What a question's wording says about the answer's size. A question that names a topic
//! ("session management", "how are routes registered", "retry with backoff") asks for a
//! file or a part of the project; one that describes what a piece of code does ("Returns
//! the file path of the global gitignore file", "Set the separator on this path", "Method
//! called when an EOF is encountered") asks for one function, in whatever file holds it.
//! The second stage (`search::rerank`) lifts whole files for the first kind and much less
//! for the second. No tagger ships here, so the test is the shape English gives such a
//! description: a first word that can be a verb followed by its object's determiner
//! (perhaps after a particle: "Set up all of the …", "Convolve an ndarray …"), a verb in the
//! third person followed by a bare object ("Computes approximate width …"), a noun for a
//! routine followed by what it does, or "whether"; a leading condition ending in a comma
//! ("If needed, get a …") is skipped. A noun seldom comes before a lower-case article, so a
//! verb needs no list, only the stop words and the other words that are never one
//! (`NOT_VERBS`); the objects a noun does come before are told apart by what follows them
//! ("middleware *that handles*", "Python *3 compatibility*").

use super::query::is_stop_word;
use super::wordlists::{
    COMMANDS, CONDITIONS, CONDITION_WORDS, DETERMINERS, NOT_VERBS, PARTICLES, ROUTINES,
    ROUTINE_CLAUSES,
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

/// Whether the question `raw` describes what one piece of code does rather than naming a
/// topic (module docs above).
pub(super) fn describes_behaviour(raw: &str) -> bool {
    let tokens = tokens(raw);
    let tokens = &tokens[after_condition(&tokens)..];
    let [first, second, ..] = tokens else {
        return false;
    };
    let (word, next) = (first.word.as_str(), second.word.as_str());
    if word == "whether" {
        return true;
    }
    if ROUTINES.contains(&word) {
        return ROUTINE_CLAUSES.contains(&next);
    }
    if COMMANDS.contains(&word) {
        return false;
    }
    if first.stop || !can_be_verb(word) {
        return false;
    }
    if !first.capitals && third_person(word) && begins_bare_object(second) {
        return true;
    }
    // "Set up all of the …": the object begins after the particle.
    let object = if PARTICLES.contains(&next) { 2 } else { 1 };
    begins_object(tokens, object)
}

/// The first word of a question that reads as a verb followed by a bare object if the word
/// is a verb ("Convert Pandoc block element …", but also "command group and …"): only the
/// repository's names can tell (`search::verbs`). `None` when the wording decides alone.
pub(super) fn verb_to_ask(raw: &str) -> Option<String> {
    if describes_behaviour(raw) {
        return None;
    }
    let tokens = tokens(raw);
    let tokens = &tokens[after_condition(&tokens)..];
    let [first, second, ..] = tokens else {
        return None;
    };
    let word = first.word.as_str();
    let asked = !first.stop
        && !first.capitals
        && !COMMANDS.contains(&word)
        && !ROUTINES.contains(&word)
        && can_be_verb(word)
        && (begins_bare_object(second) || opens_complement(&second.word));
    // Names open with a verb's base form: `try_acquire` for "Tries to acquire …".
    asked.then(|| {
        if third_person(word) {
            singular(word)
        } else {
            word.to_string()
        }
    })
}

/// Whether a stop word after a verb can open its complement ("Tries *to* …", "Checks *for*
/// …", "Filter *out* …", "Check *that* …"): not a conjunction ("Sessions *and* …"), "of", or
/// an auxiliary (a noun's verb: "A stream *is* …").
fn opens_complement(word: &str) -> bool {
    is_stop_word(word)
        && !matches!(
            word,
            "and"
                | "or"
                | "nor"
                | "but"
                | "of"
                | "as"
                | "is"
                | "are"
                | "was"
                | "were"
                | "be"
                | "been"
                | "being"
                | "has"
                | "have"
                | "had"
        )
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
/// "Returns"). A plural noun has it too, but a plural seldom opens a noun phrase that goes on
/// without a stop word ("Sessions and …", "Routes that …"); the endings of nouns that are not
/// plurals are left out ("class", "status", "analysis", "metrics", "alias").
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
    !is_stop_word(w) && !gerund && w.chars().all(|c| c.is_alphanumeric() || c == '-')
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
            "Computes approximate width of a rendered line.",
            "Returns non-zero when both ranges overlap.",
            "Wakes one waiter, if there is any.",
            "Gets template content by name.",
        ] {
            assert!(describes_behaviour(q), "{q}");
        }
    }

    #[test]
    fn a_verb_or_a_noun_before_a_bare_object_is_left_to_the_repository() {
        for (q, word) in [
            ("Convert Pandoc block element to Textile.", Some("convert")),
            ("command group and subcommand dispatch", Some("command")),
            ("If needed, escape special characters", Some("escape")),
            // A complement after the verb; a third person asked by its base form.
            ("Tries to acquire a token", Some("try")),
            ("Check that accessed members are defined", Some("check")),
            ("Filter out values that are not finite", Some("filter")),
            ("routes for compile-time validation", Some("route")),
            ("Sessions and cookies for login state", None),
            ("cache of parsed files", None),
            // The wording decides these alone.
            ("Convert the block to Textile", None),
            ("Computes approximate width of a line", None),
            ("session and cookie handling", None),
            ("alias handling for column names", None),
            ("Find config loading", None),
            ("CORS headers for preflight requests", None),
            ("how routes are registered", None),
            ("loaded plugins list", None),
            ("Router", None),
        ] {
            assert_eq!(verb_to_ask(q).as_deref(), word, "{q}");
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
            "",
        ] {
            assert!(!describes_behaviour(q), "{q}");
        }
    }
}
