//! The pipeline of a search: preprocess the query, run the retrievers (BM25 over chunks, BM25
//! over whole files, symbols, vectors), rank what they found (`rank`: fusion, paths of the
//! branch, filters, recency and path prior, merged chunks), add files that change together
//! with the top results, bring a pasted issue's best lines inside its first files and a
//! description's nearest function inside its first file, place a name's or a topic's
//! further hits of a file after the next file, cut to the limit and read the text. It
//! imports the stages; no stage imports it.

use super::fusion::Source;
use super::pathglob;
use super::query::Query;
use super::reading::Reading;
use super::retrievers::{of, Id};
use super::types::{
    first_files_len, note, unrepeat, Context, Fetch, Hit, List, Mode, Ranked, SearchError,
    SearchOptions, SearchResult,
};
use super::{
    background, cochange, companion, defs, described, focus, gather, infile, learned, llm, params,
    rank, rerank, retrieve, semantic, spread, trim, verbs,
};
use crate::store::{ChunkRow, ChunkStore};

/// What a question's second stage knows (`search::rerank`), when it runs: a topic that
/// names a feature rather than asking how something works weighs a file's size.
fn evidence<'a>(
    reading: &'a Reading,
    kind: learned::Kind,
    definitions: Option<&'a [crate::store::catalog::SymbolHit]>,
) -> Option<rerank::Evidence<'a>> {
    definitions.map(|definitions| rerank::Evidence {
        keywords: &reading.keywords,
        names: &reading.names,
        definitions,
        weighs_size: kind == learned::Kind::Topic && !reading.opens_with_stop_word,
    })
}

/// The reading of `q`, with a first word that only the repository's names can tell a verb
/// from a noun settled by them. Names that cannot be read leave the wording's reading: they
/// only choose a row of weights, not worth failing a search for.
fn read(cx: &Context<'_>, q: &Query) -> Reading {
    let mut reading = Reading::of(q);
    if !reading.verbs_to_ask.is_empty() {
        let is_verb = reading.verbs_to_ask.iter().any(|word| {
            verbs::opens_routine_names(cx, word).unwrap_or_else(|e| {
                tracing::debug!("reading the names that open with {word:?}: {e}");
                false
            })
        });
        reading.settle_verb(is_verb);
        tracing::debug!("names read for the first word");
    }
    reading
}

