; Definitions tree-sitter-java's tags query leaves out, added to it (`Language::tags_query`):
; an enum, a record or an annotation type is looked up by its name as a class is
; (`JsonToken` is `public enum JsonToken`).
(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.class

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

; A `static final` field is Java's constant (`MAX_DEPTH`), looked up by its name; search reads
; constants for an exact name only (`SymbolKind::is_lookup_only`).
(field_declaration
  (modifiers) @ignore
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @ignore "static")
  (#match? @ignore "final")) @definition.constant
