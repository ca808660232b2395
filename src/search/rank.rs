//! Ranking the retrievers' finds: fuse the chunk lists by weighted reciprocal rank, map
//! chunks to the branch's paths (so renamed or copied files are reported where they are on
//! this branch), filter by `--path`, apply recency and the path prior, merge overlapping
//! chunks, and lift each file the whole-file retriever ranked.

use std::collections::HashMap;

use globset::GlobSet;

use super::explain::{Feature, Why};
use super::filesize::Sizes;
use super::fusion::{self, Source, Span};
use super::params::Ranking;
use super::query::Query;
use super::retrievers::{self, Id};
use super::thirdparty::ThirdParty;
use super::types::{Context, Ranked, SearchError};
use super::{commits, files, prior, retrieve};
use crate::config::Config;
use crate::lang::Language;
use crate::store::{ChunkRef, ChunkStore};

use super::params::{MERGE_GAP, MERGE_MAX_LINES, RECENCY_DAYS};

/// What the retrievers found: chunk lists (source, weight, chunks), whole files (content
/// hashes) for the query and for its title, and files of matching past commits, best first.
#[derive(Clone, Copy)]
pub(super) struct Found<'a> {
    pub lists: &'a [(Source, f64, Vec<ChunkRef>)],
    pub files: &'a [String],
    pub title_files: &'a [String],
    /// The contents of the vector list's chunks, nearest first, with the weight they get as
    /// a file list (0: not used).
    pub vector_files: (&'a [String], f64),
    pub past: &'a commits::Past,
    /// For a question in hybrid mode: what its words say about files and names
    /// (`search::rerank`).
    pub evidence: Option<&'a super::rerank::Evidence<'a>>,
}

/// How a search ranks: its query, the ranking it chose for the query's shape, the `--path`
/// filter, and how many results count as read (`search.n_seen`, not `-n`, so that a shorter
/// list is the start of a longer one).
pub(super) struct Plan<'a> {
    pub q: &'a Query,
    pub ranking: &'a Ranking,
    pub glob: Option<&'a GlobSet>,
    pub limit: usize,
}

/// Spans merged from ranked chunks and, by the indices their `members` hold, those chunks.
struct Spans {
    merged: Vec<Span>,
    chunks: Vec<ChunkRef>,
}

