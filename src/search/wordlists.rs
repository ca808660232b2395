//! The word lists `search::wording` reads a question's shape with: the words that begin a
//! verb's object, requests to a search tool, routine nouns, conditions, particles, and the
//! words that are never an imperative verb. There is no list of verbs: any other plain word
//! before a determiner is one.

/// Words that begin a verb's object or clause: "Returns *the* …", "Check *whether* …",
/// "Returns *true* if …" (a number does too: "Returns *1* if …"). Not prepositions or
/// "and"/"or": "retry with backoff" is a topic unless the repository's names make "retry" a
/// verb (`search::verbs`), and "Serialize and Deserialize" is one.
pub(super) const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "all", "any", "each", "every", "some",
    "its", "their", "our", "your", "my", "whether", "if", "true", "false",
];

/// Verbs people also type as commands or requests to a search tool ("Find all the places
/// …", "Show the file that …", "Explain the authentication flow"): a request for files, so
/// only their third person ("Finds a …") describes code.
pub(super) const COMMANDS: &[&str] = &[
    "describe",
    "explain",
    "find",
    "grep",
    "identify",
    "list",
    "locate",
    "look",
    "show",
    "summarise",
    "summarize",
    "understand",
];

/// Nouns for a routine: "Method called when …", "Helper function that …", "Callback for
/// …" describe one (but "function composition utility" is a topic).
pub(super) const ROUTINES: &[&str] = &["method", "function", "helper", "routine", "callback"];
/// The words after a routine noun that say what it does.
pub(super) const ROUTINE_CLAUSES: &[&str] = &[
    "called", "for", "to", "that", "which", "used", "invoked", "function",
];

/// Words that open a condition before a description's verb ("If needed, get a default
/// color …", "Given a type annotation, store all …"); it ends at a comma.
pub(super) const CONDITIONS: &[&str] = &["given", "if", "once", "optionally", "unless", "when"];
/// The longest condition skipped, in words, its first word included.
pub(super) const CONDITION_WORDS: usize = 12;

/// Particles of a phrasal verb: "Set *up* all of the …". Not prepositions: "send over the
/// wire" and "retry with backoff" name topics unless the repository's names make the first
/// word a verb (`search::verbs`).
pub(super) const PARTICLES: &[&str] = &["up", "down", "out", "off", "back"];

/// Words that cannot be an imperative verb even when an article follows, besides the stop
/// words (`query::is_stop_word`, which hold most question words, prepositions, conjunctions,
/// pronouns and auxiliaries): more of those ("whats the …", typed without the apostrophe,
/// "via the …"), adverbs that open a sentence ("Sometimes the build hangs"), the
/// participles a gerund test of more than five letters misses ("using the …"), and "new",
/// which opens constructors' names (`NewServer`, `new_session`) but never a description.
pub(super) const NOT_VERBS: &[&str] = &[
    "across",
    "actually",
    "against",
    "along",
    "already",
    "although",
    "always",
    "among",
    "around",
    "behind",
    "besides",
    "beyond",
    "currently",
    "despite",
    "either",
    "even",
    "except",
    "going",
    "hence",
    "however",
    "hows",
    "inside",
    "instead",
    "like",
    "may",
    "maybe",
    "near",
    "neither",
    "never",
    "new",
    "often",
    "onto",
    "otherwise",
    "outside",
    "per",
    "perhaps",
    "shall",
    "since",
    "sometimes",
    "still",
    "therefore",
    "though",
    "thus",
    "toward",
    "towards",
    "unless",
    "unlike",
    "upon",
    "using",
    "usually",
    "versus",
    "via",
    "vs",
    "whats",
    "whenever",
    "wheres",
    "wherever",
    "whos",
    "whose",
    "within",
    "without",
];

/// Stop words that cannot open a verb's complement ("Tries *to* …", "Checks *for* …" can):
/// conjunctions and "of" join nouns ("Sessions *and* …", "cache *of* …"), and an auxiliary
/// or modal follows a noun as its subject ("A stream *is* …", "Sessions *can* expire").
pub(super) const NOT_COMPLEMENTS: &[&str] = &[
    "and", "or", "nor", "but", "of", "as", "is", "are", "was", "were", "be", "been", "being",
    "has", "have", "had", "can", "could", "should", "will", "would", "must", "might", "do", "does",
    "did",
];
