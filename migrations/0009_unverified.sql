-- git-codesearch schema, version 9: content from elsewhere is checked before it is shown.
-- A snapshot (`import`; later a pulled index) brings chunk text and definitions computed on
-- another machine. Until `index::verify` has checked them against this clone's own bytes of
-- the same content, the content is listed here and every catalog row that uses it is
-- skipped ("imported, not yet verified against this clone's files"): no search shows it as
-- the user's code. An index run checks each one against the file it is about to tag, or
-- drops it and computes the file itself.
CREATE TABLE unverified (
    content_hash TEXT PRIMARY KEY
) WITHOUT ROWID;
