-- git-codesearch schema, version 6: check again the files skipped for a long line.
-- Until this version one line over the limit (a lookup table in a hand-written C file, a long
-- help string) made a whole file junk; now such lines must be a tenth of its lines. Nothing
-- else changes: forgetting the stat of those rows makes the next index run read and check
-- them again (the stat cache only trusts rows whose size and mtime match the file).
UPDATE catalog SET mtime_ns = 0 WHERE skip_reason LIKE 'line of %';
