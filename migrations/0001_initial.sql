-- git-codesearch schema, version 1.
-- Content is addressed by the SHA-256 of the file's bytes; branches own paths, paths point
-- at content. Chunks (and vectors) of a content hash live in LanceDB's code_chunks table and
-- are visible only while some catalog row references the hash.

-- Every content hash whose chunks and symbols are stored (the result of a Compute).
CREATE TABLE content (
    content_hash TEXT PRIMARY KEY,
    language     TEXT NOT NULL,
    n_chunks     INTEGER NOT NULL,
    n_symbols    INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    run_id       TEXT NOT NULL,      -- the run that computed it (for --restart clean-up)
    indexed_at   INTEGER NOT NULL    -- unix seconds
);

-- Which branch has which file at which content: the membership of content in branches.
-- Skipped files (binary, junk, too large) are recorded too, with the reason, so that they
-- are listed by `status --verbose` and not re-read by the next run.
CREATE TABLE catalog (
    workspace    TEXT NOT NULL,      -- the worktree that indexed it (informational)
    branch       TEXT NOT NULL,      -- refs/heads/NAME or detached/<commit>
    path         TEXT NOT NULL,      -- relative to the work tree, '/'-separated
    content_hash TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    skip_reason  TEXT,               -- NULL when indexed
    indexed_at   INTEGER NOT NULL,
    PRIMARY KEY (branch, path)
) WITHOUT ROWID;
CREATE INDEX catalog_by_hash ON catalog (content_hash);
CREATE INDEX catalog_by_path ON catalog (path);

-- Which branches use which content (derived from the catalog, so it can never disagree).
CREATE VIEW tags AS
    SELECT DISTINCT branch, content_hash FROM catalog WHERE skip_reason IS NULL;

-- Symbols (definitions) found by tree-sitter-tags, per content.
CREATE TABLE snippets (
    content_hash TEXT NOT NULL,
    name         TEXT NOT NULL,
    name_lower   TEXT NOT NULL,
    kind         TEXT NOT NULL,
    start_line   INTEGER NOT NULL,
    end_line     INTEGER NOT NULL,
    signature    TEXT NOT NULL,
    doc          TEXT
);
CREATE INDEX snippets_by_hash ON snippets (content_hash);
CREATE INDEX snippets_by_name ON snippets (name_lower);

-- At most one index run at a time; the holder renews expires_at while it works.
CREATE TABLE index_lock (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    pid         INTEGER NOT NULL,
    pid_start   TEXT NOT NULL,       -- process start time, guards against pid reuse
    host        TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    rerun       INTEGER NOT NULL DEFAULT 0  -- a hook asked for another pass meanwhile
);

-- Progress of the current (or an interrupted) run.
CREATE TABLE checkpoint (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    run_id     TEXT NOT NULL,
    workspace  TEXT NOT NULL,
    branch     TEXT NOT NULL,
    phase      TEXT NOT NULL,        -- walk | chunk | commit
    done       INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Statistics of finished runs, newest last.
CREATE TABLE runs (
    run_id       TEXT PRIMARY KEY,
    branch       TEXT NOT NULL,
    head_commit  TEXT,
    started_at   INTEGER NOT NULL,
    seconds      REAL NOT NULL,
    files        INTEGER NOT NULL,
    compute      INTEGER NOT NULL,
    add_tag      INTEGER NOT NULL,
    remove_tag   INTEGER NOT NULL,
    deleted      INTEGER NOT NULL,
    unchanged    INTEGER NOT NULL,
    skipped      INTEGER NOT NULL,
    chunks_added INTEGER NOT NULL
);
