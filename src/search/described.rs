//! A description's function inside its first result file. A question that says what one
//! function does ("Returns the number of code units in a code point") ranks the file that
//! holds the function first for most questions, but the file's hits are the chunks its words
//! and vectors reached among the whole repository's: often the function's neighbours. A
//! function's signature is a few words of the kind such a question holds (the static model
//! was trained to put a doc comment's first sentence near its definition's name), so the
//! first file's functions are compared with the question by the static model, and the
//! nearest one that no shown hit holds, when it is near enough, is shown right after the
//! file's first hit, as its own lines. The static model embeds a signature in microseconds;
//! a remote provider would cost a request per search, so it runs with the static model only.
//! Measured on the four short-question sets (bench/RESULTS.md, twenty-seventh session).

use super::explain::Feature;
use super::fusion::{Source, Span};
use super::params::described::{MAX_DEFINITIONS, MAX_LINES, MIN_LINES, MIN_SIMILARITY};
use super::query::Query;
use super::types::{first_hits, held, Context, Ranked, SearchError};
use crate::config::Provider;
use crate::lang::{Symbol, SymbolKind};

/// Add the function of the first result file (among the first `limit - 1` hits, so that
/// the hit is shown) nearest the question `q`, unless a hit the search still shows holds it
/// or none is near enough.
pub fn add_best_function(
    cx: &Context<'_>,
    q: &Query,
    ranked: &mut Vec<Ranked>,
    limit: usize,
) -> Result<(), SearchError> {
    if cx.config.embed.provider != Provider::Static {
        return Ok(());
    }
    let shown = limit.saturating_sub(1).min(ranked.len());
    let Some(&first) = first_hits(&ranked[..shown], 1).first() else {
        return Ok(());
    };
    let Some(hash) = ranked[first].1.first().map(|c| c.content_hash.clone()) else {
        return Ok(());
    };
    let path = ranked[first].0.path.clone();
    let candidates: Vec<Symbol> = cx
        .db
        .symbols()
        .signatures_of(&hash, MAX_DEFINITIONS)?
        .into_iter()
        .filter(|s| is_function(s) && !held(&ranked[..shown], &path, s.start_line, s.end_line))
        .collect();
    let Some((best, similarity)) = nearest(cx, q, &candidates) else {
        return Ok(());
    };
    let mut parts: Vec<_> = cx
        .chunks
        .refs_of(std::slice::from_ref(&hash))?
        .into_iter()
        .filter(|c| c.start_line <= best.end_line && best.start_line <= c.end_line)
        .collect();
    if parts.is_empty() {
        return Ok(());
    }
    parts.sort_by_key(|c| (c.start_line, c.end_line));
    let score = ranked[first].0.score;
    let mut span = Span {
        path,
        start: best.start_line,
        end: best.end_line,
        score,
        sources: vec![Source::Vector],
        members: Vec::new(),
        why: Default::default(),
    };
    let similarity = f64::from(similarity);
    span.why
        .add(Feature::DescribedFunction { similarity }, score);
    ranked.insert(first + 1, (span, parts));
    Ok(())
}

/// A function or method (a macro too: C's function-like ones) of a size to show whole.
fn is_function(s: &Symbol) -> bool {
    let lines = s.end_line.saturating_sub(s.start_line) + 1;
    matches!(
        s.kind,
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro
    ) && (MIN_LINES..=MAX_LINES).contains(&lines)
}

/// The candidate whose signature the static model puts nearest the question, with its
/// cosine, if at least [`MIN_SIMILARITY`] near. An embedding that fails leaves the hits as they are: the vector
/// retriever reports the model's trouble, and this stage only adds.
fn nearest<'a>(cx: &Context<'_>, q: &Query, candidates: &'a [Symbol]) -> Option<(&'a Symbol, f32)> {
    if candidates.is_empty() {
        return None;
    }
    let question = super::semantic::embed_query(cx.config, q).ok()?;
    let mut embedder = crate::embed::from_config(&cx.config.embed).ok()??;
    let texts: Vec<String> = candidates.iter().map(|s| s.signature.clone()).collect();
    let vectors = embedder.embed(&texts).ok()?;
    let cosine = |v: &[f32]| v.iter().zip(&question).map(|(a, b)| a * b).sum::<f32>();
    candidates
        .iter()
        .zip(&vectors)
        .map(|(s, v)| (s, cosine(v)))
        .filter(|(_, c)| *c >= MIN_SIMILARITY)
        // The first on a tie: the earlier definition.
        .fold(None, |best: Option<(&Symbol, f32)>, (s, c)| match best {
            Some((_, b)) if b >= c => best,
            _ => Some((s, c)),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbol(kind: SymbolKind, start_line: u32, end_line: u32) -> Symbol {
        Symbol {
            name: "f".into(),
            kind,
            start_line,
            end_line,
            signature: "fn f()".into(),
            doc: None,
        }
    }

    #[test]
    fn only_functions_of_a_size_to_show_whole_are_candidates() {
        assert!(is_function(&symbol(SymbolKind::Function, 10, 12)));
        assert!(is_function(&symbol(SymbolKind::Method, 10, 69)));
        assert!(
            !is_function(&symbol(SymbolKind::Method, 10, 70)),
            "61 lines"
        );
        assert!(
            !is_function(&symbol(SymbolKind::Function, 10, 11)),
            "2 lines"
        );
        assert!(!is_function(&symbol(SymbolKind::Class, 10, 20)));
        assert!(!is_function(&symbol(SymbolKind::Constant, 10, 20)));
    }
}
