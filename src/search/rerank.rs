//! The second stage of a question's ranking, over the fused and merged spans. A question
//! ("stream log handler", "template rendering", "Logger") usually asks for a *file*, or
//! for the place a name is defined: so a file whose path says what the question says is
//! lifted, a file that several spans and retrievers point at outranks one lucky chunk, and
//! the span holding the definition of a name the question asks for is lifted most. Each
//! lift is a share of the best fused score, so it weighs the same whatever the fusion's
//! scale, and is scaled by the path prior as the fused score was. The values and their
//! reasons are in `search::params::rerank`.

use std::collections::{HashMap, HashSet};

use super::evidence::{self, Names};
use super::explain::Feature;
use super::filesize::Sizes;
use super::fusion::{sort_best_first, Source, Span};
use super::params::rerank as p;
use super::retrieve;
use crate::store::catalog::SymbolHit;
use crate::store::ChunkRef;

/// What the second stage knows of the question.
pub(super) struct Evidence<'a> {
    /// The question's words that can name a file (`evidence::keywords`).
    pub keywords: &'a [evidence::Keyword],
    /// The names it asks for.
    pub names: &'a Names,
    /// Definitions on the branch whose name is one of those names (or, for a name ending
    /// in `!` or `?` that nothing defines, the name without it).
    pub definitions: &'a [SymbolHit],
    /// A topic question naming a feature: a file's size weighs down its coherence
    /// (`search::filesize`).
    pub weighs_size: bool,
}

/// Re-rank `spans` (best first; `chunk_of_span` maps each member to its chunk) by the
/// evidence. `prior` is the path prior of a path: a test named like the question stays
/// below the code it tests; `sizes` the candidate files' sizes when [`Evidence::weighs_size`].
pub(super) fn rerank(
    spans: &mut [Span],
    chunk_of_span: &[ChunkRef],
    ev: &Evidence<'_>,
    prior: &dyn Fn(&str) -> f64,
    sizes: &Sizes,
) {
    let Some(top) = spans.first().map(|s| s.score) else {
        return;
    };
    let file_lift = file_lifts(spans, ev.keywords);
    let defined = Defined::of(ev.definitions);
    // A query that reads as a name (not a path), defined in some result, asks for a
    // definition: a file that holds none is not lifted for its name (`initializable.rb` for
    // `initialize!`), only for its matches (where the name is used), while among the files
    // that define it (`formatter` is specialised in every header) the name still says which
    // is the main one (`format.h`). A qualified name says which itself when a file named
    // after its qualifier defines it (`controller.ex` for `Phoenix.Controller.render/3`,
    // not `render_errors.ex`). Not when the lookup was cut at `MAX_NAMED` definitions: which
    // files define it is then arbitrary.
    let defines = |s: &Span| {
        s.members
            .iter()
            .filter_map(|&m| chunk_of_span.get(m))
            .any(|c| defined.holds(&c.content_hash))
    };
    let looked_up =
        ev.names.is_name && ev.definitions.len() < retrieve::MAX_NAMED && spans.iter().any(defines);
    let home = ev.names.qualifier.as_deref().filter(|q| {
        spans
            .iter()
            .any(|s| defines(s) && evidence::stem_is(&s.path, q))
    });
    let lifts_name =
        |s: &Span| !looked_up || (defines(s) && home.is_none_or(|q| evidence::stem_is(&s.path, q)));
    let mut lifted: HashSet<String> = HashSet::new();
    for s in spans.iter_mut() {
        let mut adds: Vec<(Feature, f64)> = Vec::new();
        // A file's lift goes to its best span only (spans arrive best first): its other
        // spans keep their own evidence, so they do not push other files' answers out.
        if lifted.insert(s.path.clone()) {
            let lift = file_lift.get(&s.path).copied().unwrap_or_default();
            // One factor for the value and for what `--explain` says of it.
            let size_factor = sizes.coherence_factor(&s.path);
            adds.extend([
                (
                    Feature::Coherence { size_factor },
                    lift.coherence * size_factor,
                ),
                (Feature::Module, lift.module),
            ]);
            if lifts_name(s) {
                adds.extend([
                    (Feature::PathWords, lift.path),
                    (Feature::TopicFile, lift.topic),
                ]);
            }
        }
        // The member holding the best-lifted definition, and that lift.
        let definition = s
            .members
            .iter()
            .enumerate()
            .filter_map(|(at, &m)| chunk_of_span.get(m).map(|c| (at, c)))
            .flat_map(|(at, c)| defined.in_chunk(c).map(move |d| (at, d)))
            .map(|(at, d)| (at, definition_lift(&s.path, d, ev.names)))
            .reduce(|a, b| if b.1 > a.1 { b } else { a });
        if let Some((at, d)) = definition {
            adds.push((Feature::Definition, d));
            // The definition is why the span ranks: it leads the members, so a hit cut to
            // its first member's definition (`search::trim`) keeps it.
            let member = s.members.remove(at);
            s.members.insert(0, member);
            if !s.sources.contains(&Source::Symbol) {
                s.sources.push(Source::Symbol);
                s.sources.sort();
            }
        }
        let scale = top * prior(&s.path);
        for (feature, lift) in adds {
            let add = lift * scale;
            s.score += add;
            s.why.add(feature, add);
        }
    }
    sort_best_first(spans);
}