/// Search the context's branch for `q`.
pub fn search(
    cx: &Context<'_>,
    q: Query,
    opts: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    let config = cx.config;
    let glob = pathglob::compile_opt(opts.path_glob.as_deref())?;
    let lang = opts.lang;
    let s = &config.search;
    let limit = opts.limit.unwrap_or(s.n_final).max(1);
    let mut degraded = None;
    let chat = llm::chat_if_used(&config.llm, &mut degraded);
    let rerank = rerank_by(chat.as_ref(), config);
    // The hits a chat model judges (its `rerank_top`, whatever `-n` is) or else the listed
    // ones: what must not repeat lines before the model reorders them.
    let keep = rerank.map_or(limit, |_| limit.max(config.llm.rerank_top));
    // The hits ranking and the stages that add lines treat as read: one depth whatever `-n`
    // is, so that `-n 5` lists the first five hits of `-n 50` (while `-n` is at most
    // `n_retrieve`, which sets how deep the retrievers go). A list longer than this depth
    // gets no lines past it, nor the files only whole-file lists found.
    let seen = s.n_seen.max(1);
    // Filters drop candidates after retrieval: fetch more when they are on.
    let n = if glob.is_some() {
        s.n_retrieve.max(limit) * 4
    } else {
        s.n_retrieve.max(limit)
    };
    let q = match (&chat, config.llm.rewrite) {
        (Some(c), true) => llm::rewritten(c, q, &mut degraded),
        _ => q,
    };
    let reading = read(cx, &q);
    let ranking = params::Ranking::for_query(s, &reading);
    let fetch = Fetch {
        n,
        lang,
        mode: opts.mode,
        weights: &ranking.weights,
    };
    // Before the lexical retrievers: a model that will be used starts loading now.
    // The query's shape sets the vector weight (an issue's is 0 by default: not run at all).
    let ready = of(Id::Vector)
        .runs(opts.mode, &ranking.weights)
        .then(|| semantic::readiness(cx))
        .transpose()?;
    let (whole_files, title_files, past) = gather::start_file_lists(cx, &q, fetch);
    let (mut lists, part) = gather::lexical_and_vectors(cx, &q, fetch, ready)?;
    if let Some(part) = part {
        tracing::debug!("vectors retrieved");
        let (list, why) = vector_list(part, opts.mode, &ranking.weights)?;
        lists.extend(list);
        note(&mut degraded, why);
    }
    drop_vectors_for_a_missing_word(&mut lists, opts.mode, &reading);
    let whole_files = background::join(whole_files)?;
    let title_files = background::join(title_files)?;
    let past = background::join(past)?;
    tracing::debug!("files retrieved");
    let kind = learned::Kind::of(&reading);
    if of(Id::Definitions).runs(opts.mode, &ranking.weights) {
        let hashes =
            definition_candidates(&lists, &whole_files, &title_files, ranking.definition_files);
        let found = defs::name_matches(cx, &q, &reading, &hashes, fetch)?;
        tracing::debug!("definitions the query names");
        let weight = of(Id::Definitions).weight_in(opts.mode, &ranking.weights);
        lists.push((Source::Symbol, weight, found));
    }
    let definitions = evidence_definitions(cx, opts.mode, &ranking, &reading, kind)?;
    let ev = evidence(&reading, kind, definitions.as_deref());
    let (vector_files, vector_file_weight) = semantic::file_list(&lists, opts.mode, &ranking);
    let found = rank::Found {
        lists: &lists,
        files: &whole_files,
        title_files: &title_files,
        vector_files: (&vector_files, vector_file_weight),
        past: &past,
        evidence: ev.as_ref(),
    };
    let plan = rank::Plan {
        q: &q,
        ranking: &ranking,
        glob: glob.as_ref(),
        limit: seen,
    };
    let mut ranked = rank::rank(cx, &plan, found)?;
    // The learned weights were fitted on hybrid searches; other modes are ablations of it.
    if opts.mode == Mode::Hybrid {
        learned::reorder(&mut ranked, kind);
    }
    if opts.mode == Mode::Hybrid && glob.is_none() && lang.is_none() {
        add_partner_files(cx, kind, &mut ranked)?;
    }
    if opts.mode == Mode::Hybrid && !opts.files_only {
        add_answer_lines(cx, &q, kind, &mut ranked, seen, keep)?;
    }
    let files = opts.files_only.then_some(limit);
    let keep = kept(&ranked, keep, files, seen);
    let mut hits = cut(cx, &q, kind, ranked, keep, opts.files_only)?;
    if let Some(c) = rerank {
        if let Err(why) = llm::rerank(c, &q.raw, &mut hits, config.llm.rerank_top) {
            note(&mut degraded, Some(format!("rerank skipped: {why}")));
        }
    }
    let paths = hits.iter().map(|h| h.path.as_str());
    hits.truncate(files.map_or(limit, |n| first_files_len(paths, n)));
    Ok(SearchResult {
        hits,
        query: q,
        kind,
        degraded,
    })
}

/// How many of `ranked` a search keeps: `keep`, or, listing `files` files (`-l`), the hits
/// that hold them within the depth read (`seen`, or `files` when more).
fn kept(ranked: &[Ranked], keep: usize, files: Option<usize>, seen: usize) -> usize {
    let Some(n) = files else {
        return keep;
    };
    let held = first_files_len(ranked.iter().map(|(s, _)| s.path.as_str()), n);
    keep.max(held.min(seen.max(n)))
}

/// The chat model that reranks the hits, when one is used and `[llm] rerank` is on.
fn rerank_by<'c>(
    chat: Option<&'c llm::Chat>,
    config: &crate::config::Config,
) -> Option<&'c llm::Chat> {
    chat.filter(|_| config.llm.rerank)
}

