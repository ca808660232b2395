; Definitions in PHP. The grammar's own tags query calls methods functions and has no
; enums; a namespace is named by its last part (`Monolog\Handler` → `Handler`).

(namespace_definition
  name: (namespace_name (name) @name .)) @definition.module

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.interface

(enum_declaration
  name: (name) @name) @definition.enum

(class_declaration
  name: (name) @name) @definition.class

(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

(property_declaration
  (property_element
    name: (variable_name (name) @name))) @definition.property

(const_declaration
  (const_element (name) @name)) @definition.constant
