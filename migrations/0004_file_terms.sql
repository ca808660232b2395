-- git-codesearch schema, version 4: whole-file BM25.
-- Chunks are ranked by BM25 in LanceDB; this ranks whole files, which finds the file an
-- issue is about better than any one of its chunks (words spread over a file add up).
-- One row per stored content: its identifiers, lower-cased, whole and split into their
-- camelCase / snake_case parts. Contentless (the text is in the chunk table already): only
-- the inverted index and the content hash are kept. The rowid is the first 60 bits of the
-- content hash, so a content's row is found without a scan. Written in the transaction
-- that records the content, deleted in the one that deletes it; an index from before this
-- version is filled from its chunks by the next index run.
CREATE VIRTUAL TABLE file_terms USING fts5(
    content_hash UNINDEXED,
    terms,
    content = '',
    contentless_delete = 1,
    contentless_unindexed = 1,
    tokenize = "unicode61 tokenchars '_'"
);
