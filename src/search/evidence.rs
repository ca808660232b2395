//! What a question's words say about a *file* rather than about its text: the words of its
//! path (`StreamHandler.php`, `features/hover.zig`, `templating.py`) and the names the
//! question spells as identifiers (`Logger`, `Sinatra::Base`, `nvm_find_project_dir`). A
//! file is usually named after what it holds, and a name is usually asked for to find the
//! place that defines it. Pure functions, tested here; `search::rerank` applies them.

use super::query::{is_stop_word, Query};
use crate::lang::SymbolKind;
use crate::text::words::{singular, split_identifier};

/// The words a path says about its file: the whole file stem and its identifier parts, and
/// the same for its parent directory, lower-case and singular (`src/flask/templating.py`
/// → `templating`, `flask`; `Handler/StreamHandler.php` → `streamhandler`, `stream`,
/// `handler`). Only the nearest directory counts: the ones above it name the project or
/// the layer and are shared by every file beside it.
pub fn path_words(path: &str) -> Vec<String> {
    let mut parts = path.rsplit('/');
    let name = parts.next().unwrap_or(path);
    let stem = file_stem(name);
    let mut out = Vec::new();
    for piece in std::iter::once(stem).chain(parts.next()) {
        push_words(&mut out, piece);
    }
    out.sort();
    out.dedup();
    out
}

/// The file name without its extensions (`Application+HTTP.swift` → `Application+HTTP`,
/// `phx.gen.html.ex` → `phx`, `.bashrc` → `.bashrc`).
pub fn file_stem(name: &str) -> &str {
    match name.find('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    }
}

/// `s` lower-case with only its letters and digits (`HTTPMediaType+Name` →
/// `httpmediatypename`, `async_job` → `asyncjob`): how a whole name compares with a word.
fn squashed(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Push the lower-case, singular words of one path component: the whole and its parts.
fn push_words(out: &mut Vec<String>, piece: &str) {
    let whole = squashed(piece);
    if whole.chars().count() > 1 {
        out.push(singular(&whole));
    }
    for part in split_identifier(piece) {
        if part.chars().count() > 1 {
            out.push(singular(&part));
        }
    }
}

/// A question's word that can name a file (`keywords`).
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword {
    /// Lower-case, singular, letters and digits only.
    pub word: String,
    /// Written as one identifier of several words (`JsonToken`, `ZSTD_CCtx_s`): a path word
    /// that is only its first part (`json/`, `zstd_trace.h`) does not hold it.
    pub compound: bool,
}

/// The words of a question that can name a file: every token, whole (an identifier is not
/// split: `JsonWriter` names `JsonWriter.cs`, not every `Json*` file), lower-case and
/// singular, at least three characters, no stop words. Repeats count once.
pub fn keywords(q: &Query) -> Vec<Keyword> {
    let mut out: Vec<Keyword> = Vec::new();
    for tok in &q.tokens {
        let name = last_segment(tok);
        let w = squashed(name);
        if w.chars().count() >= 3 && !is_stop_word(&w) {
            let word = singular(&w);
            let parts = split_identifier(name);
            let compound = parts.iter().filter(|p| p.chars().count() > 1).count() > 1;
            if !out.iter().any(|k| k.word == word) {
                out.push(Keyword { word, compound });
            }
        }
    }
    out
}

/// Whether a query word and a path word are the same word, allowing a different ending:
/// one a prefix of the other (`alias`/`aliases`, `format`/`formatter`), or sharing all but
/// the last two letters of the shorter (`templating`/`template`, `writing`/`writer`). A
/// shared part of fewer than three letters is never enough.
pub fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    common >= 3 && (common == shorter || common + 2 >= shorter && common >= 4)
}

/// The share of `keywords` that one of a path's `words` (`path_words`) matches (0 when
/// there are none).
pub fn share_held(keywords: &[Keyword], words: &[String]) -> f64 {
    if keywords.is_empty() {
        return 0.0;
    }
    let hit = keywords.iter().filter(|k| holds(words, k)).count();
    hit as f64 / keywords.len() as f64
}

/// Whether one of a path's `words` is `keyword`; a shorter word is only a compound's part.
fn holds(words: &[String], keyword: &Keyword) -> bool {
    let k = &keyword.word;
    words
        .iter()
        .any(|w| same_word(k, w) && !(keyword.compound && w.len() < k.len()))
}

/// The question's topic: its first keyword that at most `max_share` of the candidate
/// files hold in their path words (`path_words`, one list per file). A question names what
/// it is about first ("Response type and HTTP response construction", "reducer type
/// definition", "how async_job runs a command"); a word that most candidates' paths hold
/// names the project or the part every answer sits in ("how Phoenix Endpoint supervises
/// …", with most files in `lib/phoenix/`), so the next word is the topic. Among one or two
/// candidates every word some path holds is too common: a topic needs files to choose from.
pub fn topic<'k>(keywords: &'k [Keyword], paths: &[&[String]], max_share: f64) -> Option<&'k str> {
    let most = max_share * paths.len() as f64;
    keywords
        .iter()
        .find(|k| paths.iter().filter(|ws| holds(ws, k)).count() as f64 <= most)
        .map(|k| k.word.as_str())
}

