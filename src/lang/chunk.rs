//! Cutting file text into chunks with exact line ranges: `text-splitter`'s CodeSplitter at
//! syntax boundaries for languages with a grammar, its MarkdownSplitter for markdown, and
//! its TextSplitter for the rest. Sizes are cl100k token counts, estimated by
//! [`crate::text::tokens`] (exact tiktoken BPE on every candidate section cost ~80% of indexing).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use text_splitter::{ChunkConfig, CodeSplitter, MarkdownSplitter, TextSplitter};

use super::language::Language;
use super::table::Splitting;
use crate::text::tokens::ApproxTokens;

/// A piece of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// The text of those lines (trimmed of surrounding white space).
    pub text: String,
}

type Sizer = ApproxTokens;

/// Reusable splitters (one per language), for one thread.
pub struct Chunker {
    max_tokens: usize,
    code: HashMap<Language, Option<CodeSplitter<Sizer>>>,
    markdown: MarkdownSplitter<Sizer>,
    text: TextSplitter<Sizer>,
}

fn config(max_tokens: usize) -> ChunkConfig<Sizer> {
    ChunkConfig::new(max_tokens).with_sizer(ApproxTokens)
}

impl Chunker {
    /// A chunker whose chunks hold at most `max_tokens` tokens.
    pub fn new(max_tokens: usize) -> Chunker {
        Chunker {
            max_tokens,
            code: HashMap::new(),
            markdown: MarkdownSplitter::new(config(max_tokens)),
            text: TextSplitter::new(config(max_tokens)),
        }
    }

    /// Split `text` (of `language`) into chunks, in order, with exact line ranges. Tests
    /// only: the index splits under a time bound (`chunk_within`).
    #[cfg(test)]
    pub fn chunk(&mut self, language: Language, text: &str) -> Vec<Chunk> {
        self.chunk_within(language, text, split_time(text.len())).0
    }

    /// [`Chunker::chunk`], but when splitting takes longer than `limit` the whole text is
    /// cut in windows of [`WINDOW_LINES`] lines; the flag says it was. Real files (not only
    /// crafted ones) can make the splitter's search for boundaries slow enough to hold a
    /// whole index run on one file. The whole text, not the rest of it: how far the splitter
    /// got depends on how busy the machine was, and the chunks must not.
    pub fn chunk_within(
        &mut self,
        language: Language,
        text: &str,
        limit: Duration,
    ) -> (Vec<Chunk>, bool) {
        let started = Instant::now();
        let (mut pieces, over) = match language.splitting() {
            Splitting::Code => {
                let max = self.max_tokens;
                let splitter = self.code.entry(language).or_insert_with(|| {
                    language
                        .grammar()
                        .and_then(|g| CodeSplitter::new(g, config(max)).ok())
                });
                match splitter {
                    Some(s) => until(s.chunk_indices(text), started, limit),
                    None => until(self.text.chunk_indices(text), started, limit),
                }
            }
            Splitting::Markdown => until(self.markdown.chunk_indices(text), started, limit),
            Splitting::Text => until(self.text.chunk_indices(text), started, limit),
        };
        if over {
            pieces = windows(text);
        }
        (with_lines(text, &pieces), over)
    }
}

/// The pieces `iter` gives until `limit` has passed since `started`; whether it had.
fn until<'t>(
    iter: impl Iterator<Item = (usize, &'t str)>,
    started: Instant,
    limit: Duration,
) -> (Vec<(usize, &'t str)>, bool) {
    let mut pieces = Vec::new();
    for piece in iter {
        pieces.push(piece);
        if started.elapsed() > limit {
            return (pieces, true);
        }
    }
    (pieces, false)
}

/// How long splitting a small file may take before it is cut in line windows instead.
pub const SPLIT_TIME: Duration = Duration::from_secs(5);
/// More time per KiB of a file (5 ms): a large file's splitting takes time in proportion
/// to its size, and a fixed bound made its chunks depend on how busy the machine was (a
/// 0.9 MB `json.hpp` splits in about 2 s on an idle machine here, and was cut in windows on
/// a busy one, changing search results between two builds of the same index). Its bound is
/// now about 9 s, four times its need; a file the splitter is slow on whatever its size
/// (fmt's 0.8 MB `gtest.h` takes over 13 s) costs that much more before it is cut. A file
/// whose splitting takes about its bound can still come out either way.
pub const SPLIT_TIME_PER_KIB: Duration = Duration::from_millis(5);

/// The longest any one file's splitting may take (a 5 MB file reaches it): a file must not
/// hold a whole index run, whatever its size.
pub const MAX_SPLIT_TIME: Duration = Duration::from_secs(30);

/// How long splitting a file of `len` bytes may take: [`SPLIT_TIME`], plus
/// [`SPLIT_TIME_PER_KIB`] for each KiB, at most [`MAX_SPLIT_TIME`].
pub fn split_time(len: usize) -> Duration {
    let kib = u32::try_from(len / 1024).unwrap_or(u32::MAX);
    SPLIT_TIME
        .saturating_add(SPLIT_TIME_PER_KIB.saturating_mul(kib))
        .min(MAX_SPLIT_TIME)
}
/// Lines per window when splitting took too long.
pub const WINDOW_LINES: usize = 50;

/// The text in pieces of [`WINDOW_LINES`] lines.
fn windows(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .match_indices('\n')
            .nth(WINDOW_LINES - 1)
            .map_or(text.len(), |(i, _)| start + i + 1);
        out.push((start, &text[start..end]));
        start = end;
    }
    out
}

