; Definitions in shell scripts (the grammar ships no tags query): `f() { … }` and
; `function f { … }`.

(function_definition
  name: (word) @name) @definition.function
