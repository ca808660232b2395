-- A question's definitions stage reads every definition of the hundred or so contents its
-- retrievers found (content hash, name, kind, lines). An index that holds those columns, in
-- line order, answers it without reading a table row per definition. It replaces the index
-- on the content hash alone, whose lookups it serves as well.
DROP INDEX IF EXISTS snippets_by_hash;
CREATE INDEX snippets_by_hash ON snippets (content_hash, start_line, name, kind, end_line);
