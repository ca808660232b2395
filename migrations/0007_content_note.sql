-- Why a content was indexed differently from its language (NULL: it was not), e.g.
-- "indexed as plain text: brackets nest 4001 deep"; shown by `status --verbose`.
ALTER TABLE content ADD COLUMN note TEXT;
