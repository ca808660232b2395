//! What a question's wording says about the answer's size. A question that names a topic
//! ("session management", "how are routes registered", "retry with backoff") asks for a
//! file or a part of the project; one that describes what a piece of code does ("Returns
//! the file path of the global gitignore file", "Set the separator on this path", "Method
//! called when an EOF is encountered") asks for one function, in whatever file holds it.
//! The second stage (`search::rerank`) lifts whole files for the first kind and much less
//! for the second. No tagger ships here, so the test is the shape English gives such a
//! description: a verb followed by its object's determiner, a noun for a routine followed
//! by what it does, or "whether".

/// Verbs that open a description of what code does, in their base form. A verb alone is
/// not enough (`store creation and dispatch`, `test runner`, `request context`): the word
/// after it must begin an object (`DETERMINERS`).
const VERBS: &[&str] = &[
    "accept",
    "access",
    "acquire",
    "activate",
    "add",
    "adjust",
    "advance",
    "allocate",
    "allow",
    "append",
    "apply",
    "assert",
    "assign",
    "attach",
    "attempt",
    "build",
    "calculate",
    "call",
    "cancel",
    "cast",
    "change",
    "check",
    "choose",
    "clean",
    "clear",
    "clone",
    "close",
    "collect",
    "combine",
    "commit",
    "compare",
    "compile",
    "complete",
    "compute",
    "configure",
    "connect",
    "consume",
    "contain",
    "convert",
    "copy",
    "count",
    "create",
    "decode",
    "decrement",
    "define",
    "delete",
    "deserialize",
    "destroy",
    "detach",
    "detect",
    "determine",
    "disable",
    "discard",
    "dispatch",
    "display",
    "draw",
    "drop",
    "dump",
    "emit",
    "enable",
    "encode",
    "enqueue",
    "ensure",
    "enter",
    "escape",
    "evaluate",
    "execute",
    "exit",
    "expand",
    "export",
    "extract",
    "fetch",
    "fill",
    "find",
    "finish",
    "flush",
    "format",
    "free",
    "generate",
    "get",
    "handle",
    "hash",
    "hide",
    "import",
    "increment",
    "initialise",
    "initialize",
    "insert",
    "install",
    "invoke",
    "iterate",
    "join",
    "keep",
    "list",
    "load",
    "lock",
    "log",
    "look",
    "lookup",
    "make",
    "map",
    "mark",
    "match",
    "merge",
    "move",
    "normalize",
    "notify",
    "open",
    "parse",
    "pass",
    "peek",
    "perform",
    "pick",
    "pop",
    "populate",
    "prepare",
    "print",
    "process",
    "produce",
    "push",
    "put",
    "quote",
    "raise",
    "read",
    "receive",
    "record",
    "reduce",
    "refresh",
    "register",
    "release",
    "reload",
    "remove",
    "rename",
    "render",
    "replace",
    "report",
    "request",
    "reset",
    "resize",
    "resolve",
    "restore",
    "retrieve",
    "retry",
    "return",
    "reverse",
    "rewind",
    "run",
    "save",
    "scan",
    "schedule",
    "search",
    "select",
    "send",
    "serialize",
    "set",
    "setup",
    "show",
    "skip",
    "sort",
    "spawn",
    "split",
    "start",
    "stop",
    "store",
    "strip",
    "subscribe",
    "swap",
    "switch",
    "take",
    "tell",
    "terminate",
    "test",
    "throw",
    "toggle",
    "transform",
    "translate",
    "traverse",
    "trim",
    "truncate",
    "try",
    "turn",
    "unlock",
    "unregister",
    "unwrap",
    "update",
    "use",
    "validate",
    "verify",
    "visit",
    "wait",
    "walk",
    "wrap",
    "write",
    "yield",
];

/// Words that begin a verb's object or clause: "Returns *the* …", "Check *whether* …",
/// "Returns *true* if …" (a number does too: "Returns *1* if …"). Not prepositions or
/// "and"/"or": "retry with backoff" and "Serialize and Deserialize" name topics.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "all", "any", "each", "every", "some",
    "its", "their", "our", "your", "my", "whether", "if", "true", "false",
];

/// Verbs people also type as commands to a search tool ("Find all the places …", "Show
/// the file that …"): a request for files, so only their third person ("Finds a …")
/// describes code.
const COMMANDS: &[&str] = &["find", "list", "look", "show"];

/// Nouns for a routine: "Method called when …", "Helper function that …", "Callback for
/// …" describe one (but "function composition utility" is a topic).
const ROUTINES: &[&str] = &["method", "function", "helper", "routine", "callback"];
/// The words after a routine noun that say what it does.
const ROUTINE_CLAUSES: &[&str] = &[
    "called", "for", "to", "that", "which", "used", "invoked", "function",
];