/// The lift of each file, in shares of the best score: the share of the question's words
/// its path holds, whether it is named after the question's topic, and its share of the
/// best file's summed span scores.
fn file_lifts(spans: &[Span], keywords: &[evidence::Keyword]) -> HashMap<String, FileLift> {
    let mut sum: HashMap<String, f64> = HashMap::new();
    for s in spans {
        *sum.entry(s.path.clone()).or_default() += s.score;
    }
    let best = sum.values().copied().fold(0.0, f64::max);
    let inside = inside_modules(&sum);
    let words: HashMap<&str, Vec<String>> = sum
        .keys()
        .map(|path| (path.as_str(), evidence::path_words(path)))
        .collect();
    let all: Vec<&[String]> = words.values().map(Vec::as_slice).collect();
    let topic = evidence::topic(keywords, &all, p::TOPIC_MAX_SHARE);
    sum.iter()
        .map(|(path, &total)| {
            let share = |x: f64| if best > 0.0 { x / best } else { 0.0 };
            let under = inside.get(path).copied().unwrap_or(0.0);
            let named = words
                .get(path.as_str())
                .map_or(0.0, |w| evidence::share_held(keywords, w));
            let named = if named >= p::PATH_MIN_SHARE {
                named
            } else {
                0.0
            };
            let topical = topic.is_some_and(|t| evidence::named_after(t, path));
            let lift = FileLift {
                coherence: p::COHERENCE * share(total),
                module: p::COHERENCE * p::MODULE * share(under).min(1.0),
                path: p::PATH * named,
                topic: if topical { p::TOPIC_FILE } else { 0.0 },
            };
            (path.clone(), lift)
        })
        .collect()
}

/// A file's lift, in shares of the best score, by its evidence (coherence before a big
/// file's size weighs it down, `search::filesize`).
#[derive(Debug, Clone, Copy, Default)]
struct FileLift {
    /// For the spans that match in it.
    coherence: f64,
    /// For the spans that match in the directory it is the module of.
    module: f64,
    /// For the question's words its path holds.
    path: f64,
    /// For being named after the question's topic.
    topic: f64,
}

/// For each file that is the module of a directory beside it (`rails/railtie.rb` for
/// `rails/railtie/`, `serde_derive/src/de.rs` for `de/`, `Text/Pandoc/Class.hs` for
/// `Class/`), the summed scores of the spans in that directory's own files.
fn inside_modules(sum: &HashMap<String, f64>) -> HashMap<String, f64> {
    let mut inside: HashMap<String, f64> = HashMap::new();
    for (path, total) in sum {
        if let Some(module) = module_of(path).filter(|m| sum.contains_key(m)) {
            *inside.entry(module).or_default() += total;
        }
    }
    inside
}

