; Definitions in Swift. The grammar's own tags query gives a method the range of its whole
; class. `class_declaration` is also struct, enum, actor and extension; the first pattern
; that matches a name wins.

(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @name .)) @definition.extension

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

(class_declaration
  name: (type_identifier) @name) @definition.class

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(class_body
  (function_declaration
    name: (simple_identifier) @name) @definition.method)

(enum_class_body
  (function_declaration
    name: (simple_identifier) @name) @definition.method)

(protocol_body
  (protocol_function_declaration
    name: (simple_identifier) @name) @definition.method)

(function_declaration
  name: (simple_identifier) @name) @definition.function

; Properties of a type or a file, not local variables.
(source_file
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(enum_class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(protocol_body
  (protocol_property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(typealias_declaration
  name: (type_identifier) @name) @definition.type
