; Definitions in C#. The grammar's own tags query has a capture tree-sitter-tags refuses
; (`@module`) and no structs, records, enums or properties. A namespace is named by its
; last part (`Newtonsoft.Json` → `Json`).

(namespace_declaration
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @definition.module

(file_scoped_namespace_declaration
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @definition.module

(class_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(property_declaration
  name: (identifier) @name) @definition.property

; A `const` field is C#'s constant (`public const int DefaultMaxDepth = 64`), looked up by its
; name; search reads constants for an exact name only (`SymbolKind::is_lookup_only`).
(field_declaration
  (modifier) @ignore
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))
  (#eq? @ignore "const")) @definition.constant