/// Fuse, map to paths, filter, boost and merge, best first.
pub(super) fn rank(
    cx: &Context<'_>,
    plan: &Plan<'_>,
    found: Found<'_>,
) -> Result<Vec<Ranked>, SearchError> {
    let Context {
        db,
        chunks,
        config,
        branch,
    } = *cx;
    let Plan {
        q,
        ranking,
        glob,
        limit,
    } = *plan;
    let mut chunk_by_id: HashMap<&str, &ChunkRef> = HashMap::new();
    let keyed: Vec<(Source, f64, Vec<String>)> = found
        .lists
        .iter()
        .map(|(src, w, rows)| {
            for r in rows {
                chunk_by_id.insert(&r.id, r);
            }
            (*src, *w, rows.iter().map(|r| r.id.clone()).collect())
        })
        .collect();
    let fused = fusion::rrf(&keyed, ranking.rrf_k);
    let mut hashes: Vec<String> = chunk_by_id
        .values()
        .map(|c| c.content_hash.clone())
        .chain(found.files.iter().cloned())
        .chain(found.title_files.iter().cloned())
        .chain(found.past.query.iter().map(|f| f.content_hash.clone()))
        .chain(found.past.title.iter().map(|f| f.content_hash.clone()))
        .collect();
    hashes.sort();
    hashes.dedup();
    let members = retrieve::membership(db, branch, &hashes)?;
    let third_party = if config.search.path_prior {
        ThirdParty::of_branch(db, branch)?
    } else {
        ThirdParty::default()
    };
    let place = Place {
        q,
        config,
        rrf_k: ranking.rrf_k,
        glob,
        third_party,
        now_ns: crate::util::unix_now() as i128 * 1_000_000_000,
    };
    let mut spans = place.chunks(&fused, &chunk_by_id, &members);
    let w = &ranking.weights;
    // Each file list with its retriever's weight and source (past commits' is `commits`).
    let listed = |id| {
        let r = retrievers::of(id);
        Listed {
            rank: 0,
            weight: (r.weight)(w),
            source: r.source,
        }
    };
    let weight = |id| (retrievers::of(id).weight)(w);
    let mut file_scores = place.file_scores(found.files, listed(Id::File), &members);
    file_scores.extend(place.file_scores(found.title_files, listed(Id::Title), &members));
    // A question's vector hits as a file list: each near file's best spans are lifted (its
    // own lexical evidence orders them), measured better than weighing the chunks more.
    let (vector_files, vector_file_weight) = found.vector_files;
    if vector_file_weight > 0.0 {
        let vectors = Listed {
            rank: 0,
            weight: vector_file_weight,
            source: Source::Vector,
        };
        file_scores.extend(place.file_scores(vector_files, vectors, &members));
    }
    file_scores.extend(place.past_scores(&found.past.query, weight(Id::Commits), &members));
    file_scores.extend(place.past_scores(&found.past.title, weight(Id::CommitsTitle), &members));
    let file_scores = files::sum_by_path(file_scores);
    let alone = files::lift_best_spans(
        &mut spans.merged,
        file_scores,
        ranking.file_span_decay,
        ranking.file_spans,
    );
    add_file_spans(chunks, q, alone, &mut spans, limit)?;
    if let Some(ev) = found.evidence {
        let sizes = if ev.weighs_size {
            Sizes::of(db, &spans.merged, &spans.chunks)?
        } else {
            Sizes::default()
        };
        let prior = |path: &str| place.prior_of(path);
        super::rerank::rerank(&mut spans.merged, &spans.chunks, ev, &prior, &sizes);
    }
    let Spans { merged, chunks } = spans;
    Ok(merged
        .into_iter()
        .map(|s| {
            let parts: Vec<ChunkRef> = s.members.iter().map(|&i| chunks[i].clone()).collect();
            (s, parts)
        })
        .collect())
}

/// What ranking needs to place a path: the query and the branch's third-party subtrees
/// (for the path prior), the settings, the `--path` filter and the time (for recency).
struct Place<'a> {
    q: &'a Query,
    config: &'a Config,
    rrf_k: f64,
    glob: Option<&'a GlobSet>,
    third_party: ThirdParty,
    now_ns: i128,
}

