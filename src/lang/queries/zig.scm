; Definitions in Zig (the grammar ships no tags query). A type is a constant bound to a
; container: `const Server = struct { … }`.

(variable_declaration
  (identifier) @name
  [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.class

(variable_declaration
  (identifier) @name
  [(enum_declaration) (error_set_declaration)]) @definition.enum

(struct_declaration
  (function_declaration
    name: (identifier) @name) @definition.method)

(union_declaration
  (function_declaration
    name: (identifier) @name) @definition.method)

(enum_declaration
  (function_declaration
    name: (identifier) @name) @definition.method)

(opaque_declaration
  (function_declaration
    name: (identifier) @name) @definition.method)

(function_declaration
  name: (identifier) @name) @definition.function
