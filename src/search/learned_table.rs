//! The learned scorer's weights (`search::learned`), written by `bench/ltr.py fit --rust`
//! from `--explain`'s features on the development sets (the description row on five short-question
//! sets): one row per query kind, one weight per feature group. Refit rather than edit;
//! RESULTS.md has each fold's held-out score.

/// Feature groups, in the order of each row.
pub const GROUPS: [&str; 15] = [
    "bm25",
    "vector",
    "symbol",
    "file",
    "title",
    "commits",
    "vector_files",
    "path_and_recency",
    "neighbours",
    "file_only",
    "coherence",
    "module",
    "path_words",
    "topic_file",
    "definition",
];

/// Weights by query kind (`search::learned::Kind`): a name, a topic, a question saying what
/// one piece of code does, a pasted issue.
pub const WEIGHTS: [[f64; 15]; 4] = [
    // name
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
    // topic
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
    // behaviour
    [
        1.0, 2.0, 1.0, 1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ],
    // issue
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
];
