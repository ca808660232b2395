; Top-level definitions in Haskell (the grammar ships no tags query). A function's type
; signature and each of its equations are tags of one name; `Tagger` merges them.

(header
  module: (module (module_id) @name .)) @definition.module

(declarations
  [
    (data_type name: (name) @name)
    (newtype name: (name) @name)
  ] @definition.class)

(declarations
  [
    (type_synonym name: (name) @name)
    (type_family name: (name) @name)
  ] @definition.type)

(declarations
  (class name: (name) @name) @definition.interface)

(class_declarations
  (signature name: (variable) @name) @definition.method)

(declarations
  [
    (signature name: (variable) @name)
    (function name: (variable) @name)
    (bind name: (variable) @name)
  ] @definition.function)