/// The file that Ruby, Rust, Haskell, Elixir and Python's layouts make the module of a
/// file's directory: `a/foo/bar.rb` → `a/foo.rb` (same extension; only the nearest
/// directory, since a project's root module sits above everything and would be lifted by
/// any question).
fn module_of(path: &str) -> Option<String> {
    let (dir, name) = path.rsplit_once('/')?;
    let (_, ext) = name.rsplit_once('.')?;
    (!dir.is_empty()).then(|| format!("{dir}.{ext}"))
}

/// The lift of a span in `path` holding definition `d` of a name the query asks for: a
/// name asked for alone weighs more than one inside a sentence, more again in the file
/// named after it, and by what the definition is (`evidence::definition_weight`).
fn definition_lift(path: &str, d: &SymbolHit, names: &Names) -> f64 {
    let base = if names.whole_query {
        p::DEFINITION
    } else {
        p::DEFINITION_IN_SENTENCE
    };
    let lower = evidence::last_segment(&d.name).to_lowercase();
    // `router` found for `Router?` is still the name as the query wrote it.
    let written = names
        .names
        .iter()
        .position(|n| *n == lower || evidence::without_mark(n) == lower)
        .and_then(|i| names.written.get(i))
        .map_or(lower.as_str(), String::as_str);
    let lift = base * evidence::definition_weight(&d.kind, &d.name, written);
    // `Logger.php` for `pushHandler`, and for `Logger->pushHandler` too.
    let in_its_file = evidence::stem_is(path, &d.name)
        || names
            .qualifier
            .as_deref()
            .is_some_and(|q| evidence::stem_is(path, q));
    if in_its_file {
        lift * p::DEFINITION_IN_ITS_FILE
    } else {
        lift
    }
}

/// Definitions by content, for finding the ones a chunk holds.
struct Defined<'a> {
    by_content: HashMap<&'a str, Vec<&'a SymbolHit>>,
}