/// Whether a file is named after `word`: its whole stem is that word, a different ending
/// allowed as in [`same_word`] as long as the shorter of the two holds two thirds of the
/// longer's letters (`Response.swift` for `response`, `reducers.ts` for `reducer`,
/// `templating.py` for `template`, `formatter.py` for `format`, `async_job.lua` for
/// `asyncjob`; not `HTTPMediaType.swift` for `type`, and not `mod.rs` for `module` or
/// `__init__.py` for `initialization`, which `same_word` alone takes as the same word).
pub fn named_after(word: &str, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = singular(&squashed(file_stem(name)));
    let (a, b) = (word.chars().count(), stem.chars().count());
    b >= 3 && 3 * a.min(b) >= 2 * a.max(b) && same_word(word, &stem)
}

/// The last part of a qualified name: `Sinatra::Base` → `Base`, `Phoenix.Channel` →
/// `Channel`, `Picker:find` → `find`, `a->b` → `b`, `App\Http\Kernel` → `Kernel`.
pub fn last_segment(name: &str) -> &str {
    name.rsplit([':', '.', '\\', '>'])
        .find(|s| !s.is_empty())
        .unwrap_or(name)
}

/// A name without the `!` or `?` that ends a Ruby method's name (`save!`, `empty?`), which
/// elsewhere is punctuation (`Router?`).
pub fn without_mark(name: &str) -> &str {
    name.strip_suffix(['!', '?']).unwrap_or(name)
}

/// A query that is one qualified name as some language writes it: `Sinatra::Base`,
/// `Phoenix.Controller.render/3`, `Picker:find`, `Logger->pushHandler`,
/// `Monolog\Handler\StreamHandler`, `Gson#toJson`, `(*Command).Execute`, `initialize!`,
/// `toJson()`. Its segments, outermost first, without a call's parentheses or an Elixir
/// arity; a Ruby method keeps its `!` or `?`. `None` when a segment is not an identifier
/// (a `/` path, a URL, `$var`, `a-b`) or the name is shorter than two characters (`Foo#x`,
/// `Foo::!`). A file name reads as one (`config.toml`: `toml` in `config`), as it did
/// before these notations.
pub fn qualified_name(raw: &str) -> Option<Vec<&str>> {
    let mut text = raw.trim().trim_matches('`');
    if let Some(open) = text.rfind('(').filter(|_| text.ends_with(')')) {
        text = &text[..open];
    }
    if let Some((head, arity)) = text.rsplit_once('/') {
        if arity.is_empty() || !arity.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text = head;
    }
    // Go writes a method with its receiver: `(*Command).Execute`.
    let segments: Vec<&str> = text
        .split([':', '.', '\\', '#'])
        .flat_map(|s| s.split("->"))
        .map(|s| s.trim_matches(['(', ')', '*']))
        .filter(|s| !s.is_empty())
        .collect();
    let word = |s: &str| s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let (last, outer) = segments.split_last()?;
    let name = without_mark(last);
    let named = name.chars().count() >= 2 && word(name);
    (named && outer.iter().all(|s| word(s))).then_some(segments)
}

/// How a question asks for names.
#[derive(Debug, Clone, PartialEq)]
pub struct Names {
    /// Lower-case names whose definitions to lift (last segments of qualified names).
    pub names: Vec<String>,
    /// The same names as the query writes them.
    pub written: Vec<String>,
    /// Whether the whole query is the name (`Router`, `Sinatra::Base`): its definition
    /// should come first. Otherwise the names sit inside a sentence and weigh less.
    pub whole_query: bool,
    /// Whether the whole query reads as a name ([`qualified_name`]), not merely one word
    /// (a path, `foo-bar`): only then does it ask for a definition and nothing else.
    pub is_name: bool,
    /// The segment before the name in a query that is one qualified name (`Controller` in
    /// `Phoenix.Controller.render/3`): the file named after it is where to look first.
    pub qualifier: Option<String>,
}

/// The names a question asks for. For a one-word query, its last segment as a qualified
/// name (`Logger`, `serde::Deserialize` → `deserialize`, `Logger->pushHandler` →
/// `pushhandler`, `bats_load_library`, `formatter`) when the query's own tokens hold that
/// name (`Logger在哪里` is a sentence without spaces), else its first token's last segment.
/// Otherwise the tokens of the sentence written as code (`defineConfig`,
/// `nvm_find_project_dir`, `Picker:find`, `JsonWriter`, a capitalised word after the first:
/// `how Application configures`).
pub fn names(q: &Query) -> Names {
    let one = q.raw.split_whitespace().count() == 1;
    let mut out: Vec<String> = Vec::new();
    let mut written: Vec<String> = Vec::new();
    let mut push = |tok: &str| {
        let n = last_segment(tok).to_lowercase();
        if n.chars().count() >= 2 && !out.contains(&n) {
            out.push(n);
            written.push(last_segment(tok).to_string());
        }
    };
    if one {
        let segments = qualified_name(&q.raw).filter(|s| {
            let name = s.last().map_or("", |n| without_mark(n));
            q.tokens
                .iter()
                .any(|t| last_segment(t).eq_ignore_ascii_case(name))
        });
        match segments.as_deref() {
            Some([.., name]) => push(name),
            _ => {
                if let Some(tok) = q.tokens.first() {
                    push(tok);
                }
            }
        }
        return Names {
            names: out,
            written,
            whole_query: true,
            is_name: segments.is_some(),
            qualifier: segments.and_then(|s| s.iter().rev().nth(1).map(|q| q.to_lowercase())),
        };
    }
    let first = q.raw.split_whitespace().next().unwrap_or("");
    for tok in &q.tokens {
        if looks_like_code(tok) || (tok.as_str() != first && capitalised(tok)) {
            push(tok);
        }
    }
    Names {
        names: out,
        written,
        whole_query: false,
        is_name: false,
        qualifier: None,
    }
}

/// Written as code: camelCase or PascalCase with an inner capital, snake_case, qualified.
fn looks_like_code(tok: &str) -> bool {
    let inner_upper = tok.chars().skip(1).any(char::is_uppercase);
    let has_lower = tok.chars().any(char::is_lowercase);
    tok.contains('_') || tok.contains(':') || tok.contains('.') || (inner_upper && has_lower)
}

/// A capitalised word (`Application`), not an all-capitals one (`HTTP`, `JSON`), which
/// is more often an acronym of prose than a type.
fn capitalised(tok: &str) -> bool {
    let mut chars = tok.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.any(char::is_lowercase)
}

