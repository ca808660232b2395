-- git-codesearch schema, version 3: files that change together.
-- Mined from the history of each indexed branch (the newest non-merge commits, leaving out
-- those that touch many files): for each path, its most frequent partner. Search adds a
-- top result's partner as a "changed together" hit. Rebuilt whenever the branch's head
-- moves; dropped with the branch.
CREATE TABLE cochange (
    branch   TEXT NOT NULL,
    path     TEXT NOT NULL,
    partner  TEXT NOT NULL,
    together INTEGER NOT NULL,   -- commits that changed both
    changes  INTEGER NOT NULL,   -- commits that changed path
    PRIMARY KEY (branch, path, partner)
) WITHOUT ROWID;

-- The head commit each branch's co-change rows were mined at.
CREATE TABLE cochange_head (
    branch      TEXT PRIMARY KEY,
    head_commit TEXT NOT NULL
) WITHOUT ROWID;
