//! Where a claim about a content lies in its text: lines by number, a needle within a
//! budget, and a doc comment as whole consecutive comment lines.

/// The text with the byte range of each of its lines (split at `\n`, 1-based).
pub(super) struct Lines<'t> {
    text: &'t str,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub(super) fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    pub(super) fn count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// The text of lines `first..=last` (1-based, within the file), without the last
    /// newline.
    pub(super) fn span(&self, first: u32, last: u32) -> &'t str {
        let from = self.starts[first as usize - 1];
        let to = self
            .starts
            .get(last as usize)
            .map_or(self.text.len(), |&next| next - 1);
        &self.text[from..to]
    }
}

/// Whether `haystack` holds `needle`, paying its length out of `budget` (false once spent).
pub(super) fn found(haystack: &str, needle: &str, budget: &mut usize) -> bool {
    match budget.checked_sub(haystack.len()) {
        Some(left) => {
            *budget = left;
            haystack.contains(needle)
        }
        None => false,
    }
}

/// Whether `line` holds `doc` with, around it, only white space and punctuation (comment
/// markers: `///`, ` * `, `#`, `--`, `"""`…), paying the line's length out of `budget`
/// (`None` once spent). Where `open_end`, anything may follow (a doc cut mid-line).
fn holds_line(line: &str, doc: &str, open_end: bool, budget: &mut usize) -> Option<bool> {
    *budget = budget.checked_sub(line.len().max(1))?;
    Some(
        line.match_indices(doc)
            .any(|(i, _)| is_marker(&line[..i]) && (open_end || is_marker(&line[i + doc.len()..]))),
    )
}

/// Whether `text` is only white space and punctuation: a comment's markers, or a line of
/// a comment that is blank.
fn is_marker(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || c.is_ascii_punctuation())
}

/// Whether `doc` (its trimmed, non-empty lines) is the text of consecutive lines among
/// `first..=last` of `lines`: each file line holds one doc line with only comment markers
/// around it, and only lines that are blank or bare markers (a doc's empty lines) may come
/// between. A doc cut at its length bound (`cut`) may stop short of its last line's end.
/// Fragments of code lines, or lines far apart, never make a doc comment. Pays each line
/// looked at out of `budget` (false once spent).
pub(super) fn found_as_lines(
    lines: &Lines<'_>,
    (first, last): (u32, u32),
    doc: &[&str],
    cut: bool,
    budget: &mut usize,
) -> bool {
    let Some((head, rest)) = doc.split_first() else {
        return true;
    };
    'start: for start in first..=last {
        match holds_line(
            lines.span(start, start),
            head,
            cut && rest.is_empty(),
            budget,
        ) {
            None => return false,
            Some(false) => continue,
            Some(true) => {}
        }
        let mut at = start + 1;
        for (k, want) in rest.iter().enumerate() {
            let open_end = cut && k + 1 == rest.len();
            loop {
                if at > last {
                    continue 'start;
                }
                let line = lines.span(at, at);
                at += 1;
                match holds_line(line, want, open_end, budget) {
                    None => return false,
                    Some(true) => break,
                    Some(false) if is_marker(line) => {}
                    Some(false) => continue 'start,
                }
            }
        }
        return true;
    }
    false
}
