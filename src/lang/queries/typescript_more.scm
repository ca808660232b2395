; Definitions tree-sitter-typescript's tags query leaves out, added to it
; (`Language::tags_query`): a type alias and an enum are looked up by their names as an
; interface is (`type Reducer<S, A> = ...`, `enum Direction { ... }`).
(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum
