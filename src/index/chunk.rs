//! Cutting file text into chunks with exact line ranges: `text-splitter`'s CodeSplitter at
//! syntax boundaries for languages with a grammar, its MarkdownSplitter for markdown, and
//! its TextSplitter for the rest. Sizes are cl100k token counts, estimated by
//! [`crate::text::tokens`] (exact tiktoken BPE on every candidate section cost ~80% of indexing).

use std::collections::HashMap;

use text_splitter::{ChunkConfig, CodeSplitter, MarkdownSplitter, TextSplitter};

use crate::text::lang::{self, Splitting};
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
    code: HashMap<&'static str, Option<CodeSplitter<Sizer>>>,
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

    /// Split `text` (of `language`) into chunks, in order, with exact line ranges.
    pub fn chunk(&mut self, language: &'static str, text: &str) -> Vec<Chunk> {
        let pieces: Vec<(usize, &str)> = match lang::splitting(language) {
            Splitting::Code => {
                let max = self.max_tokens;
                let splitter = self.code.entry(language).or_insert_with(|| {
                    lang::grammar(language).and_then(|g| CodeSplitter::new(g, config(max)).ok())
                });
                match splitter {
                    Some(s) => s.chunk_indices(text).collect(),
                    None => self.text.chunk_indices(text).collect(),
                }
            }
            Splitting::Markdown => self.markdown.chunk_indices(text).collect(),
            Splitting::Text => self.text.chunk_indices(text).collect(),
        };
        with_lines(text, &pieces)
    }
}

/// Attach 1-based line ranges to (byte offset, text) pieces, in one pass over the text.
fn with_lines(text: &str, pieces: &[(usize, &str)]) -> Vec<Chunk> {
    let bytes = text.as_bytes();
    let mut line = 1u32;
    let mut pos = 0usize;
    let mut out = Vec::with_capacity(pieces.len());
    for (offset, piece) in pieces {
        let piece = piece.trim_end();
        if piece.trim().is_empty() {
            continue;
        }
        if *offset >= pos {
            line += count_newlines(&bytes[pos..*offset]);
        } else {
            line = 1 + count_newlines(&bytes[..*offset]);
        }
        pos = *offset;
        let start = line;
        let end = start + count_newlines(piece.as_bytes());
        out.push(Chunk {
            start_line: start,
            end_line: end,
            text: piece.to_string(),
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
        let chunks = c.chunk("rust", &src);
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
    fn syntax_boundaries_are_kept() {
        let src = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n";
        let mut c = Chunker::new(8);
        let chunks = c.chunk("python", src);
        assert!(
            chunks.iter().any(|c| c.text.starts_with("def beta")),
            "{chunks:?}"
        );
    }

    #[test]
    fn plain_text_and_markdown_fall_back() {
        let md = "# Title\n\nSome words here.\n\n## Second\n\nMore words.\n";
        let mut c = Chunker::new(8);
        assert!(!c.chunk("markdown", md).is_empty());
        assert!(!c.chunk("ruby", "puts 'hi'\n").is_empty());
    }
}
