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

/// Add the function of the first result file (among the first `seen - 1` hits, so that
/// the hit is seen) nearest the question `q` among those no hit a reader sees (the first
/// `seen`) holds, if one is near enough.
pub fn add_best_function(
    cx: &Context<'_>,
    q: &Query,
    ranked: &mut Vec<Ranked>,
    seen: usize,
) -> Result<(), SearchError> {
    if cx.config.embed.provider != Provider::Static {
        return Ok(());
    }
    let shown = seen.saturating_sub(1).min(ranked.len());
    let Some(&first) = first_hits(&ranked[..shown], 1).first() else {
        return Ok(());
    };
    let Some(hash) = ranked[first].1.first().map(|c| c.content_hash.clone()) else {
        return Ok(());
    };
    let path = ranked[first].0.path.clone();
    let functions: Vec<Symbol> = cx
        .db
        .symbols()
        .signatures_of(&hash, MAX_DEFINITIONS)?
        .into_iter()
        .filter(is_function)
        .collect();
    let Some(similarities) = similarities(cx, q, &functions) else {
        return Ok(());
    };
    let is_shown = |s: &Symbol| held(&ranked[..shown], &path, s.start_line, s.end_line);
    let Some((best, similarity)) = pick(&functions, &similarities, is_shown) else {
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
    // Three decimals: the cosine of f32 vectors, not f32's rounding noise in JSON.
    let similarity = f64::from((similarity * 1000.0).round()) / 1000.0;
    span.why
        .add(Feature::DescribedFunction { similarity }, score);
    ranked.insert(first + 1, (span, parts));
    Ok(())
}

/// A function or method (a macro too: C's function-like ones) of a size to show whole.
fn is_function(s: &Symbol) -> bool {
    let lines = s.end_line.saturating_sub(s.start_line).saturating_add(1);
    matches!(
        s.kind,
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro
    ) && (MIN_LINES..=MAX_LINES).contains(&lines)
}

/// The cosine of each function's signature to the question, by the static model; `None`
/// when there is no function or the model fails: the vector retriever reports the model's
/// trouble, and this stage only adds.
fn similarities(cx: &Context<'_>, q: &Query, functions: &[Symbol]) -> Option<Vec<f32>> {
    if functions.is_empty() {
        return None;
    }
    let question = super::semantic::embed_query(cx.config, q).ok()?;
    let mut embedder = crate::embed::from_config(&cx.config.embed).ok()??;
    let texts: Vec<String> = functions.iter().map(|s| s.signature.clone()).collect();
    let vectors = embedder.embed(&texts).ok()?;
    let cosine = |v: &[f32]| v.iter().zip(&question).map(|(a, b)| a * b).sum::<f32>();
    Some(vectors.iter().map(|v| cosine(v)).collect())
}

/// The function nearest the question (the earlier on a tie) among those no shown hit holds,
/// with its cosine, if it is at least [`MIN_SIMILARITY`] near. When the nearest of all is
/// shown already, the next is often the answer: passing over the shown ones measured Func@10
/// 0.809 on the third short-question set, where giving up when the nearest is shown measured
/// 0.793 (the others the same; bench/RESULTS.md, twenty-seventh session).
fn pick<'a>(
    functions: &'a [Symbol],
    similarities: &[f32],
    is_shown: impl Fn(&Symbol) -> bool,
) -> Option<(&'a Symbol, f32)> {
    functions
        .iter()
        .zip(similarities.iter().copied())
        .filter(|(s, c)| *c >= MIN_SIMILARITY && !is_shown(s))
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
    fn the_nearest_function_no_hit_shows_is_picked_when_near_enough() {
        let fs = [
            symbol(SymbolKind::Function, 1, 5),
            symbol(SymbolKind::Function, 10, 15),
            symbol(SymbolKind::Function, 20, 25),
        ];
        let lines = |p: Option<(&Symbol, f32)>| p.map(|(s, c)| (s.start_line, c));
        let none_shown = |_: &Symbol| false;
        assert_eq!(
            lines(pick(&fs, &[0.5, 0.7, 0.65], none_shown)),
            Some((10, 0.7))
        );
        assert_eq!(
            lines(pick(&fs, &[0.7, 0.7, 0.65], none_shown)),
            Some((1, 0.7)),
            "tie"
        );
        assert_eq!(
            lines(pick(&fs, &[0.5, 0.59, 0.1], none_shown)),
            None,
            "too far"
        );
        // The nearest is shown already: the next nearest, when near enough.
        let second_shown = |s: &Symbol| s.start_line == 10;
        let sims = [0.5, 0.7, 0.65];
        assert_eq!(lines(pick(&fs, &sims, second_shown)), Some((20, 0.65)));
        let sims = [0.5, 0.7, 0.55];
        assert_eq!(lines(pick(&fs, &sims, second_shown)), None);
        assert_eq!(lines(pick(&[], &[], none_shown)), None);
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
        assert!(!is_function(&symbol(SymbolKind::Function, 0, u32::MAX)));
    }
}
