; Definitions tree-sitter-go's tags query leaves out, added to it (`Language::tags_query`):
; its `const_spec` pattern captures the name but no definition, so a constant was never
; found where `const DebugMode = "debug"` sets it. Search reads constants for an exact name
; only (`SymbolKind::is_lookup_only`).
(const_spec
  name: (identifier) @name) @definition.constant
