//! Output for people and programs: grep-like hits with a short highlighted snippet, JSON
//! lines, and time stamps. Colour only on a terminal and never with `NO_COLOR`.

use std::io::{IsTerminal, Write};

use git_codesearch::answer::{snippet, HitRecord, SNIPPET_LINES};
use git_codesearch::report::{to_json, FileRecord};
use git_codesearch::search::budget::{Cut, FileHit};
use git_codesearch::search::learned::Kind;
use git_codesearch::search::query::Query;
use git_codesearch::search::Hit;

/// Whether to colour stdout.
pub fn color_stdout() -> bool {
    git_codesearch::env::non_empty(git_codesearch::env::NO_COLOR).is_none()
        && std::io::stdout().is_terminal()
}

pub use git_codesearch::util::when;

/// A path as a terminal should show it: as is when plain, else in double quotes with C-style
/// escapes, as git quotes paths (`core.quotePath`). A file name holding a newline would
/// otherwise print as two paths, and one holding escape sequences would drive the terminal.
pub fn path(p: &str) -> std::borrow::Cow<'_, str> {
    if !p
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\' || is_bidi(c))
    {
        return p.into();
    }
    let mut out = String::from("\"");
    for c in p.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || is_bidi(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out.into()
}

/// A line of file content made safe for a terminal: control characters other than tab (an
/// ESC starting an ANSI or OSC sequence, a carriage return that overwrites the line) and
/// bidirectional overrides are shown as visible escapes, never sent as they are.
pub fn safe_text(line: &str) -> std::borrow::Cow<'_, str> {
    // A CRLF file's line ending is not content.
    let line = line.strip_suffix('\r').unwrap_or(line);
    if !line
        .chars()
        .any(|c| (c.is_control() && c != '\t') || is_bidi(c))
    {
        return line.into();
    }
    line.chars()
        .map(|c| {
            if (c.is_control() && c != '\t') || is_bidi(c) {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// Unicode bidirectional embedding, override and isolate controls ("Trojan Source").
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn highlight(line: &str, terms: &[String], color: bool) -> String {
    if !color {
        return line.to_string();
    }
    let lower = line.to_lowercase();
    if lower.len() != line.len() {
        return line.to_string(); // case folding changed byte offsets: do not risk it
    }
    let mut marks = vec![false; line.len()];
    for t in terms {
        let mut from = 0;
        while let Some(i) = lower[from..].find(t.as_str()) {
            let s = from + i;
            marks[s..s + t.len()].iter_mut().for_each(|m| *m = true);
            from = s + t.len().max(1);
        }
    }
    let mut out = String::new();
    let mut on = false;
    for (i, ch) in line.char_indices() {
        if marks[i] != on {
            out.push_str(if marks[i] { "\x1b[1;31m" } else { "\x1b[0m" });
            on = marks[i];
        }
        out.push(ch);
    }
    if on {
        out.push_str("\x1b[0m");
    }
    out
}

/// How much of each hit to print.
#[derive(Debug, Clone)]
pub enum Style {
    /// A few best-matching lines per hit (for people).
    Snippet,
    /// Every line of each hit, fitted into a token budget (for agents).
    Full { cut: Cut, max: u32 },
}

/// How hits are shown: as JSON lines or text, with or without their scores explained.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shown {
    /// One JSON object per hit.
    pub json: bool,
    /// Each hit's features and what each added (`--explain`), and what the search read the
    /// query as.
    pub explain: Option<Kind>,
}

/// Write hits as text or JSON lines.
pub fn write_hits(
    out: &mut impl Write,
    hits: &[Hit],
    q: &Query,
    branch: &str,
    degraded: Option<&str>,
    shown: Shown,
    style: &Style,
) -> std::io::Result<()> {
    if shown.json {
        write_json(out, hits, q, (branch, degraded), shown.explain, style)
    } else {
        write_text(out, hits, q, (color_stdout(), shown.explain), style)
    }
}

/// A hit's score, feature by feature, one line each (`--explain`).
fn write_why(out: &mut impl Write, hit: &Hit) -> std::io::Result<()> {
    for c in &hit.why.0 {
        writeln!(out, "        {:+.4}  {}", c.value, c.feature.describe())?;
    }
    Ok(())
}

/// Write hits grep-style: `path:start-end  score  [sources]` then numbered lines.
pub fn write_text(
    out: &mut impl Write,
    hits: &[Hit],
    q: &Query,
    (color, explain): (bool, Option<Kind>),
    style: &Style,
) -> std::io::Result<()> {
    if let Some(kind) = explain {
        writeln!(
            out,
            "read as {} (hybrid searches weigh its features by the `{}` row)\n",
            kind.describe(),
            kind.name()
        )?;
    }
    for hit in hits {
        let sources: Vec<&str> = hit.sources.iter().map(|s| s.name()).collect();
        let (path_on, off) = if color {
            ("\x1b[35m", "\x1b[0m")
        } else {
            ("", "")
        };
        writeln!(
            out,
            "{path_on}{}{off}:{}-{}  score {:.4}  [{}]",
            path(&hit.path),
            hit.start_line,
            hit.end_line,
            hit.score,
            sources.join("+")
        )?;
        if explain.is_some() {
            write_why(out, hit)?;
        }
        let lines = match style {
            Style::Snippet => snippet(hit, q, SNIPPET_LINES),
            Style::Full { .. } => &hit.lines[..],
        };
        for (n, line) in lines {
            let line: String = match style {
                Style::Snippet => line.chars().take(160).collect(),
                Style::Full { .. } => line.clone(),
            };
            let line = safe_text(&line);
            writeln!(out, "{n:>6}│ {}", highlight(&line, &q.terms, color))?;
        }
        writeln!(out)?;
    }
    if let Style::Full { cut, max } = style {
        if !cut.is_empty() {
            writeln!(out, "[{}]", cut_note(cut, *max))?;
        }
    }
    Ok(())
}

/// What a `--max-tokens` budget left out, in words.
pub fn cut_note(cut: &Cut, max: u32) -> String {
    format!(
        "--max-tokens {max}: {} more hit(s) left out, {} line(s) trimmed from the last hit",
        cut.dropped_hits, cut.trimmed_lines
    )
}

/// Write one JSON object per hit. With a budget, each object carries the hit's `content`;
/// the hit trimmed by the budget has `"truncated": true`.
pub fn write_json(
    out: &mut impl Write,
    hits: &[Hit],
    q: &Query,
    (branch, degraded): (&str, Option<&str>),
    kind: Option<Kind>,
    style: &Style,
) -> std::io::Result<()> {
    for (i, hit) in hits.iter().enumerate() {
        // With a budget, the content and whether the budget trimmed it (the last hit only).
        let content = match style {
            Style::Full { cut, .. } => Some(i + 1 == hits.len() && cut.trimmed_lines > 0),
            Style::Snippet => None,
        };
        let mut record = HitRecord::new(hit, q, branch, degraded, content);
        if let Some(kind) = kind {
            record = record.explained(hit, kind);
        }
        let line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
        writeln!(out, "{line}")?;
    }
    if let Style::Full { cut, max } = style {
        if !cut.is_empty() {
            eprintln!("note: {}", cut_note(cut, *max));
        }
    }
    Ok(())
}

/// Write `--files-only` results: one path per line, or JSON objects with the best range.
pub fn write_files(
    out: &mut impl Write,
    files: &[FileHit],
    branch: &str,
    degraded: Option<&str>,
    json: bool,
) -> std::io::Result<()> {
    for f in files {
        if json {
            let record = FileRecord::new(f, branch, degraded);
            writeln!(out, "{}", to_json(&record))?;
        } else {
            writeln!(out, "{}", path(&f.path))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_unix_times() {
        assert_eq!(when(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(when(1_795_305_600), "2026-11-22 00:00:00 UTC");
        assert_eq!(when(951_782_400), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn paths_and_content_never_reach_the_terminal_raw() {
        assert_eq!(path("src/a.rs"), "src/a.rs");
        assert_eq!(path("a\nb.rs"), "\"a\\nb.rs\"");
        assert_eq!(path("x\u{1b}]0;t\u{7}"), "\"x\\u{1b}]0;t\\u{7}\"");
        assert_eq!(safe_text("\tlet x = 1;"), "\tlet x = 1;");
        let shown = safe_text("a\u{1b}[2Jb\rc\u{202e}d");
        assert!(
            !shown.chars().any(|c| c.is_control() || is_bidi(c)),
            "{shown}"
        );
        assert_eq!(shown, "a\\u{1b}[2Jb\\u{d}c\\u{202e}d");
    }

    #[test]
    fn highlights_terms_only_with_colour() {
        let terms = vec!["config".to_string()];
        assert_eq!(highlight("parse_config()", &terms, false), "parse_config()");
        assert_eq!(
            highlight("parse_config()", &terms, true),
            "parse_\x1b[1;31mconfig\x1b[0m()"
        );
    }
}