impl Place<'_> {
    /// The fused chunks at every path of the branch that holds them, boosted and filtered,
    /// merged where they overlap.
    fn chunks(
        &self,
        fused: &[(String, fusion::Fused)],
        chunk_by_id: &HashMap<&str, &ChunkRef>,
        members: &retrieve::Membership,
    ) -> Spans {
        let mut spans = Vec::new();
        let mut chunks: Vec<ChunkRef> = Vec::new();
        for (id, f) in fused {
            let chunk = chunk_by_id[id.as_str()];
            for (path, mtime) in members.get(&chunk.content_hash).into_iter().flatten() {
                if let Some(boost) = self.boost(path, *mtime, chunk.language) {
                    let mut why = f.why.clone();
                    why.add(
                        Feature::PathAndRecency { factor: boost },
                        f.score * (boost - 1.0),
                    );
                    spans.push(Span {
                        path: path.clone(),
                        start: chunk.start_line,
                        end: chunk.end_line,
                        score: f.score * boost,
                        sources: f.sources.clone(),
                        members: vec![chunks.len()],
                        why,
                    });
                    chunks.push(chunk.clone());
                }
            }
        }
        Spans {
            merged: fusion::merge_spans(spans, MERGE_GAP, MERGE_MAX_LINES),
            chunks,
        }
    }

    /// The factor a hit in `path` gets from recency and the path prior; `None` when the
    /// `--path` filter leaves the path out.
    fn boost(&self, path: &str, mtime_ns: i64, language: Language) -> Option<f64> {
        if self.glob.is_some_and(|g| !g.is_match(path)) {
            return None;
        }
        let s = &self.config.search;
        let age_days = ((self.now_ns - mtime_ns as i128).max(0) / 86_400_000_000_000) as f64;
        let recency = s.recency_boost * (-age_days / RECENCY_DAYS).exp();
        let prior = if s.path_prior {
            prior::prior(path, language, self.q, self.third_party.contains(path))
        } else {
            1.0
        };
        Some((1.0 + recency) * prior)
    }

    /// The path prior of `path` (1 when `search.path_prior` is off).
    fn prior_of(&self, path: &str) -> f64 {
        if !self.config.search.path_prior {
            return 1.0;
        }
        let language = Language::of_path(path);
        prior::prior(path, language, self.q, self.third_party.contains(path))
    }

    /// The files of matching past commits with their weighted reciprocal rank: only the path
    /// the commit changed, not other copies of its content.
    fn past_scores(
        &self,
        past: &[commits::ChangedFile],
        weight: f64,
        members: &retrieve::Membership,
    ) -> Vec<files::FileScore> {
        let mut out = Vec::new();
        if weight <= 0.0 {
            // Turned off (the other commit list may run): no score, and no source shown.
            return out;
        }
        for (i, f) in past.iter().enumerate() {
            let placed = members
                .get(&f.content_hash)
                .into_iter()
                .flatten()
                .find(|(path, _)| *path == f.path);
            if let Some((path, mtime)) = placed {
                let listed = Listed {
                    rank: i,
                    weight,
                    source: Source::Commits,
                };
                let file = Member {
                    path,
                    mtime_ns: *mtime,
                    hash: &f.content_hash,
                };
                out.extend(self.file_score(listed, file));
            }
        }
        out
    }

    /// A whole-file list's files on the branch with their weighted reciprocal rank.
    fn file_scores(
        &self,
        files: &[String],
        list: Listed,
        members: &retrieve::Membership,
    ) -> Vec<files::FileScore> {
        let mut out = Vec::new();
        for (i, hash) in files.iter().enumerate() {
            for (path, mtime) in members.get(hash).into_iter().flatten() {
                let listed = Listed { rank: i, ..list };
                let file = Member {
                    path,
                    mtime_ns: *mtime,
                    hash,
                };
                out.extend(self.file_score(listed, file));
            }
        }
        out
    }

    /// The score a file list gives the file at `path` (modified at `mtime_ns`, content
    /// `hash`) that it ranks at 0-based `i`: weighted reciprocal rank times recency and the
    /// path prior; `None` when the `--path` filter leaves it out.
    fn file_score(&self, listed: Listed, file: Member<'_>) -> Option<files::FileScore> {
        let language = Language::of_path(file.path);
        let boost = self.boost(file.path, file.mtime_ns, language)?;
        let score = listed.weight / (self.rrf_k + (listed.rank + 1) as f64) * boost;
        Some(files::FileScore {
            path: file.path.to_string(),
            content_hash: file.hash.to_string(),
            lists: vec![files::Listing {
                by: listed.source,
                rank: listed.rank + 1,
                score,
            }],
        })
    }
}

/// Where a file list placed a file: its 0-based rank, and the list's weight and source.
#[derive(Clone, Copy)]
struct Listed {
    rank: usize,
    weight: f64,
    source: Source,
}

/// A file of the branch holding a listed content: its path, modification time, content.
struct Member<'a> {
    path: &'a str,
    mtime_ns: i64,
    hash: &'a str,
}

