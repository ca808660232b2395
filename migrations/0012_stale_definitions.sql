-- git-codesearch schema, version 12: contents whose definitions an older build read wrong.
-- Until this version a C or C++ function's definition was its declarator's line alone (the
-- grammars' tags queries capture `f(int a)`, not the function around it): the search cut
-- hits to that line, and a doc comment above a return type on its own line was missed. The
-- contents computed before are listed here; an index run that meets a file of one computes
-- it again (its chunks are cut the same way, so their vectors stay), and the row goes. Until
-- then a search shows it as before.
CREATE TABLE stale_definitions (
    content_hash TEXT PRIMARY KEY
) WITHOUT ROWID;
INSERT INTO stale_definitions SELECT content_hash FROM content WHERE language IN ('c', 'cpp');

-- The packs this clone pushed are in the older schema, which this build does not read: forget
-- which contents they hold, so that the next push uploads them again in this one (and a
-- teammate on this version can pull them).
DELETE FROM remote_packs;
