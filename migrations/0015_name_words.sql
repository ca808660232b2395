-- git-codesearch schema, version 15: how each word is used in the definitions' names, counted
-- once per change of the definitions instead of on every search. A question's first word is
-- a verb when it opens many function and method names and few other names (`search::verbs`);
-- reading that from `snippets` scanned the whole name index, 5 to 9 ms of every such search
-- over astropy's 28,000 definitions.
--
-- Written to run again over itself (a test makes an index look older by forgetting the versions
-- after one, tables kept). Derived data, as the full-text tables are: it never travels in a snapshot (export and
-- packs drop it), so the snapshot's schema is the same as version 14's.

-- Per word: how many distinct function and method names (test routines left out) it opens,
-- and how many times it appears otherwise; only words that open a routine's name.
CREATE TABLE IF NOT EXISTS name_words (
    word  TEXT PRIMARY KEY NOT NULL,
    leads INTEGER NOT NULL,
    other INTEGER NOT NULL
) WITHOUT ROWID;

-- `version` moves on with every definition written, renamed or deleted (temporary triggers
-- each connection makes: `store::sqlite`); `counted` is the version `name_words` was
-- counted at. A search reads the counts only when the two are equal.
CREATE TABLE IF NOT EXISTS name_words_state (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL,
    counted INTEGER NOT NULL
);
INSERT OR IGNORE INTO name_words_state (id, version, counted) VALUES (1, 1, 0);
