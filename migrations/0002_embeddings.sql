-- git-codesearch schema, version 2: vector search.
-- Vectors live in LanceDB, one table per embedding model (so dimensions never mix), keyed by
-- chunk id. A content hash counts as embedded for a model only once all its chunks' vectors
-- are written: this row is inserted after the LanceDB write, so a crash in between leaves
-- the content pending (embedded again next run), never marked done without vectors.
CREATE TABLE embedded (
    content_hash TEXT NOT NULL,
    model        TEXT NOT NULL,      -- the embedder's model id (provider, model, dimension)
    embedded_at  INTEGER NOT NULL,   -- unix seconds
    PRIMARY KEY (content_hash, model)
) WITHOUT ROWID;

-- Embedding outcome of each finished run (0 when vector search is off).
ALTER TABLE runs ADD COLUMN embedded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN embed_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN embed_model TEXT;
