-- git-codesearch schema, version 13: more contents whose definitions an older build read wrong.
-- Until this version Java's enums, records and annotation types and TypeScript's type aliases
-- and enums were no definitions (the grammars' tags queries leave them out: `JsonToken` was
-- not found where `public enum JsonToken` is); a C++ class behind an export macro was named
-- after the macro (`class SPDLOG_API async_logger` defined `SPDLOG_API`); and a C or C++ line
-- that only names a type was taken for its definition (`class thread_pool;`, and in a file the
-- grammar could not parse whole `struct ZSTD_CCtx_s const* cctx;`), taking the lookup of the
-- name from the definition. Those contents are listed as version 12 listed C's: an index run
-- that meets a file of one computes it again (its chunks are cut the same way, so their
-- vectors stay).
INSERT OR IGNORE INTO stale_definitions
    SELECT content_hash FROM content WHERE language IN ('c', 'cpp', 'java', 'typescript', 'tsx');

-- And check again the files skipped for long lines: a tenth of a file's lines over the limit
-- made it junk, where now a quarter must be (a hand-written file with a table of embedded data
-- beside its code is indexed). Forgetting their stat makes the next index run read them again.
UPDATE catalog SET mtime_ns = 0 WHERE skip_reason LIKE '%lines too long%';

-- The packs this clone pushed are in the older schema, which this build does not read: forget
-- which contents they hold, so that the next push uploads them again in this one.
DELETE FROM remote_packs;