impl<'a> Defined<'a> {
    fn of(defs: &'a [SymbolHit]) -> Defined<'a> {
        let mut by_content: HashMap<&str, Vec<&SymbolHit>> = HashMap::new();
        for d in defs {
            by_content.entry(&d.content_hash).or_default().push(d);
        }
        Defined { by_content }
    }

    /// Whether the content `hash` defines any of the names.
    fn holds(&self, hash: &str) -> bool {
        self.by_content.contains_key(hash)
    }

    /// The definitions whose first line lies in chunk `c`.
    fn in_chunk(&self, c: &ChunkRef) -> impl Iterator<Item = &'a SymbolHit> + '_ {
        let (start, end) = (c.start_line, c.end_line);
        self.by_content
            .get(c.content_hash.as_str())
            .into_iter()
            .flatten()
            .filter(move |d| start <= d.start_line && d.start_line <= end)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(path: &str, score: f64, member: usize) -> Span {
        Span {
            path: path.into(),
            start: 1,
            end: 10,
            score,
            sources: vec![Source::Bm25],
            members: vec![member],
            why: Default::default(),
        }
    }

    fn chunk(hash: &str, start: u32, end: u32) -> ChunkRef {
        ChunkRef {
            row: 0,
            id: format!("{hash}:{start}"),
            content_hash: hash.into(),
            language: crate::lang::Language::Php,
            start_line: start,
            end_line: end,
        }
    }

    fn definition(hash: &str, name: &str, kind: &str, line: u32) -> SymbolHit {
        SymbolHit {
            content_hash: hash.into(),
            name: name.into(),
            kind: kind.into(),
            start_line: line,
            end_line: line + 50,
        }
    }

    fn ranked(q: &str, spans: &mut [Span], chunks: &[ChunkRef], defs: &[SymbolHit]) -> Vec<String> {
        let r = crate::search::reading::Reading::of(&crate::search::prepare(q).unwrap());
        let ev = Evidence {
            keywords: &r.keywords,
            names: &r.names,
            definitions: defs,
            weighs_size: false,
        };
        rerank(spans, chunks, &ev, &|_| 1.0, &Sizes::default());
        spans.iter().map(|s| s.path.clone()).collect()
    }

    #[test]
    fn a_files_name_counts_for_a_name_only_where_the_name_is_defined() {
        // (query, its definition's content and kind, [(path, score)] best first, the
        // expected first):
        // a file only named like the name does not outrank its definition; with no
        // definition among the results (`--path 'tests/**'` left it out) a file keeps the
        // lift for its name.
        let cases = [
            (
                "initialize!",
                ("application", "method"),
                [("lib/initializable.rb", 1.0), ("lib/application.rb", 0.2)],
                "lib/application.rb",
            ),
            (
                "Logger",
                ("elsewhere", "class"),
                [("tests/Util.php", 1.0), ("tests/LoggerTest.php", 0.5)],
                "tests/LoggerTest.php",
            ),
        ];
        for (query, (defined_in, kind), results, first) in cases {
            let chunks = vec![chunk("first", 1, 40), chunk("application", 1, 40)];
            let defs = vec![definition(defined_in, query, kind, 3)];
            let mut spans: Vec<Span> = results
                .iter()
                .enumerate()
                .map(|(i, (path, score))| span(path, *score, i))
                .collect();
            let order = ranked(query, &mut spans, &chunks, &defs);
            assert_eq!(order[0], first, "{query}: {order:?}");
        }
    }

    #[test]
    fn the_definition_of_the_name_asked_for_comes_first() {
        let chunks = vec![
            chunk("registry", 1, 40),
            chunk("registry", 41, 80),
            chunk("logger", 1, 40),
            chunk("produce", 1, 40),
        ];
        let defs = vec![
            definition("logger", "Logger", "class", 3),
            // A property of the same name in another case is a weaker answer.
            definition("produce", "logger", "property", 5),
        ];
        let mut spans = vec![
            span("src/Registry.php", 1.0, 0),
            span("src/Registry.php", 0.9, 1),
            span("src/Produce.php", 0.5, 3),
            span("src/Logger.php", 0.2, 2),
        ];
        let order = ranked("Logger", &mut spans, &chunks, &defs);
        assert_eq!(order[0], "src/Logger.php");
        assert!(spans[0].sources.contains(&Source::Symbol));
        // The property was lifted too, but by less than the class.
        let produce = spans.iter().find(|s| s.path == "src/Produce.php").unwrap();
        assert!(produce.sources.contains(&Source::Symbol));
        assert!(
            produce.score - 0.5 < (spans[0].score - 0.2) / 5.0,
            "{spans:?}"
        );
    }

    #[test]
    fn a_module_is_the_file_beside_its_directory() {
        assert_eq!(
            module_of("lib/rails/railtie/configuration.rb").as_deref(),
            Some("lib/rails/railtie.rb")
        );
        assert_eq!(
            module_of("src/de/enum_untagged.rs").as_deref(),
            Some("src/de.rs")
        );
        assert_eq!(module_of("top.rb"), None);
        assert_eq!(module_of("a/Makefile"), None);
    }

    #[test]
    fn a_module_whose_directory_answers_outranks_one_of_its_files() {
        // Without the module lift `railtie/configuration.rb` (two spans) stays first.
        let mut spans = vec![
            span("lib/railtie/configuration.rb", 1.0, 0),
            span("lib/railtie/configuration.rb", 0.4, 1),
            span("lib/railtie.rb", 0.95, 2),
            span("lib/other.rb", 0.8, 3),
        ];
        let chunks: Vec<ChunkRef> = (0..4).map(|i| chunk(&format!("h{i}"), 1, 10)).collect();
        assert_eq!(
            ranked("extension point", &mut spans, &chunks, &[])[0],
            "lib/railtie.rb"
        );
    }

    #[test]
    fn a_file_named_by_the_question_is_lifted_once_and_a_test_less() {
        let chunks: Vec<ChunkRef> = (0..4).map(|i| chunk("h", i * 10, i * 10 + 9)).collect();
        let mut spans = vec![
            span("src/Formatter/ScalarFormatter.php", 0.8, 0),
            span("src/Formatter/NormalizerFormatter.php", 0.6, 1),
            span("src/Formatter/NormalizerFormatter.php", 0.55, 2),
            span("src/Handler/Other.php", 0.58, 3),
        ];
        let order = ranked(
            "normalizer formatter for converting complex values",
            &mut spans,
            &chunks,
            &[],
        );
        assert_eq!(order[0], "src/Formatter/NormalizerFormatter.php");
        // Only the file's best span carries the file's lift.
        assert!(spans[1].score < spans[0].score);
        assert_eq!(order.iter().filter(|p| p.contains("Normalizer")).count(), 2);
        assert_ne!(order[1], "src/Formatter/NormalizerFormatter.php");
    }

    /// The first file for `q` over spans of `(path, score)`, one distinct chunk each.
    fn first_for(q: &str, files: &[(&str, f64)]) -> String {
        let chunks: Vec<ChunkRef> = (0..files.len())
            .map(|i| chunk(&format!("h{i}"), 1, 10))
            .collect();
        let mut spans: Vec<Span> = files
            .iter()
            .enumerate()
            .map(|(i, (path, score))| span(path, *score, i))
            .collect();
        ranked(q, &mut spans, &chunks, &[]).remove(0)
    }

    #[test]
    fn the_chunk_holding_a_named_definition_leads_its_span() {
        // A window of two chunks of `log.rs`: an `impl` that fused best, then the
        // `struct Logger` the query names. The struct's chunk now leads the members, so a
        // hit cut to its first member's definition (`search::trim`) keeps it.
        let chunks = vec![chunk("h", 60, 90), chunk("h", 1, 59)];
        let mut window = span("src/log.rs", 1.0, 0);
        window.members = vec![0, 1];
        let mut spans = vec![window, span("src/other.rs", 0.5, 0)];
        ranked(
            "Logger",
            &mut spans,
            &chunks,
            &[definition("h", "Logger", "struct", 1)],
        );
        assert_eq!(spans[0].path, "src/log.rs");
        assert_eq!(spans[0].members, vec![1, 0]);
    }

    #[test]
    fn a_topic_question_lifts_the_file_it_names() {
        // `pool.c`'s chunk answers best; `WorkQueue.h` has "queue" in its name, and a topic
        // question lifts the file it names. (A description of what one function does is not
        // re-ranked: the learned scorer weighs this evidence at 0 for it, `search::learned`.)
        let files = [
            ("lib/common/pool.c", 1.0),
            ("contrib/utils/WorkQueue.h", 0.8),
            ("lib/other.c", 0.5),
        ];
        assert_eq!(
            first_for("queue full or otherwise", &files),
            "contrib/utils/WorkQueue.h"
        );
    }

    #[test]
    fn the_file_named_after_the_topic_outranks_one_naming_more_words() {
        // `HTTPMediaType.swift` holds two of the question's words in its path,
        // `Response.swift` one; but "response" is what the question is about. Without the
        // topic lift the media type stays first.
        let files = [
            ("Sources/Vapor/HTTP/HTTPMediaType.swift", 0.8),
            ("Sources/Vapor/Response/Response.swift", 0.78),
            ("Sources/Vapor/Other/Other.swift", 0.5),
        ];
        assert_eq!(
            first_for("Response type and HTTP response construction", &files),
            "Sources/Vapor/Response/Response.swift"
        );
    }
}
