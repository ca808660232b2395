//! Definitions in languages of modules and functions: Elixir, Haskell, Lua, Zig, shell, R, C.

use super::{outline, spans};
use crate::lang::language::Language;
use crate::lang::symbols::Tagger;

#[test]
fn elixir_modules_and_function_clauses() {
    let src = r#"defmodule Phoenix.Channel do
  @moduledoc "Channels"

  defmacro __using__(opts) do
    quote do
    end
  end

  def join(topic, payload, socket) when is_binary(topic) do
    {:ok, socket}
  end

  def join(_topic, _payload, socket), do: {:error, socket}

  defp reply_ref(socket), do: socket.ref
end

defprotocol Phoenix.Param do
  def to_param(term)
end
"#;
    let syms = Tagger::default().symbols(Language::Elixir, src);
    assert_eq!(
        outline(&syms),
        [
            ("Channel", "module", 1),
            ("__using__", "macro", 4),
            ("join", "function", 9),
            ("reply_ref", "function", 15),
            ("Param", "interface", 18),
            ("to_param", "function", 19),
        ],
    );
    // The two clauses of `join/3` are one symbol, and the whole alias is in the signature.
    let join = syms.iter().find(|s| s.name == "join").unwrap();
    assert_eq!((join.start_line, join.end_line), (9, 13));
    assert!(syms[0].signature.starts_with("defmodule Phoenix.Channel"));
}

#[test]
fn haskell_top_level_types_classes_and_functions() {
    let src = r#"module Text.Pandoc.Readers.Markdown (readMarkdown) where

import Data.Text (Text)

-- | A block of text.
data Block = Para [Inline] | Plain [Inline]

newtype Parser a = Parser (Text -> a)

type Attr = (Text, [Text])

class Walkable a where
  walk :: (a -> a) -> a -> a

-- | Read markdown into Pandoc.
readMarkdown :: ReaderOptions -> Text -> Pandoc
readMarkdown opts s = parse opts s
  where
    parse o t = undefined

isHruleChar '*' = True
isHruleChar _ = False
"#;
    let syms = Tagger::default().symbols(Language::Haskell, src);
    assert_eq!(
        outline(&syms),
        [
            ("Markdown", "module", 1),
            ("Block", "class", 6),
            ("Parser", "class", 8),
            ("Attr", "type", 10),
            ("Walkable", "interface", 12),
            ("walk", "method", 13),
            ("readMarkdown", "function", 16),
            ("isHruleChar", "function", 21),
        ],
    );
    // The signature and the equation are one symbol, from the signature on; `parse` in a
    // `where` is local.
    let read = syms.iter().find(|s| s.name == "readMarkdown").unwrap();
    assert_eq!((read.start_line, read.end_line), (16, 19));
    assert!(read.signature.starts_with("readMarkdown ::"));
    assert_eq!(read.doc.as_deref(), Some("Read markdown into Pandoc."));
    let hrule = syms.iter().find(|s| s.name == "isHruleChar").unwrap();
    assert_eq!(hrule.end_line, 22);
}

#[test]
fn lua_functions_methods_and_table_fields() {
    let src = r#"local Picker = {}
Picker.__index = Picker

--- Finds the results.
function Picker:find()
  return self
end

local function helper()
  return 1
end

function M.setup(opts)
end

M.reset = function() end

local actions = {
  close = function(bufnr) end,
}

return Picker
"#;
    let syms = Tagger::default().symbols(Language::Lua, src);
    assert_eq!(
        outline(&syms),
        [
            ("find", "method", 5),
            ("helper", "function", 9),
            ("setup", "function", 13),
            ("reset", "function", 16),
            ("close", "function", 19),
        ],
    );
    assert_eq!(syms[0].doc.as_deref(), Some("Finds the results."));
    assert_eq!(syms[0].end_line, 7);
}

#[test]
fn zig_containers_and_functions() {
    let src = r#"const std = @import("std");

pub const Server = struct {
    port: u16,

    pub fn init(port: u16) Server {
        return .{ .port = port };
    }
};

const Color = enum { red, green };

pub fn main() !void {
    const server = Server.init(8080);
    _ = server;
}
"#;
    let syms = Tagger::default().symbols(Language::Zig, src);
    assert_eq!(
        outline(&syms),
        [
            ("Server", "class", 3),
            ("init", "method", 6),
            ("Color", "enum", 11),
            ("main", "function", 13),
        ],
    );
    assert_eq!(syms[0].end_line, 9);
}

#[test]
fn shell_functions_in_both_forms() {
    let src = r#"#!/usr/bin/env bash
set -e

# Loads a library.
bats_load_library() {
  local library_name=$1
  source "$library_name"
}

function foo {
  echo foo
}

function nvm_ls() {
  echo
}
"#;
    let syms = Tagger::default().symbols(Language::Shell, src);
    assert_eq!(
        outline(&syms),
        [
            ("bats_load_library", "function", 5),
            ("foo", "function", 10),
            ("nvm_ls", "function", 14),
        ],
    );
    // A comment above is a doc; the shebang is not.
    assert_eq!(syms[0].doc.as_deref(), Some("Loads a library."));
}

#[test]
fn r_functions_bound_by_either_arrow() {
    let src = r#"library(readr)

#' Read a CSV file.
#' @param file A path.
read_csv <- function(file, col_names = TRUE) {
  helper <- function(x) x
  helper(file)
}

summarise = function(df) {
  nrow(df)
}

"%||%" <- function(a, b) if (is.null(a)) b else a
"#;
    let syms = Tagger::default().symbols(Language::R, src);
    assert_eq!(
        outline(&syms),
        [
            ("read_csv", "function", 5),
            ("helper", "function", 6),
            ("summarise", "function", 10),
            ("\"%||%\"", "function", 14),
        ],
    );
    assert_eq!(
        syms[0].doc.as_deref(),
        Some("Read a CSV file.\n@param file A path.")
    );
    assert_eq!(syms[0].end_line, 8);
}

#[test]
fn c_functions_span_their_bodies_and_prototypes_their_line() {
    let src = "/* Returns the frame's size. */\nstatic size_t\nframe_size(const char *src,\n           size_t n)\n{\n    return n;\n}\n\nchar *dup_name(const char *s) {\n    return 0;\n}\n\nint prototype(int a);\n";
    let syms = Tagger::default().symbols(Language::C, src);
    assert_eq!(
        spans(&syms),
        [
            ("frame_size", "function", 2, 7),
            ("dup_name", "function", 9, 11),
            ("prototype", "function", 13, 13)
        ]
    );
    // The return type's line starts the definition, so its doc comment is found.
    assert_eq!(syms[0].doc.as_deref(), Some("Returns the frame's size."));
    assert!(syms[0].signature.starts_with("frame_size("), "{syms:?}");
}