/// The first `keep` hits (the listed ones, or as many as a chat model reranks), with their
/// text. For a query of `kind` that wants it, a file's further hits are first placed after
/// the next file's first hit (`spread`, before the cut, so that `-n 5` lists the first five
/// of `-n 50`; not for a listing of files, `files_only`, whose hits it would only drop), and
/// each hit is cut to its definition and its best lines (`focus`).
fn cut(
    cx: &Context<'_>,
    q: &Query,
    kind: learned::Kind,
    mut ranked: Vec<Ranked>,
    keep: usize,
    files_only: bool,
) -> Result<Vec<Hit>, SearchError> {
    let cuts = trim::cuts(kind);
    if cuts && !files_only {
        spread::further_hits_after_next_files(&mut ranked);
    }
    ranked.truncate(keep);
    if cuts {
        trim::to_definitions(cx.db, &mut ranked)?;
    }
    let mut hits = with_text(cx.chunks, ranked)?;
    if cuts {
        focus::to_best_lines(&mut hits, &q.terms);
    }
    Ok(hits)
}

/// The files that belong with the top results, in a hybrid search that no filter narrows
/// (a partner may lie outside it): those changed together with them (`cochange`, when
/// `search.cochange` is on) and, for a question naming a topic or an issue, a header's
/// implementation (`companion`).
fn add_partner_files(
    cx: &Context<'_>,
    kind: learned::Kind,
    ranked: &mut Vec<Ranked>,
) -> Result<(), SearchError> {
    if cx.config.search.cochange {
        cochange::add_partners(cx, ranked)?;
    }
    if companion::adds(kind) {
        companion::add_implementations(cx, ranked)?;
    }
    Ok(())
}

/// The lines inside the first result files that answer a question of `kind`: a pasted
/// issue's best lines (`infile`) and its first hits widened to their function (`widen`), a
/// description's function (`described`), each judged against the first `seen` hits; then no
/// line twice among the first `keep` (all a chat model may move into the listed ones).
/// Hybrid searches that show lines only: the stages measured there, and a listing of files
/// would not show them.
fn add_answer_lines(
    cx: &Context<'_>,
    q: &Query,
    kind: learned::Kind,
    ranked: &mut Vec<Ranked>,
    seen: usize,
    keep: usize,
) -> Result<(), SearchError> {
    match kind {
        learned::Kind::Issue => {
            infile::add_best_lines(cx, q, ranked, seen)?;
            super::widen::to_functions(cx, ranked, seen)?;
        }
        learned::Kind::Behaviour => described::add_best_function(cx, q, ranked, seen)?,
        learned::Kind::Name | learned::Kind::Topic => return Ok(()),
    }
    unrepeat(ranked, keep);
    Ok(())
}

/// The definitions named by the query that the second stage's evidence reads (`rerank`), or
/// `None` when the stage does not run: it runs for a question in hybrid mode, unless the
/// scorer weighs each of its features at 0 for the question's kind (a description of one
/// function: bench/ltr.py's fit).
fn evidence_definitions(
    cx: &Context<'_>,
    mode: Mode,
    ranking: &params::Ranking,
    reading: &Reading,
    kind: learned::Kind,
) -> Result<Option<Vec<crate::store::catalog::SymbolHit>>, SearchError> {
    let runs = mode == Mode::Hybrid
        && ranking.shape == params::Shape::Question
        && super::explain::Feature::EVIDENCE
            .iter()
            .any(|f| learned::weighs(kind, f));
    if !runs {
        return Ok(None);
    }
    // Named so a trace (and a test) can tell the stage ran: its weight alone cannot, since a
    // feature weighed at 0 leaves no trace in `--explain`.
    tracing::debug!("evidence stage: reading the definitions the question names");
    Ok(Some(retrieve::definitions_named(
        cx.db,
        cx.branch,
        &reading.names.names,
    )?))
}

