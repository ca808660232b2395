; Definitions tree-sitter-c's and tree-sitter-cpp's tags queries leave out, added to them
; (`Language::tags_query`): an object-like macro (`#define ZSTD_CLEVEL_DEFAULT 3`) and an
; enumerator (`ZSTD_e_end`) are the constants of C, looked up by their names. Search reads
; constants for an exact name only (`SymbolKind::is_lookup_only`). A function-like macro stays out:
; as a definition it answered descriptions in every language's words.
(preproc_def
  name: (identifier) @name) @definition.constant

(enumerator
  name: (identifier) @name) @definition.constant
