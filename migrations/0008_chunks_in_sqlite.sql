-- git-codesearch schema, version 8: chunks in SQLite.
-- The chunks' text moved here from LanceDB, which keeps only vectors now: a lexical search
-- reads this one file (opening LanceDB and planning its full-text query was most of a
-- search's time). A chunk's id is `<content_hash>:<n>`. Their full-text index (the FTS5
-- table `chunk_terms`, contentless, keyed by `rid`) is made by the program, not here: its
-- tokenizer follows the stemming setting, and as derived data it is left out of exported
-- snapshots and rebuilt on import.
CREATE TABLE chunks (
    rid          INTEGER PRIMARY KEY,  -- row id of the chunk's text and terms
    content_hash TEXT NOT NULL,
    n            INTEGER NOT NULL,     -- the chunk's place in its content, from 0
    filepath     TEXT NOT NULL,        -- path when first computed (results use the branch's)
    language     TEXT NOT NULL,
    start_line   INTEGER NOT NULL,
    end_line     INTEGER NOT NULL,
    UNIQUE (content_hash, n)
);

-- The text apart from the rest: ranking reads thousands of chunks' places and a handful of
-- texts, and rows holding kilobytes of text would make every one of those reads slow.
CREATE TABLE chunk_text (
    rid     INTEGER PRIMARY KEY,       -- = chunks.rid
    content TEXT NOT NULL
);

-- An index from before this version keeps its chunks in LanceDB: forget what it computed,
-- so that the next run computes it here (vectors are keyed by chunk id and stay valid).
DELETE FROM catalog;
DELETE FROM content;
DELETE FROM snippets;
DELETE FROM file_terms;