/// Files only the whole-file retriever found join the ranking with their best chunk; only
/// those that would be among the first `limit` results read, since finding the best chunk
/// reads the text of all of a file's chunks.
fn add_file_spans(
    chunks: &ChunkStore,
    q: &Query,
    alone: Vec<files::FileScore>,
    spans: &mut Spans,
    limit: usize,
) -> Result<(), SearchError> {
    let Spans {
        merged,
        chunks: chunk_of_span,
    } = spans;
    let floor = match merged.get(limit.saturating_sub(1)) {
        Some(last_shown) => last_shown.score,
        None => 0.0,
    };
    let alone: Vec<files::FileScore> = alone
        .into_iter()
        .filter(|f| f.score() > floor)
        .take(limit)
        .collect();
    if alone.is_empty() {
        return Ok(());
    }
    let mut hashes: Vec<String> = alone.iter().map(|f| f.content_hash.clone()).collect();
    hashes.sort();
    hashes.dedup();
    let best = files::best_chunks(chunks, &hashes, q)?;
    tracing::debug!("best chunks of files only the file retriever found");
    for f in alone {
        let Some(c) = best.get(&f.content_hash) else {
            continue;
        };
        let (score, sources) = (f.score(), f.sources());
        let mut why = Why::default();
        why.add(Feature::FileOnly, score);
        merged.push(Span {
            path: f.path,
            start: c.start_line,
            end: c.end_line,
            score,
            sources,
            members: vec![chunk_of_span.len()],
            why,
        });
        chunk_of_span.push(c.clone());
    }
    fusion::sort_best_first(merged);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_NS: i128 = 86_400_000_000_000;

    fn place<'a>(q: &'a Query, config: &'a Config, glob: Option<&'a GlobSet>) -> Place<'a> {
        Place {
            q,
            config,
            rrf_k: 90.0,
            glob,
            third_party: ThirdParty::default(),
            now_ns: 100 * DAY_NS,
        }
    }

    #[test]
    fn recency_fades_over_two_weeks_and_the_path_filter_drops_what_it_leaves_out() {
        let q = crate::search::prepare("parse the config").unwrap();
        let mut config = Config::default();
        config.search.path_prior = false;
        let p = place(&q, &config, None);
        let now = (100 * DAY_NS) as i64;
        let fresh = p.boost("src/config.rs", now, Language::Rust).unwrap();
        let two_weeks = p
            .boost("src/config.rs", now - (14 * DAY_NS) as i64, Language::Rust)
            .unwrap();
        let boost = config.search.recency_boost;
        assert!((fresh - (1.0 + boost)).abs() < 1e-12, "{fresh}");
        assert!((two_weeks - (1.0 + boost / std::f64::consts::E)).abs() < 1e-12);
        // A file from the future (clock skew) is as fresh as now, never more.
        assert_eq!(
            p.boost("src/config.rs", now + 5, Language::Rust),
            Some(fresh)
        );
        let glob = super::super::pathglob::compile("src/**").unwrap();
        let only_src = place(&q, &config, Some(&glob));
        assert!(only_src
            .boost("docs/config.md", now, Language::Markdown)
            .is_none());
        assert!(only_src
            .boost("src/config.rs", now, Language::Rust)
            .is_some());
    }

    #[test]
    fn the_path_prior_puts_tests_and_prose_below_the_code() {
        let q = crate::search::prepare("parse the config").unwrap();
        let config = Config::default();
        let p = place(&q, &config, None);
        let old = 0;
        let code = p.boost("src/config.rs", old, Language::Rust).unwrap();
        let test = p
            .boost("tests/config_test.rs", old, Language::Rust)
            .unwrap();
        let prose = p.boost("docs/config.md", old, Language::Markdown).unwrap();
        assert!(code > test && code > prose, "{code} {test} {prose}");
    }

    #[test]
    fn a_file_list_scores_by_weighted_reciprocal_rank_and_past_commits_only_their_path() {
        let q = crate::search::prepare("parse the config").unwrap();
        let mut config = Config::default();
        config.search.path_prior = false;
        config.search.recency_boost = 0.0;
        let p = place(&q, &config, None);
        let h = "a".repeat(64);
        let members: retrieve::Membership = [(
            h.clone(),
            vec![("src/a.rs".into(), 0), ("src/copy_of_a.rs".into(), 0)],
        )]
        .into_iter()
        .collect();
        let listed = Listed {
            rank: 0,
            weight: 0.5,
            source: Source::File,
        };
        let scores = p.file_scores(std::slice::from_ref(&h), listed, &members);
        // Both paths holding the content are lifted, by 0.5 / (k + 1).
        assert_eq!(scores.len(), 2);
        assert!(scores
            .iter()
            .all(|s| (s.score() - 0.5 / 91.0).abs() < 1e-12));
        assert_eq!(scores[0].sources(), [Source::File]);
        let changed = commits::ChangedFile {
            path: "src/a.rs".into(),
            content_hash: h.clone(),
            score: 3.0,
        };
        let past = p.past_scores(std::slice::from_ref(&changed), 0.3, &members);
        let paths: Vec<&str> = past.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs"], "only the path the commit changed");
        assert!(p.past_scores(&[changed], 0.0, &members).is_empty());
    }
}