/// Words that open a description with what is not its verb: a condition before the verb
/// ("If needed, get a default color …") ends at the first comma.
const CONDITIONS: &[&str] = &["if", "when", "unless", "optionally", "once"];

/// Particles of a phrasal verb: "Set *up* all of the …", "Iterate *over* all …".
const PARTICLES: &[&str] = &["up", "down", "out", "off", "over", "back"];

/// Words that cannot be an imperative verb even when an article follows: question words,
/// prepositions, conjunctions, pronouns and auxiliaries ("how the …", "in a …", "is the
/// …": a yes/no question, not a command).
const NOT_VERBS: &[&str] = &[
    "about", "above", "across", "after", "against", "along", "also", "although", "among", "and",
    "are", "around", "as", "at", "because", "before", "behind", "below", "between", "beyond",
    "both", "but", "by", "can", "could", "did", "do", "does", "during", "each", "either", "for",
    "from", "had", "has", "have", "here", "how", "if", "in", "inside", "into", "is", "it", "just",
    "like", "may", "might", "must", "near", "neither", "no", "nor", "not", "of", "on", "once",
    "only", "onto", "or", "outside", "over", "per", "shall", "should", "since", "so", "than",
    "then", "there", "though", "through", "to", "toward", "towards", "under", "unless", "until",
    "upon", "via", "was", "were", "what", "when", "where", "which", "while", "who", "whom",
    "whose", "why", "will", "with", "within", "without", "would",
];

/// Whether the question `raw` describes what one piece of code does rather than naming a
/// topic (module docs above).
pub(super) fn describes_behaviour(raw: &str) -> bool {
    // Punctuation alone is not a word: "/// Returns the …" and "- Sets the …" are pasted
    // doc comments and list items.
    let tokens: Vec<(String, bool)> = raw
        .split_whitespace()
        .map(|t| {
            let word = t
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            (word, t.ends_with(','))
        })
        .filter(|(w, _)| !w.is_empty())
        .collect();
    let words: Vec<&str> = tokens[after_condition(&tokens)..]
        .iter()
        .map(|(w, _)| w.as_str())
        .collect();
    let [first, second, ..] = words[..] else {
        return false;
    };
    if first == "whether" {
        return true;
    }
    if ROUTINES.contains(&first) {
        return ROUTINE_CLAUSES.contains(&second);
    }
    if COMMANDS.contains(&first) {
        return false;
    }
    let begins_object =
        |w: &str| DETERMINERS.contains(&w) || w.starts_with(|c: char| c.is_ascii_digit());
    if is_verb(first) {
        // "Set up all of the …": the object begins after the particle.
        let next = match words.get(2) {
            Some(third) if PARTICLES.contains(&second) => third,
            _ => second,
        };
        return begins_object(next);
    }
    // A word no list here knows, followed by an article, is an imperative verb the list
    // lacks ("Convolve an ndarray …", "Obtain the url …", "Given a URL, …"): English puts
    // no noun there. A gerund is left out, as "loading the config" may name a topic.
    matches!(second, "a" | "an" | "the")
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && !first.ends_with("ing")
        && NOT_VERBS.binary_search(&first).is_err()
}

/// Where the question's verb may begin: after a leading condition of at most five words
/// that ends with a comma ("If needed, get a default color …"), else at the first word.
fn after_condition(tokens: &[(String, bool)]) -> usize {
    let opens_condition = tokens
        .first()
        .is_some_and(|(w, _)| CONDITIONS.contains(&w.as_str()));
    if !opens_condition {
        return 0;
    }
    tokens
        .iter()
        .take(5)
        .position(|(_, comma)| *comma)
        .map_or(0, |i| i + 1)
}

/// Whether `word` is one of [`VERBS`] or its third person (`returns`, `matches`,
/// `copies`).
fn is_verb(word: &str) -> bool {
    let base = |w: &str| VERBS.binary_search(&w).is_ok();
    base(word)
        || word
            .strip_suffix("ies")
            .is_some_and(|s| base(&format!("{s}y")))
        || word.strip_suffix("es").is_some_and(base)
        || word.strip_suffix('s').is_some_and(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_are_sorted_for_binary_search() {
        assert!(VERBS.windows(2).all(|w| w[0] < w[1]));
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
            "Iterate over all header lines, including duplicate ones.",
            "If needed, get a default color by using the matplotlib property cycle.",
            "When called, returns the value",
        ] {
            assert!(describes_behaviour(q), "{q}");
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
            "Router",
            "Returns",
            "",
        ] {
            assert!(!describes_behaviour(q), "{q}");
        }
    }
}
