; A module's `const` in capitals (`const DEFAULT_CARD_WIDTH = 287`, exported or not) is
; JavaScript's and TypeScript's constant, looked up by its name; search reads constants for an
; exact name only (`SymbolKind::is_lookup_only`). Only capitals: every module's
; `const logger = require(...)` would make it a definition of `logger` in each. A function
; assigned to a `const` is a function by the grammar's own pattern, which comes first.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant)

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant))
