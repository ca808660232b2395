//! The junk filter: files that are binary, not UTF-8, too large, or look generated or
//! minified (by line-length, alphanumeric and digit metrics) are skipped with a reason.

use crate::config::IndexConfig;

/// Why a file is not indexed. Recorded in the catalog and listed by `status --verbose`.
#[derive(Debug, Clone, PartialEq)]
pub enum SkipReason {
    /// Larger than `max_file_size`.
    TooLarge(u64),
    /// Contains a NUL byte.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// Empty or only white space.
    Blank,
    /// More lines than allowed.
    TooManyLines(usize),
    /// A line longer than allowed (minified or generated).
    LongLine(usize),
    /// Mean line length too high.
    LongAverageLine(f64),
    /// Too few letters and digits.
    LowAlphanumeric(f64),
    /// Mostly digits (a data table).
    MostlyDigits(f64),
    /// A symbolic link (its target is indexed under its own path).
    Symlink,
    /// A git submodule (a repository of its own).
    Submodule,
    /// The file name is not valid UTF-8.
    NonUtf8Name,
    /// The file could not be read (it vanished, or permissions).
    Unreadable(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge(n) => write!(f, "too large ({n} bytes)"),
            SkipReason::Binary => write!(f, "binary (contains NUL bytes)"),
            SkipReason::NotUtf8 => write!(f, "not valid UTF-8"),
            SkipReason::Blank => write!(f, "empty or only white space"),
            SkipReason::TooManyLines(n) => write!(f, "too many lines ({n})"),
            SkipReason::LongLine(n) => write!(f, "line of {n} characters (minified or generated?)"),
            SkipReason::LongAverageLine(a) => write!(f, "average line length {a:.0} (generated?)"),
            SkipReason::LowAlphanumeric(x) => write!(f, "alphanumeric fraction {x:.2} too low"),
            SkipReason::MostlyDigits(x) => write!(f, "digit fraction {x:.2} too high (data?)"),
            SkipReason::Symlink => write!(f, "symbolic link"),
            SkipReason::Submodule => write!(f, "git submodule"),
            SkipReason::NonUtf8Name => write!(f, "file name is not valid UTF-8"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
        }
    }
}

/// Check a file's bytes; on success return them as text.
pub fn check<'a>(bytes: &'a [u8], cfg: &IndexConfig) -> Result<&'a str, SkipReason> {
    if bytes.len() as u64 > cfg.max_file_size {
        return Err(SkipReason::TooLarge(bytes.len() as u64));
    }
    if bytes.contains(&0) {
        return Err(SkipReason::Binary);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    if text.trim().is_empty() {
        return Err(SkipReason::Blank);
    }
    metrics(text, cfg)?;
    Ok(text)
}

fn metrics(text: &str, cfg: &IndexConfig) -> Result<(), SkipReason> {
    let mut lines = 0usize;
    let mut chars_total = 0usize;
    for line in text.lines() {
        lines += 1;
        // Byte length bounds the character count; count characters only when it matters.
        let len = if line.len() > cfg.max_line_length {
            line.chars().count()
        } else {
            line.len()
        };
        if len > cfg.max_line_length {
            return Err(SkipReason::LongLine(len));
        }
        chars_total += len;
    }
    if lines > cfg.max_lines {
        return Err(SkipReason::TooManyLines(lines));
    }
    let avg = chars_total as f64 / lines.max(1) as f64;
    if avg > cfg.max_avg_line_length {
        return Err(SkipReason::LongAverageLine(avg));
    }
    let (mut alnum, mut digits, mut total) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        total += 1;
        if c.is_alphanumeric() {
            alnum += 1;
            if c.is_ascii_digit() {
                digits += 1;
            }
        }
    }
    let total = total.max(1) as f64;
    let alnum_fraction = alnum as f64 / total;
    if alnum_fraction < cfg.min_alnum_fraction {
        return Err(SkipReason::LowAlphanumeric(alnum_fraction));
    }
    let digit_fraction = digits as f64 / total;
    if digit_fraction > cfg.max_digit_fraction {
        return Err(SkipReason::MostlyDigits(digit_fraction));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> IndexConfig {
        IndexConfig::default()
    }

    #[test]
    fn ordinary_code_passes() {
        let src = "fn main() {\n    println!(\"hello\");\n}\n";
        assert_eq!(check(src.as_bytes(), &cfg()), Ok(src));
    }

    #[test]
    fn junk_is_named() {
        assert_eq!(check(b"a\0b", &cfg()), Err(SkipReason::Binary));
        assert_eq!(check(&[0xff, 0xfe, 0x41], &cfg()), Err(SkipReason::NotUtf8));
        assert_eq!(check(b"  \n\t\n", &cfg()), Err(SkipReason::Blank));
        let minified = format!("var a={};", "x".repeat(400));
        assert!(matches!(
            check(minified.as_bytes(), &cfg()),
            Err(SkipReason::LongLine(_))
        ));
        let digits = "1234567890 1234567890\n".repeat(50);
        assert!(matches!(
            check(digits.as_bytes(), &cfg()),
            Err(SkipReason::MostlyDigits(_))
        ));
        let symbols = "{}[]();,.<>{}[]();,.<>\n".repeat(20);
        assert!(matches!(
            check(symbols.as_bytes(), &cfg()),
            Err(SkipReason::LowAlphanumeric(_))
        ));
        let many = "x\n".repeat(100_001);
        assert!(matches!(
            check(many.as_bytes(), &cfg()),
            Err(SkipReason::TooManyLines(_))
        ));
    }

    #[test]
    fn long_line_is_counted_in_characters() {
        // 200 CJK characters are 600 bytes but only 200 characters: not too long.
        let line = "数".repeat(200);
        let text = format!("// {line}\nfn a() {{}}\n");
        assert!(metrics(&text, &cfg()).is_ok());
    }
}