/// How much a definition of `kind` named `name` answers a query that writes the name as
/// `written`: a type or module more than a function, a function more than a property or
/// constant of that name (`Channel` asks for `interface Channel`, not `val channel`) but for
/// a constant's name written in its capitals (`MAX_DEPTH`), the type itself more than an
/// extension of it, and a name written with capitals is matched in its case first.
pub fn definition_weight(kind: &SymbolKind, name: &str, written: &str) -> f64 {
    use SymbolKind as K;
    let kind = match kind {
        K::Class | K::Interface | K::Module | K::Enum | K::Type | K::Object => 1.0,
        K::Function | K::Method | K::Macro => 0.8,
        // `extension Application` adds to a type defined elsewhere.
        K::Extension => 0.5,
        // `MAX_DEPTH` written as its constant defines it asks for that constant.
        K::Constant
            if last_segment(name) == written && !written.chars().any(char::is_lowercase) =>
        {
            1.0
        }
        K::Constant | K::Property => 0.4,
        // Kinds other grammars name (read from a database another build wrote).
        K::Other(o) => match o.as_str() {
            "struct" | "trait" | "protocol" | "record" | "namespace" | "union" => 1.0,
            "constructor" => 0.8,
            _ => 0.4,
        },
    };
    let case = if written.chars().any(char::is_uppercase) && last_segment(name) != written {
        0.5
    } else {
        1.0
    };
    kind * case
}

