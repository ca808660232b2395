; Definitions in Elixir: calls of `defmodule`, `def`, `defmacro`, … The grammar's own tags
; query calls them all modules or functions. An alias is one token (`Phoenix.Channel`);
; `text::lang::symbol_name` keeps its last part.

(call
  target: (identifier) @ignore
  (arguments (alias) @name)
  (#eq? @ignore "defmodule")) @definition.module

(call
  target: (identifier) @ignore
  (arguments (alias) @name)
  (#eq? @ignore "defprotocol")) @definition.interface

(call
  target: (identifier) @ignore
  (arguments
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator
        left: (call target: (identifier) @name)
        operator: "when")
    ])
  (#any-of? @ignore "defmacro" "defmacrop")) @definition.macro

(call
  target: (identifier) @ignore
  (arguments
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator
        left: (call target: (identifier) @name)
        operator: "when")
    ])
  (#any-of? @ignore "def" "defp" "defdelegate" "defguard" "defguardp" "defn" "defnp")) @definition.function
