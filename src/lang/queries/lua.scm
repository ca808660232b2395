; Definitions in Lua. The grammar's own tags query gives a function in a table constructor
; (`{ mount = function() … end }`) the range of the whole table. A dotted or method name
; is named by its last part (`function M.setup()` → `setup`, `function Picker:find()` →
; `find`).

(function_declaration
  name: [
    (identifier) @name
    (dot_index_expression
      field: (identifier) @name)
  ]) @definition.function

(function_declaration
  name: (method_index_expression
    method: (identifier) @name)) @definition.method

(assignment_statement
  (variable_list
    .
    name: [
      (identifier) @name
      (dot_index_expression
        field: (identifier) @name)
    ])
  (expression_list
    .
    value: (function_definition))) @definition.function

(table_constructor
  (field
    name: (identifier) @name
    value: (function_definition)) @definition.function)
