-- git-codesearch schema, version 10: push and pull through object storage (issue 35).
-- `remote_branches` says which branches were pushed to or pulled from which remote (its URL,
-- credentials never stored) and when; `status` shows it, and `pull` replaces the catalog of
-- a branch only while no index run here has touched it since. `remote_packs` is what this
-- clone knows a remote holds (content hash -> pack object), so a push uploads only content
-- the remote lacks without reading every manifest. Both are this clone's own records: a
-- snapshot carries neither (`export` empties them).
CREATE TABLE remote_branches (
    remote    TEXT NOT NULL,         -- the remote's URL, redacted
    branch    TEXT NOT NULL,         -- catalog key
    manifest  TEXT NOT NULL,         -- object key of the manifest version last pushed or pulled
    pushed_at INTEGER,               -- unix seconds of the manifest (its pusher's clock)
    pulled_at INTEGER,               -- unix seconds of the last pull that merged it here
    PRIMARY KEY (remote, branch)
) WITHOUT ROWID;

CREATE TABLE remote_packs (
    remote       TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    pack         TEXT NOT NULL,      -- SHA-256 of the pack object's bytes
    PRIMARY KEY (remote, content_hash)
) WITHOUT ROWID;
