//! Definitions in each language with a grammar but no test of its own in `symbols`: the
//! names, kinds and first lines a small, realistic file of the language gives, so a grammar
//! update or a query edit that loses or misplaces a definition fails here.

use super::symbols::Tagger;
use crate::store::catalog::Symbol;

/// Each definition's (name, kind, first line), in order.
fn outline(syms: &[Symbol]) -> Vec<(&str, &str, u32)> {
    syms.iter()
        .map(|s| (s.name.as_str(), s.kind.as_str(), s.start_line))
        .collect()
}

#[test]
fn ruby_modules_classes_and_methods() {
    let src = r#"module Sinatra
  # The base of every app.
  class Base
    def call(env)
      dup.call!(env)
    end

    def self.settings
      self
    end
  end

  class Sinatra::Application < Base
  end
end
"#;
    let syms = Tagger::default().symbols("ruby", src);
    assert_eq!(
        outline(&syms),
        [
            ("Sinatra", "module", 1),
            ("Base", "class", 3),
            ("call", "method", 4),
            ("settings", "method", 8),
            ("Application", "class", 13),
        ],
    );
    let base = &syms[1];
    assert_eq!(base.doc.as_deref(), Some("The base of every app."));
    assert_eq!(base.end_line, 11);
}

#[test]
fn php_classes_interfaces_traits_and_methods() {
    let src = r#"<?php

namespace Monolog;

interface LoggerInterface
{
    public function log($level, string $message): void;
}

trait ProcessableHandlerTrait
{
}

enum Level: int
{
    case Debug = 100;
}

class Logger implements LoggerInterface
{
    public const API = 3;

    private string $name;

    public function addRecord(int $level, string $message): bool
    {
        return true;
    }
}

function helper(): void
{
}
"#;
    let syms = Tagger::default().symbols("php", src);
    assert_eq!(
        outline(&syms),
        [
            ("Monolog", "module", 3),
            ("LoggerInterface", "interface", 5),
            ("log", "method", 7),
            ("ProcessableHandlerTrait", "interface", 10),
            ("Level", "enum", 14),
            ("Logger", "class", 19),
            ("API", "constant", 21),
            ("name", "property", 23),
            ("addRecord", "method", 25),
            ("helper", "function", 31),
        ],
    );
}

#[test]
fn csharp_types_methods_and_properties() {
    let src = r#"namespace Newtonsoft.Json
{
    public interface IJsonLineInfo
    {
        bool HasLineInfo();
    }

    public struct JsonPosition
    {
        public int Position;
    }

    public enum Formatting { None, Indented }

    public record Person(string Name);

    public class JsonWriter : IDisposable
    {
        public Formatting Formatting { get; set; }

        public void WriteStartObject()
        {
        }
    }
}
"#;
    let syms = Tagger::default().symbols("csharp", src);
    assert_eq!(
        outline(&syms),
        [
            ("Json", "module", 1),
            ("IJsonLineInfo", "interface", 3),
            ("HasLineInfo", "method", 5),
            ("JsonPosition", "class", 8),
            ("Formatting", "enum", 13),
            ("Person", "class", 15),
            ("JsonWriter", "class", 17),
            ("Formatting", "property", 19),
            ("WriteStartObject", "method", 21),
        ],
    );
    assert_eq!(syms[6].end_line, 24);
}

#[test]
fn kotlin_classes_objects_and_functions() {
    let src = r#"package kotlinx.coroutines.flow

interface Flow<out T> {
    suspend fun collect(collector: FlowCollector<T>)
}

class SafeFlow<T>(private val block: suspend FlowCollector<T>.() -> Unit) : Flow<T> {
    val size: Int = 0

    override suspend fun collect(collector: FlowCollector<T>) {
        val local = 1
    }
}

enum class BufferOverflow { SUSPEND, DROP_OLDEST }

fun <T> flow(block: suspend FlowCollector<T>.() -> Unit): Flow<T> = SafeFlow(block)

object Dispatchers {
    val Default: CoroutineDispatcher = createDefaultDispatcher()
}

typealias CompletionHandler = (cause: Throwable?) -> Unit
"#;
    let syms = Tagger::default().symbols("kotlin", src);
    assert_eq!(
        outline(&syms),
        [
            ("Flow", "interface", 3),
            ("collect", "method", 4),
            ("SafeFlow", "class", 7),
            ("size", "property", 8),
            ("collect", "method", 10),
            ("BufferOverflow", "enum", 15),
            ("flow", "function", 17),
            ("Dispatchers", "object", 19),
            ("Default", "property", 20),
            ("CompletionHandler", "type", 23),
        ],
    );
}

#[test]
fn scala_traits_objects_classes_and_defs() {
    let src = r#"package cats.effect

trait Monad[F[_]] {
  def pure[A](a: A): F[A]
}

object IO {
  val unit: IO[Unit] = pure(())
  def pure[A](a: A): IO[A] = Pure(a)
}

sealed abstract class IO[+A] {
  def flatMap[B](f: A => IO[B]): IO[B] = {
    val next = f
    FlatMap(this, next)
  }
}

enum Outcome {
  case Succeeded, Errored
}

type Id[A] = A
"#;
    let syms = Tagger::default().symbols("scala", src);
    assert_eq!(
        outline(&syms),
        [
            ("Monad", "interface", 3),
            ("pure", "method", 4),
            ("IO", "object", 7),
            ("unit", "property", 8),
            ("pure", "method", 9),
            ("IO", "class", 12),
            ("flatMap", "method", 13),
            ("Outcome", "enum", 19),
            ("Id", "type", 23),
        ],
    );
}

#[test]
fn swift_classes_protocols_extensions_and_funcs() {
    let src = r#"import Foundation

public final class Application {
    public var environment: Environment

    public func run() throws {
        let started = Date()
    }
}

public struct Request {
    public let method: HTTPMethod
}

public protocol Responder {
    func respond(to request: Request) -> EventLoopFuture<Response>
}

extension Request {
    public var body: Body { Body(self) }
}

public enum HTTPMethod {
    case GET
}

public func routes(_ app: Application) throws {
}

public typealias Handler = (Request) -> Response
"#;
    let syms = Tagger::default().symbols("swift", src);
    assert_eq!(
        outline(&syms),
        [
            ("Application", "class", 3),
            ("environment", "property", 4),
            ("run", "method", 6),
            ("Request", "class", 11),
            ("method", "property", 12),
            ("Responder", "interface", 15),
            ("respond", "method", 16),
            ("Request", "extension", 19),
            ("body", "property", 20),
            ("HTTPMethod", "enum", 23),
            ("routes", "function", 27),
            ("Handler", "type", 30),
        ],
    );
    // A method's range is its own, not its type's.
    let run = &syms[2];
    assert_eq!((run.start_line, run.end_line), (6, 8));
}

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
    let syms = Tagger::default().symbols("elixir", src);
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
    let syms = Tagger::default().symbols("haskell", src);
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
    let syms = Tagger::default().symbols("lua", src);
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
    let syms = Tagger::default().symbols("zig", src);
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
    let syms = Tagger::default().symbols("shell", src);
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
    let syms = Tagger::default().symbols("r", src);
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
