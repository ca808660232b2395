-- git-codesearch schema, version 15: how each word is used in the definitions' names, kept up
-- to date by index runs instead of counted by every search that asks. A question's first word
-- is a verb when it opens many function and method names and few other names
-- (`search::verbs`); reading that from `snippets` scanned the whole name index, 5 to 9 ms of
-- every such search over astropy's 28,000 definitions.
--
-- Written to run again over itself (a test makes an index look older by forgetting the versions
-- after one, tables kept). Derived data, as the full-text tables are: it never travels in a
-- snapshot (export and packs drop it), so the snapshot's schema is the same as version 14's.

-- Per word of the counted names: how many function and method names (test routines left out)
-- it opens, and how many times it appears otherwise.
CREATE TABLE IF NOT EXISTS name_words (
    word  TEXT PRIMARY KEY NOT NULL,
    leads INTEGER NOT NULL,
    other INTEGER NOT NULL
) WITHOUT ROWID;

-- The distinct names (with their kinds, constants left out) the counts hold.
CREATE TABLE IF NOT EXISTS name_words_names (
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    PRIMARY KEY (name, kind)
) WITHOUT ROWID;

-- Names of definitions written, renamed or deleted since the counts were brought up to date:
-- temporary triggers each connection makes write them (`store::sqlite`), whatever the writer.
-- A search reads the counts only while this is empty.
CREATE TABLE IF NOT EXISTS name_words_changed (
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    PRIMARY KEY (name, kind)
) WITHOUT ROWID;

-- Whether the counts were ever made (an index from before this version has definitions the
-- log above never saw).
CREATE TABLE IF NOT EXISTS name_words_state (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    counted INTEGER NOT NULL
);
INSERT OR IGNORE INTO name_words_state (id, counted) VALUES (1, 0);
