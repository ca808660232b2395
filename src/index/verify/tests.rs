//! The check against real chunker and tagger output, and against each kind of lie.

use super::*;
use crate::lang::chunk::Chunker;
use crate::lang::symbols::Tagger;
use crate::lang::Language;

const SOURCE: &str = "use std::path::Path;\n\n/// Read the settings at `path`.\npub fn load_settings(path: &Path) -> u32 {\n    let text = std::fs::read_to_string(path).unwrap_or_default();\n    text.len() as u32\n}\n\n\nstruct Settings {\n    verbose: bool,\n}\n";

/// What this build computes for `text` of `language`, as the index would store it.
pub(crate) fn computed(language: Language, text: &str, tokens: usize) -> Stored {
    let hash = crate::util::sha256_hex(text.as_bytes());
    let chunks: Vec<ChunkRow> = Chunker::new(tokens)
        .chunk(language, text)
        .into_iter()
        .enumerate()
        .map(|(i, c)| ChunkRow {
            id: format!("{hash}:{i}"),
            content_hash: hash.clone(),
            filepath: "src/x".into(),
            language,
            content: c.text,
            start_line: c.start_line,
            end_line: c.end_line,
        })
        .collect();
    let symbols = Tagger::default().symbols(language, text);
    Stored {
        row: ContentRow {
            language,
            n_chunks: chunks.len(),
            n_symbols: symbols.len(),
            size: text.len() as u64,
        },
        hash,
        chunks,
        symbols,
    }
}

#[test]
fn what_this_build_computes_is_true_of_its_bytes_however_it_was_cut() {
    for tokens in [16, 64, 4096] {
        let s = computed(Language::Rust, SOURCE, tokens);
        assert!(s.chunks.len() > 1 || tokens == 4096);
        assert!(!s.symbols.is_empty());
        check(SOURCE.as_bytes(), &s).unwrap();
    }
}

#[test]
fn each_kind_of_lie_is_caught() {
    let good = computed(Language::Rust, SOURCE, 16);
    type Lie = Box<dyn Fn(&mut Stored)>;
    let lies: Vec<(&str, Lie)> = vec![
        (
            "other text",
            Box::new(|s| s.chunks[1].content = "pub fn injected() {}".into()),
        ),
        (
            "a line added",
            Box::new(|s| s.chunks[0].content.push_str("\nrun_this();")),
        ),
        (
            "lines moved",
            Box::new(|s| {
                s.chunks[1].start_line += 1;
                s.chunks[1].end_line += 1;
            }),
        ),
        (
            "a chunk left out",
            Box::new(|s| {
                s.chunks.pop();
                s.row.n_chunks -= 1;
            }),
        ),
        (
            "a chunk twice",
            Box::new(|s| {
                let mut again = s.chunks[0].clone();
                again.id = format!("{}:{}", s.hash, s.chunks.len());
                s.chunks.push(again);
                s.row.n_chunks += 1;
            }),
        ),
        ("a count", Box::new(|s| s.row.n_chunks += 1)),
        ("the size", Box::new(|s| s.row.size += 1)),
        (
            "a signature",
            Box::new(|s| s.symbols[0].signature = "fn evil()".into()),
        ),
        ("a name", Box::new(|s| s.symbols[0].name = "evil".into())),
        (
            "a kind",
            Box::new(|s| s.symbols[0].kind = "function\n".into()),
        ),
        (
            "a doc comment",
            Box::new(|s| {
                let f = s.symbols.iter_mut().find(|f| f.doc.is_some()).unwrap();
                f.doc = Some("Deletes everything; safe to call.".into());
            }),
        ),
        (
            "lines past the end",
            Box::new(|s| s.symbols[0].end_line = 99),
        ),
    ];
    for (what, lie) in lies {
        let mut s = good.clone();
        lie(&mut s);
        assert!(check(SOURCE.as_bytes(), &s).is_err(), "{what} passed");
    }
    let other = SOURCE.replace("verbose", "quiet");
    assert!(
        check(other.as_bytes(), &good).is_err(),
        "other bytes passed"
    );
}

#[test]
fn a_snapshot_claiming_endless_definitions_is_refused_quickly() {
    // One long line, and 100,000 definitions of it: each check would read the line again.
    let text = format!("fn f() {{}} // {}\n", "x".repeat(100_000));
    let mut s = computed(Language::Rust, &text, 4096);
    let one = s.symbols[0].clone();
    s.symbols = vec![one; 100_000];
    s.row.n_symbols = s.symbols.len();
    let err = check(text.as_bytes(), &s).unwrap_err();
    assert!(err.contains("costs too much"), "{err}");
}

#[test]
fn a_long_doc_comment_cut_to_its_first_lines_is_found_above() {
    // Found in the vendored corpus: a 150-line doc comment, stored cut to its first
    // `MAX_DOC` characters, starts far above the definition.
    let doc: String = (0..150)
        .map(|i| format!("/// Line {i} of a long explanation of the array type.\n"))
        .collect();
    let text = format!("{doc}pub struct PrimitiveArray {{\n    len: usize,\n}}\n");
    let s = computed(Language::Rust, &text, 256);
    assert!(s.symbols[0].doc.as_ref().unwrap().chars().count() >= MAX_DOC);
    check(text.as_bytes(), &s).unwrap();
    // Its lines must still be there, in order.
    let mut swapped = s.clone();
    let d = swapped.symbols[0].doc.take().unwrap();
    let mut lines: Vec<&str> = d.lines().collect();
    lines.swap(0, 5);
    swapped.symbols[0].doc = Some(lines.join("\n"));
    assert!(check(text.as_bytes(), &swapped).is_err());
}

/// Run git in `dir` with no user or system configuration, returning its output.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_branch_key_names_a_commit_only_as_a_full_id_or_a_local_branch() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "x"]);
    let head = git(dir.path(), &["rev-parse", "HEAD"]);
    let repo = Repo::discover(dir.path()).unwrap();
    assert_eq!(commit_of(&repo, "refs/heads/main"), Some(head.clone()));
    assert_eq!(
        commit_of(&repo, &format!("detached/{head}")),
        Some(head.clone())
    );
    assert_eq!(commit_of(&repo, &format!("rev/{head}")), Some(head.clone()));
    // A snapshot or a manifest names these: never a revision expression.
    for key in [
        "detached/HEAD",
        "detached/main",
        "rev/HEAD~0",
        &format!("detached/{}", &head[..12]),
        "refs/heads/main~0",
        "refs/heads/main^{commit}",
        "refs/heads/gone",
        "HEAD",
        "main",
    ] {
        assert_eq!(commit_of(&repo, key), None, "{key}");
    }
}

#[test]
fn a_doc_comment_stitched_from_fragments_of_code_lines_is_caught() {
    let text = "// remove\nconst A: u32 = 1;\nfn helper() -> u32 { all_rows() }\n// is safe\npub fn target() -> u32 {\n    1\n}\n";
    let good = computed(Language::Rust, text, 64);
    check(text.as_bytes(), &good).unwrap();
    let at = good
        .symbols
        .iter()
        .position(|s| s.name == "target")
        .unwrap();
    let mut stitched = good.clone();
    stitched.symbols[at].doc = Some("remove\nall_rows()\nis safe".into());
    let why = check(text.as_bytes(), &stitched).unwrap_err();
    assert!(why.contains("doc comment"), "{why}");
    // Whole comment lines, one after the other, are a doc comment.
    let mut whole = good.clone();
    whole.symbols[at].doc = Some("is safe".into());
    check(text.as_bytes(), &whole).unwrap();
}
