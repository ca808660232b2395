; Definitions in Scala (the grammar's tags.scm is not exported by its crate, and tags every
; local `val`). The first pattern that matches a name wins: members before functions.

(trait_definition
  name: (identifier) @name) @definition.interface

(enum_definition
  name: (identifier) @name) @definition.enum

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.object

(template_body
  [
    (function_definition name: (identifier) @name)
    (function_declaration name: (identifier) @name)
  ] @definition.method)

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

; Values of an object, a class or a file, not local ones.
(template_body
  [
    (val_definition pattern: (identifier) @name)
    (var_definition pattern: (identifier) @name)
    (val_declaration name: (identifier) @name)
    (var_declaration name: (identifier) @name)
  ] @definition.property)

(compilation_unit
  [
    (val_definition pattern: (identifier) @name)
    (var_definition pattern: (identifier) @name)
  ] @definition.property)

(type_definition
  name: (type_identifier) @name) @definition.type
