; Definitions tree-sitter-rust's tags query leaves out, added to it (`Language::tags_query`):
; a `const` or `static` item is looked up by its name (`MERGE_MAX_LINES`), though its name
; says what value it holds, not what code does: search reads constants for an exact name
; only (`SymbolKind::is_lookup_only`).
(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant
