//! Definitions in languages of classes and methods: Ruby, PHP, C#, Kotlin, Scala, Swift, C++.

use super::{outline, spans};
use crate::lang::language::Language;
use crate::lang::symbols::Tagger;

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
    let syms = Tagger::default().symbols(Language::Ruby, src);
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
    let syms = Tagger::default().symbols(Language::Php, src);
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
    let syms = Tagger::default().symbols(Language::CSharp, src);
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
    let syms = Tagger::default().symbols(Language::Kotlin, src);
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
    let syms = Tagger::default().symbols(Language::Scala, src);
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
    let syms = Tagger::default().symbols(Language::Swift, src);
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
fn cpp_methods_and_functions_span_their_bodies() {
    let src = "namespace fmt {\nclass buffer {\n public:\n  size_t size() const {\n    return size_;\n  }\n  void push(char c);\n};\n\nvoid buffer::push(char c) {\n  data_[size_++] = c;\n}\n\ntemplate <typename T>\nconst T &first(const T &a,\n               const T &b) {\n  return a;\n}\n}  // namespace fmt\n";
    let syms = Tagger::default().symbols(Language::Cpp, src);
    assert_eq!(
        spans(&syms),
        [
            ("buffer", "class", 2, 8),
            ("size", "function", 4, 6),
            ("push", "function", 7, 7),
            ("push", "method", 10, 12),
            ("first", "function", 14, 18)
        ]
    );
}

#[test]
fn java_enums_records_and_annotation_types_are_definitions() {
    let src = r#"package com.example;

/** The kinds of token a parser returns. */
public enum JsonToken {
    START_OBJECT,
    END_OBJECT;

    public boolean isStructStart() { return this == START_OBJECT; }
}

record Point(int x, int y) {}

@interface Marker {}

class Parser {
    JsonToken next() { return null; }
}
"#;
    let syms = Tagger::default().symbols(Language::Java, src);
    assert_eq!(
        outline(&syms),
        [
            ("JsonToken", "enum", 4),
            ("isStructStart", "method", 8),
            ("Point", "class", 11),
            ("Marker", "interface", 13),
            ("Parser", "class", 15),
            ("next", "method", 16),
        ],
    );
    assert_eq!(syms[0].end_line, 9);
}

#[test]
fn typescript_type_aliases_and_enums_are_definitions() {
    let src = "export type Reducer<S> = (state: S) => S;\n\nexport enum Direction {\n  Up,\n  Down,\n}\n\ninterface Store {}\n";
    let syms = Tagger::default().symbols(Language::TypeScript, src);
    assert_eq!(
        outline(&syms),
        [
            ("Reducer", "type", 1),
            ("Direction", "enum", 3),
            ("Store", "interface", 8),
        ],
    );
}

#[test]
fn a_cpp_class_behind_an_export_macro_is_named_by_its_own_name() {
    let src = "namespace spdlog {\nclass thread_pool;\n\nclass SPDLOG_API async_logger final : public std::enable_shared_from_this<async_logger>,\n                                      public logger {\n    friend class details::thread_pool;\n\npublic:\n    async_logger(std::string name);\n    void flush_();\n};\n\nstruct SPDLOG_API source_loc {\n    int line;\n};\n}  // namespace spdlog\n";
    let syms = Tagger::default().symbols(Language::Cpp, src);
    // Not `SPDLOG_API` twice, and not the declaration `class thread_pool;`.
    assert_eq!(
        spans(&syms),
        [
            ("async_logger", "class", 4, 11),
            ("async_logger", "function", 9, 9),
            ("flush_", "function", 10, 10),
            ("source_loc", "class", 13, 15),
        ]
    );
    assert!(syms[0]
        .signature
        .starts_with("class SPDLOG_API async_logger final"));
}
