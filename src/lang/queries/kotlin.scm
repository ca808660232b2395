; Definitions in Kotlin (the grammar ships no tags query). The first pattern that matches a
; name wins, so the specific ones (interface, enum, member function) come first.

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  name: (identifier) @name
  (enum_class_body)) @definition.enum

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.object

(companion_object
  name: (identifier) @name) @definition.object

(class_body
  (function_declaration
    name: (_) @name) @definition.method)

(enum_class_body
  (function_declaration
    name: (_) @name) @definition.method)

(function_declaration
  name: (_) @name) @definition.function

; Properties of a file or a class, not local variables.
(source_file
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.property)

(class_body
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.property)

(type_alias
  type: (identifier) @name) @definition.type
