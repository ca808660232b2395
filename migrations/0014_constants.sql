-- git-codesearch schema, version 14: constants are definitions, for an exact name's lookup.
-- Until this version a Rust `const` or `static`, a Go `const`, a C or C++ object-like macro
-- or enumerator, a Java `static final` field, a C# `const` field and a JavaScript or
-- TypeScript module's `const` in capitals were no definitions: `MERGE_MAX_LINES` or
-- `ZSTD_CLEVEL_DEFAULT` ranked the files that use the name above the one that sets it.
-- Search reads them for an exact name only (`SymbolKind::is_lookup_only`). Those languages'
-- contents are listed as version 13 listed C's: an index run that meets a file of one
-- computes it again (its chunks are cut the same way, so their vectors stay).
INSERT OR IGNORE INTO stale_definitions
    SELECT content_hash FROM content WHERE language IN ('rust', 'go', 'c', 'cpp', 'java', 'javascript',
                                                  'typescript', 'tsx', 'csharp');

-- The packs this clone pushed are in the older schema, which this build does not read: forget
-- which contents they hold, so that the next push uploads them again in this one.
DELETE FROM remote_packs;