/// Whether a file's stem is the name (`Logger.php` for `logger`, `channel.ex` for
/// `Channel`, `routes.rb` for `Route`, `http_server.go` for `HttpServer`).
pub fn stem_is(path: &str, name: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = squashed(file_stem(file));
    let name = squashed(name);
    !name.is_empty() && (stem == name || singular(&stem) == singular(&name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::prepare;

    #[test]
    fn a_path_says_its_stem_and_its_directory() {
        assert_eq!(
            path_words("src/Monolog/Handler/StreamHandler.php"),
            ["handler", "stream", "streamhandler"]
        );
        assert_eq!(path_words("templating.py"), ["templating"]);
        assert_eq!(
            path_words("src/features/semantic_tokens.zig"),
            ["feature", "semantic", "semantictoken", "token"]
        );
    }

    #[test]
    fn words_with_other_endings_are_the_same_word() {
        for (a, b) in [
            ("template", "templating"),
            ("alias", "aliase"),
            ("format", "formatter"),
            ("writing", "writer"),
            ("handler", "handling"),
            ("hover", "hover"),
        ] {
            assert!(same_word(a, b), "{a} {b}");
        }
        for (a, b) in [("stream", "string"), ("log", "lo"), ("parse", "part")] {
            assert!(!same_word(a, b), "{a} {b}");
        }
    }

    #[test]
    fn the_share_of_question_words_a_path_holds() {
        let q = prepare("stream log handler writes to files and streams").unwrap();
        let k = keywords(&q);
        let held = |k: &[Keyword], path: &str| share_held(k, &path_words(path));
        let stream = held(&k, "src/Monolog/Handler/StreamHandler.php");
        let other = held(&k, "src/Monolog/Formatter/LineFormatter.php");
        assert!(stream > 0.3 && other == 0.0, "{stream} {other}");
        let q = prepare("alias handling for field names").unwrap();
        assert!(held(&keywords(&q), "pydantic/aliases.py") > 0.0);
        // An identifier's first word is not the identifier: `json/` does not hold `JsonToken`.
        let k = keywords(&prepare("JsonToken").unwrap());
        assert_eq!(held(&k, "core/json/ReaderBasedJsonParser.java"), 0.0);
        assert_eq!(held(&k, "core/JsonToken.java"), 1.0);
        assert_eq!(held(&k, "zstd/lib/zstd_trace.h"), 0.0);
        assert_eq!(
            held(
                &keywords(&prepare("async_logger").unwrap()),
                "async_logger-inl.h"
            ),
            1.0
        );
    }

    #[test]
    fn names_are_the_whole_query_or_the_code_in_a_sentence() {
        let n = names(&prepare("Sinatra::Base").unwrap());
        assert_eq!(n.names, ["base"]);
        assert!(n.whole_query);
        let n = names(&prepare("formatter").unwrap());
        assert_eq!(n.names, ["formatter"]);
        let n = names(&prepare("how Picker:find opens a floating window").unwrap());
        assert_eq!(n.names, ["find"]);
        assert!(!n.whole_query);
        let n = names(&prepare("How Application configures HTTP and defineConfig").unwrap());
        assert_eq!(n.names, ["application", "defineconfig"]);
        assert!(stem_is("Sources/Vapor/Application.swift", "Application"));
        assert!(stem_is("lib/phoenix/channel.ex", "channel"));
        assert!(stem_is("pkg/http_server.go", "HttpServer"));
        assert!(!stem_is("src/Monolog/Registry.php", "Logger"));
    }

    #[test]
    fn a_qualified_name_in_each_language_asks_for_its_last_segment() {
        for (query, name, qualifier) in [
            ("Sinatra::Base", "base", Some("sinatra")),
            ("Phoenix.Controller.render/3", "render", Some("controller")),
            ("Picker:find", "find", Some("picker")),
            ("Logger->pushHandler", "pushhandler", Some("logger")),
            (
                "Monolog\\Handler\\StreamHandler",
                "streamhandler",
                Some("handler"),
            ),
            ("Gson#toJson", "tojson", Some("gson")),
            ("(*Command).Execute", "execute", Some("command")),
            ("(*Command).Execute()", "execute", Some("command")),
            (
                "Rails::Application#initialize!",
                "initialize!",
                Some("application"),
            ),
            ("toJson()", "tojson", None),
            ("empty?", "empty?", None),
            ("Router", "router", None),
        ] {
            let n = names(&prepare(query).unwrap());
            assert_eq!(n.names, [name], "{query}");
            assert_eq!(n.qualifier.as_deref(), qualifier, "{query}");
            assert!(n.whole_query && n.is_name, "{query}");
        }
        assert_eq!(qualified_name("src/search/rank.rs"), None);
        assert_eq!(qualified_name("https://example.com"), None);
        assert_eq!(qualified_name("a-b"), None);
        assert_eq!(qualified_name("$logger"), None);
        assert_eq!(qualified_name("Foo::!"), None);
        assert_eq!(qualified_name("Foo#x"), None);
        // Not a name: the first token, as before, and no name-only ranking.
        for (query, name) in [
            ("Logger在哪里", "logger"),
            ("$logger", "logger"),
            ("Foo#x", "foo"),
        ] {
            let n = names(&prepare(query).unwrap());
            assert_eq!(n.names, [name], "{query}");
            assert!(!n.is_name && n.qualifier.is_none(), "{query}");
        }
    }

    #[test]
    fn the_topic_is_the_first_word_not_every_path_holds() {
        let kw = |q: &str| keywords(&crate::search::prepare(q).unwrap());
        let paths: Vec<Vec<String>> = [
            "lib/phoenix.ex",
            "lib/phoenix/endpoint.ex",
            "lib/phoenix/router.ex",
            "lib/phoenix/socket.ex",
        ]
        .iter()
        .map(|p| path_words(p))
        .collect();
        let paths: Vec<&[String]> = paths.iter().map(Vec::as_slice).collect();
        let words = kw("how Phoenix Endpoint supervises the HTTP server");
        assert_eq!(topic(&words, &paths, 0.35), Some("endpoint"));
        let words = kw("reducer type definition");
        assert_eq!(topic(&words, &paths, 0.35), Some("reducer"));
        assert_eq!(topic(&[], &paths, 0.35), None);
    }

    #[test]
    fn a_file_named_after_a_word_is_its_whole_stem() {
        assert!(named_after(
            "response",
            "Sources/Vapor/Response/Response.swift"
        ));
        assert!(named_after("reducer", "src/types/reducers.ts"));
        assert!(named_after("asyncjob", "lua/telescope/async_job.lua"));
        assert!(!named_after(
            "type",
            "Sources/Vapor/HTTP/HTTPMediaType.swift"
        ));
        assert!(!named_after("reducer", "src/combineReducers.ts"));
        assert!(!named_after("response", "src/re.rs"));
        assert!(named_after("template", "src/flask/templating.py"));
        assert!(named_after("format", "src/formatter.py"));
        assert!(!named_after("async", "lua/async_job.lua"));
        assert!(!named_after("module", "src/mod.rs"));
        assert!(!named_after("initialization", "pkg/__init__.py"));
        assert!(!named_after("response", "src/res.rs"));
        assert!(!named_after("application", "src/app.py"));
    }
}
