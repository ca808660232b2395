-- git-codesearch schema, version 5: what past commits said.
-- A bug report often uses the words of an earlier commit message about the same code ("fix
-- unicode method names"), and the files that commit changed are where to look. Mined with
-- the co-change rows from the newest non-merge commits of each indexed branch (those that
-- change at most 20 files), and rebuilt when the branch's head moves.
-- Commits are stored once however many branches reach them: branch_commits says which
-- branch reaches which; a commit no branch reaches any more is deleted in the same
-- transaction that drops its last branch row.
CREATE TABLE commit_log (
    commit_id TEXT PRIMARY KEY,      -- hex object id
    n_files   INTEGER NOT NULL       -- files it changed (all of them, on any branch)
) WITHOUT ROWID;

CREATE TABLE commit_files (
    commit_id TEXT NOT NULL,
    path      TEXT NOT NULL,
    PRIMARY KEY (commit_id, path)
) WITHOUT ROWID;

CREATE TABLE branch_commits (
    branch    TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    PRIMARY KEY (branch, commit_id)
) WITHOUT ROWID;
CREATE INDEX branch_commits_by_commit ON branch_commits (commit_id);

-- The message's terms (identifiers lower-cased, whole and split, as for file_terms).
-- Contentless; the rowid is the first 60 bits of the commit id.
CREATE VIRTUAL TABLE commit_terms USING fts5(
    commit_id UNINDEXED,
    terms,
    content = '',
    contentless_delete = 1,
    contentless_unindexed = 1,
    tokenize = "unicode61 tokenchars '_'"
);

-- Mine every branch again at its next index run, so an index from before this version
-- gets its messages without a rebuild.
DELETE FROM cochange_head;