/// Attach 1-based line ranges to (byte offset, text) pieces, in one pass over the text, and
/// widen each piece to whole lines. The splitter cuts at syntax boundaries, which can fall
/// inside a line (`fn f() -> u32` | `{`): a chunk shown to a user must not end or start in
/// the middle of one, and two chunks must not share a line. So a piece starts at the start
/// of its first line (or after the line the previous chunk ended on) and ends at the end of
/// its last line; a piece left with nothing is part of the chunk before it.
fn with_lines(text: &str, pieces: &[(usize, &str)]) -> Vec<Chunk> {
    let bytes = text.as_bytes();
    let mut line = 1u32;
    let mut pos = 0usize;
    // Where the text the previous chunk took ends (a line start, or the text's end).
    let mut taken = 0usize;
    let mut out: Vec<Chunk> = Vec::with_capacity(pieces.len());
    for (offset, piece) in pieces {
        let piece = piece.trim_end();
        if piece.trim().is_empty() {
            continue;
        }
        let line_start = bytes[..*offset]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let piece_end = offset + piece.len();
        let line_end = bytes[piece_end..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(bytes.len(), |i| piece_end + i);
        let from = line_start.max(taken);
        if from >= line_end {
            continue;
        }
        let whole = text[from..line_end].trim_end();
        taken = (line_end + 1).min(bytes.len());
        if whole.trim().is_empty() {
            continue;
        }
        if from >= pos {
            line += count_newlines(&bytes[pos..from]);
        } else {
            line = 1 + count_newlines(&bytes[..from]);
        }
        pos = from;
        out.push(Chunk {
            start_line: line,
            end_line: line + count_newlines(whole.as_bytes()),
            text: whole.to_string(),
        });
    }
    out
}

fn count_newlines(b: &[u8]) -> u32 {
    b.iter().filter(|&&c| c == b'\n').count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_are_exact() {
        let src: String = (0..200)
            .map(|i| format!("fn function_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n\n"))
            .collect();
        let mut c = Chunker::new(64);
        let chunks = c.chunk(Language::Rust, &src);
        assert!(chunks.len() > 5);
        let lines: Vec<&str> = src.lines().collect();
        for ch in &chunks {
            let expected = lines[ch.start_line as usize - 1..ch.end_line as usize].join("\n");
            assert_eq!(
                expected.trim(),
                ch.text.trim(),
                "chunk {}-{}",
                ch.start_line,
                ch.end_line
            );
        }
        // Chunks are in order and do not overlap.
        for w in chunks.windows(2) {
            assert!(w[0].end_line < w[1].start_line);
        }
    }

    #[test]
    fn a_cut_inside_a_line_widens_to_whole_lines() {
        let text = "/// Doc.\npub fn f() -> u32 {\n    1\n}\nfn g() {}\n";
        let sig = text.find("{").unwrap();
        let pieces = [
            (0, &text[..sig - 1]),
            (sig, &text[sig..text.find("fn g").unwrap()]),
            (text.find("fn g").unwrap(), "fn g() {}"),
        ];
        let chunks = with_lines(text, &pieces);
        assert_eq!(chunks[0].text, "/// Doc.\npub fn f() -> u32 {");
        assert_eq!((chunks[0].start_line, chunks[0].end_line), (1, 2));
        assert_eq!(chunks[1].text, "    1\n}");
        assert_eq!((chunks[1].start_line, chunks[1].end_line), (3, 4));
        assert_eq!(chunks[2].text, "fn g() {}");
        assert_eq!((chunks[2].start_line, chunks[2].end_line), (5, 5));
        // A piece inside a line another chunk took is part of that chunk.
        let one_line = "let a = 1; let b = 2;\nlet c = 3;";
        let chunks = with_lines(
            one_line,
            &[(0, "let a = 1;"), (11, "let b = 2;"), (22, "let c = 3;")],
        );
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["let a = 1; let b = 2;", "let c = 3;"]);
    }

    #[test]
    fn splitting_past_its_time_cuts_the_whole_file_in_line_windows() {
        let src: String = (0..400)
            .map(|i| format!("fn function_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n\n"))
            .collect();
        let mut c = Chunker::new(64);
        let (chunks, over) = c.chunk_within(Language::Rust, &src, Duration::ZERO);
        assert!(over);
        // Windows of WINDOW_LINES lines from the first line to the last, whatever the
        // splitter gave before its time was up.
        assert_eq!(chunks, with_lines(&src, &windows(&src)));
        let lines = src.trim_end().lines().count() as u32;
        assert_eq!(chunks[0].start_line, 1);
        assert_eq!(chunks.last().unwrap().end_line, lines);
        for w in chunks.windows(2) {
            assert!(w[0].end_line < w[1].start_line, "{w:?}");
        }
        assert!(chunks
            .iter()
            .all(|c| c.end_line - c.start_line < WINDOW_LINES as u32));
        let (_, over) = c.chunk_within(Language::Rust, &src, Duration::from_secs(60));
        assert!(!over);
    }

    #[test]
    fn a_larger_file_may_take_longer_to_split() {
        assert_eq!(split_time(0), SPLIT_TIME);
        assert_eq!(split_time(1023), SPLIT_TIME);
        assert_eq!(
            split_time(1 << 20),
            SPLIT_TIME + Duration::from_millis(5 * 1024)
        );
        assert_eq!(split_time(100 << 20), MAX_SPLIT_TIME);
        assert_eq!(split_time(usize::MAX), MAX_SPLIT_TIME);
    }

    #[test]
    fn syntax_boundaries_are_kept() {
        let src = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n";
        let mut c = Chunker::new(8);
        let chunks = c.chunk(Language::Python, src);
        assert!(
            chunks.iter().any(|c| c.text.starts_with("def beta")),
            "{chunks:?}"
        );
    }

    #[test]
    fn every_grammar_cuts_before_a_second_top_level_definition() {
        // (language, a first definition, a second one)
        let cases = [
            (
                Language::Php,
                "<?php\nfunction alpha() {\n    return 1;\n}",
                "function beta() {\n    return 2;\n}",
            ),
            (Language::Ruby, "def alpha\n  1\nend", "def beta\n  2\nend"),
            (
                Language::CSharp,
                "class Alpha\n{\n    int A() { return 1; }\n}",
                "class Beta\n{\n    int B() { return 2; }\n}",
            ),
            (
                Language::Kotlin,
                "fun alpha(): Int {\n    return 1\n}",
                "fun beta(): Int {\n    return 2\n}",
            ),
            (
                Language::Scala,
                "object Alpha {\n  def a = 1\n}",
                "object Beta {\n  def b = 2\n}",
            ),
            (
                Language::Swift,
                "func alpha() -> Int {\n    return 1\n}",
                "func beta() -> Int {\n    return 2\n}",
            ),
            (
                Language::Elixir,
                "defmodule Alpha do\n  def a, do: 1\nend",
                "defmodule Beta do\n  def b, do: 2\nend",
            ),
            (
                Language::Haskell,
                "alpha :: Int\nalpha = 1",
                "beta :: Int\nbeta = 2",
            ),
            (
                Language::Lua,
                "local function alpha()\n  return 1\nend",
                "local function beta()\n  return 2\nend",
            ),
            (
                Language::Zig,
                "fn alpha() u32 {\n    return 1;\n}",
                "fn beta() u32 {\n    return 2;\n}",
            ),
            (
                Language::Shell,
                "alpha() {\n  echo 1\n}",
                "beta() {\n  echo 2\n}",
            ),
            (
                Language::R,
                "alpha <- function(x) {\n  x + 1\n}",
                "beta <- function(x) {\n  x + 2\n}",
            ),
        ];
        let mut c = Chunker::new(8);
        for (language, first, second) in cases {
            let chunks = c.chunk(language, &format!("{first}\n\n{second}\n"));
            // Cut by the grammar, not by the plain-text fallback.
            assert!(matches!(c.code.get(&language), Some(Some(_))), "{language}");
            let head = second.lines().next().unwrap();
            assert!(
                chunks.iter().any(|c| c.text.starts_with(head)),
                "{language}: {chunks:?}"
            );
            assert!(
                !chunks
                    .iter()
                    .any(|c| c.text.to_lowercase().contains("alpha")
                        && c.text.to_lowercase().contains("beta")),
                "{language}: {chunks:?}"
            );
        }
    }

    #[test]
    fn plain_text_and_markdown_fall_back() {
        let md = "# Title\n\nSome words here.\n\n## Second\n\nMore words.\n";
        let mut c = Chunker::new(8);
        assert!(!c.chunk(Language::Markdown, md).is_empty());
        assert!(!c.chunk(Language::Yaml, "a: 1\n").is_empty());
    }
}