/// The vector list of a retrieval with its weight in `mode`, and the note on why vectors
/// are missing or partial; an error when `--mode vector` asked for vectors and has none.
fn vector_list(
    part: semantic::VectorPart,
    mode: Mode,
    weights: &crate::config::Weights,
) -> Result<(Option<List>, Option<String>), SearchError> {
    match (part.found, mode) {
        (Some(found), _) => {
            let weight = of(Id::Vector).weight_in(mode, weights);
            Ok((Some((Source::Vector, weight, found)), part.note))
        }
        (None, Mode::Vector) => Err(SearchError::ModeUnavailable {
            mode: "vector",
            reason: part.note.unwrap_or_else(|| semantic::DISABLED.into()),
        }),
        (None, _) => Ok((None, part.note)),
    }
}

/// The contents whose definitions the function-level stage ranks: those of the first
/// `n_files` distinct contents of the chunk lists and of each whole-file list, in that order.
fn definition_candidates(
    lists: &[List],
    files: &[String],
    title_files: &[String],
    n_files: usize,
) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut take = |hashes: &mut dyn Iterator<Item = &String>| {
        for h in hashes.take(n_files) {
            if seen.insert(h.clone()) {
                out.push(h.clone());
            }
        }
    };
    for (_, _, found) in lists {
        let mut distinct = std::collections::HashSet::new();
        take(
            &mut found
                .iter()
                .map(|c| &c.content_hash)
                .filter(|h| distinct.insert(*h)),
        );
    }
    take(&mut files.iter());
    take(&mut title_files.iter());
    out
}

/// Nearest neighbours always exist. A one-word query (an identifier, an error code) that
/// neither BM25 nor symbols found is not in the code: answer "no hits" (exit 1) as grep
/// would, not with whatever happens to be nearest. Sentences keep their vector hits: that
/// is what vectors are for. `--mode vector` asked for neighbours and keeps them.
fn drop_vectors_for_a_missing_word(lists: &mut Vec<List>, mode: Mode, reading: &Reading) {
    let lexical_empty = lists
        .iter()
        .all(|(s, _, found)| *s == Source::Vector || found.is_empty());
    if mode == Mode::Hybrid && lexical_empty && reading.is_one_word() {
        lists.retain(|(s, _, _)| *s != Source::Vector);
    }
}

/// Read the text of the chunks that made the results (the only text a search reads) and
/// build the hits.
fn with_text(chunks: &ChunkStore, ranked: Vec<Ranked>) -> Result<Vec<Hit>, SearchError> {
    let mut rows: Vec<u64> = ranked
        .iter()
        .flat_map(|(_, parts)| parts.iter().map(|c| c.row))
        .collect();
    rows.sort_unstable();
    rows.dedup();
    let text = chunks.take_rows(&rows)?;
    Ok(ranked
        .into_iter()
        .map(|(s, parts)| {
            let read: Vec<&ChunkRow> = parts.iter().filter_map(|c| text.get(&c.row)).collect();
            Hit {
                language: parts
                    .first()
                    .map_or_else(|| crate::lang::Language::of_path(&s.path), |c| c.language),
                // A hit shows its own lines: a function's chunks can hold its neighbours'.
                lines: numbered_lines(&read)
                    .into_iter()
                    .filter(|(n, _)| (s.start..=s.end).contains(n))
                    .collect(),
                path: s.path,
                start_line: s.start,
                end_line: s.end,
                score: s.score,
                sources: s.sources,
                why: s.why,
            }
        })
        .collect())
}

/// The numbered lines of the merged chunks, in order, each line once. Chunks are cut at
/// syntax boundaries, which can fall inside a line (`fn f() -> u32` | `{`): a line two
/// chunks share is shown as the longer of its two parts.
fn numbered_lines(parts: &[&ChunkRow]) -> Vec<(u32, String)> {
    let mut by_line: std::collections::BTreeMap<u32, String> = std::collections::BTreeMap::new();
    for c in parts {
        for (i, line) in c.content.lines().enumerate() {
            let shown = by_line.entry(c.start_line + i as u32).or_default();
            if line.len() > shown.len() {
                *shown = line.to_string();
            }
        }
    }
    by_line.into_iter().collect()
}
