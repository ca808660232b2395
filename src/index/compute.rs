//! The work an index run does for one new file, on a worker thread: read it, hash the bytes
//! actually read, filter junk, chunk at syntax boundaries (bounded in time) and extract
//! symbols and whole-file terms.

use std::cell::RefCell;

use super::crashed::{self, Ledger};
use super::plan::{Plan, Scanned};
use super::walk::WalkedFile;
use crate::config::IndexConfig;
use crate::lang::chunk::Chunker;
use crate::lang::symbols::Tagger;
use crate::lang::Language;
use crate::lang::{guard, quality};
use crate::store::catalog::ComputedContent;
use crate::store::ChunkRow;

/// The result of computing one file.
pub(super) struct Computed {
    pub(super) scanned: Scanned,
    pub(super) content: Option<ComputedContent>,
    pub(super) chunks: Vec<ChunkRow>,
}

impl Computed {
    /// If the file changed since it was scanned, make its catalog row match what we stored.
    pub(super) fn fix_catalog(&self, plan: &mut Plan) {
        if let Some(row) = plan
            .update
            .upsert
            .iter_mut()
            .find(|r| r.path == self.scanned.rel)
        {
            if row.content_hash != self.scanned.content_hash
                || row.skip_reason != self.scanned.skip_reason
            {
                row.content_hash = self.scanned.content_hash.clone();
                row.skip_reason = self.scanned.skip_reason.clone();
                row.size = self.scanned.size;
            }
        }
    }
}

thread_local! {
    static TOOLS: RefCell<Option<(usize, Chunker, Tagger)>> = const { RefCell::new(None) };
}

/// Run `f` with this thread's chunker (of `chunk_tokens`) and tagger, built on first use
/// and kept across files: building them compiles every grammar's queries.
pub(super) fn with_tools<R>(
    chunk_tokens: usize,
    f: impl FnOnce(&mut Chunker, &mut Tagger) -> R,
) -> R {
    TOOLS.with(|t| {
        let mut t = t.borrow_mut();
        if t.as_ref().map(|(n, _, _)| *n) != Some(chunk_tokens) {
            *t = Some((chunk_tokens, Chunker::new(chunk_tokens), Tagger::default()));
        }
        let (_, chunker, tagger) = t.as_mut().expect("just set");
        f(chunker, tagger)
    })
}

/// Read, hash, filter, chunk and tag one file. The hash is taken from the bytes actually
/// chunked, so chunks always match the content hash they are stored under even if the file
/// changed since it was scanned. The tree-sitter work is recorded in `ledger` while it runs,
/// and content whose parse killed an earlier run gets none (see `crashed`).
pub(super) fn compute_one(f: &WalkedFile, cfg: &IndexConfig, ledger: &Ledger) -> Computed {
    let mut scanned = Scanned {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        content_hash: String::new(),
        skip_reason: None,
    };
    let skip = |mut scanned: Scanned, reason: quality::SkipReason| {
        scanned.skip_reason = Some(reason.to_string());
        Computed {
            scanned,
            content: None,
            chunks: Vec::new(),
        }
    };
    let bytes = match f.read(cfg.max_file_size) {
        Ok(b) => b,
        Err(reason) => return skip(scanned, reason),
    };
    scanned.size = bytes.len() as u64;
    scanned.content_hash = crate::util::sha256_hex(&bytes);
    let text = match quality::check(&bytes, cfg) {
        Ok(t) => t,
        Err(reason) => return skip(scanned, reason),
    };
    let language = Language::of_path(&f.rel);
    let crashed_before = ledger.crashed(&scanned.content_hash);
    // From here to the end of chunking, a crash of a grammar leaves this record behind.
    let parsing = (!crashed_before).then(|| ledger.begin(&scanned.content_hash, &f.rel));
    #[cfg(debug_assertions)]
    if !crashed_before {
        crashed::crash_for_tests(text);
    }
    // C and C++ export macros blanked out for the grammar (`lang::export_macro`).
    let parsed = crate::lang::export_macro::blanked(language, text);
    let (tree, mut note) = if crashed_before {
        (None, Some(crashed::NOTE.to_string()))
    } else {
        match guard::check(language, &parsed) {
            Ok(tree) => (tree, None),
            Err(reason) => (None, Some(reason)),
        }
    };
    // Over a bound: cut as plain text, no symbols (see `guard`).
    let cut_as = if note.is_some() {
        Language::Text
    } else {
        language
    };
    let (pieces, symbols) = with_tools(cfg.chunk_tokens, |chunker, tagger| {
        // Tags first, so the guard's tree is freed before the splitter parses its own. A
        // file with a tags query always has the guard's tree (same grammar).
        let tagged = tree
            .filter(|_| cut_as.tags_query().is_some())
            .map(|tree| tagger.symbols_in(cut_as, text, &parsed, &tree));
        let limit = crate::lang::chunk::split_time(text.len());
        let (pieces, slow) = chunker.chunk_within(cut_as, text, limit);
        if slow && note.is_none() {
            note = Some(format!(
                "splitting took over {:.1} s: cut in {}-line windows",
                limit.as_secs_f64(),
                crate::lang::chunk::WINDOW_LINES
            ));
        }
        let symbols = match tagged {
            Some(symbols) => symbols,
            None if note.is_none() && crate::lang::keyword_defs::applies(cut_as, &f.rel) => {
                crate::lang::keyword_defs::definitions(text)
            }
            None => Vec::new(),
        };
        (pieces, super::verify::checkable(text, symbols))
    });
    drop(parsing);
    let hash = scanned.content_hash.clone();
    let chunks = chunk_rows(&hash, &f.rel, language, pieces);
    let content = ComputedContent {
        content_hash: hash,
        language,
        n_chunks: chunks.len(),
        size: scanned.size,
        symbols,
        terms: crate::text::words::document_terms(text),
        note,
    };
    Computed {
        scanned,
        content: Some(content),
        chunks,
    }
}

/// The rows of a file's chunks, numbered in order under its content hash.
fn chunk_rows(
    hash: &str,
    rel: &str,
    language: Language,
    pieces: Vec<crate::lang::chunk::Chunk>,
) -> Vec<ChunkRow> {
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, c)| ChunkRow {
            id: format!("{hash}:{i}"),
            content_hash: hash.to_string(),
            filepath: rel.to_string(),
            language,
            content: c.text,
            start_line: c.start_line,
            end_line: c.end_line,
        })
        .collect()
}
