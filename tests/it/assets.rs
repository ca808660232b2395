//! The committed man page and completions equal freshly generated ones, bash completion
//! works through the `_git_codesearch` function git's completion calls, and CI runs the
//! test command README.md gives.

use std::path::Path;
use std::process::Command;

use crate::common;

#[test]
fn committed_man_page_and_completions_are_current() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(common::bin())
        .args(["generate-assets", "--out"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listed.lines().count(), 4, "{listed}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in listed.lines() {
        let fresh = std::fs::read(tmp.path().join(rel)).unwrap();
        let committed = std::fs::read(root.join(rel)).unwrap_or_default();
        assert!(
            fresh == committed,
            "{rel} is out of date: run `cargo run -- generate-assets` and commit"
        );
    }
    let man = std::fs::read_to_string(root.join("man/git-codesearch.1")).unwrap();
    assert!(man.contains(".TH git-codesearch 1") && man.contains("max\\-tokens"));
}

#[test]
fn bash_completion_works_through_git() {
    let script = r#"
source "$1"
words=(git codesearch ind); cword=2; __git_cmd_idx=1
_git_codesearch; echo "${COMPREPLY[*]}"
words=(git -C /tmp codesearch index --res); cword=5; __git_cmd_idx=3
_git_codesearch; echo "${COMPREPLY[*]}"
"#;
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/git-codesearch.bash");
    let out = Command::new("bash")
        .args(["-c", script, "bash"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        ["index", "--resume --restart"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ci_runs_the_readme_test_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let after = &readme[readme
        .find("Run the tests")
        .expect("README names the test command")..];
    let fenced = after.split("```sh\n").nth(1).unwrap();
    let command = fenced.lines().next().unwrap().trim();
    assert!(command.contains("cargo test"), "{command}");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert_eq!(ci.lines().last().map(str::trim), Some(command), "{ci}");
}

/// grammars/bash is tree-sitter-bash's scanner and headers, patched in one documented way
/// (`isdigit` of a code point → `is_ascii_digit`): the copy still matches the crate Cargo.lock
/// pins, whose `TSLanguage` language.c copies by value. build.rs refuses a changed version or
/// header; this also checks the scanner. Skipped (with a message) when cargo cannot tell where
/// the crate's source is.
#[test]
fn the_vendored_bash_scanner_matches_the_pinned_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Offline, cargo can resolve only this platform's packages (the others are not fetched).
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let host = Command::new(rustc).arg("-vV").output().ok().and_then(|o| {
        let text = String::from_utf8(o.stdout).ok()?;
        Some(
            text.lines()
                .find_map(|l| l.strip_prefix("host: "))?
                .to_string(),
        )
    });
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = host.and_then(|host| {
        Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--offline", "--locked"])
            .args(["--filter-platform", &host])
            .current_dir(root)
            .output()
            .ok()
    });
    let Some(meta) = out
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
    else {
        eprintln!("cargo metadata failed: the vendored bash scanner was not compared");
        return;
    };
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "tree-sitter-bash")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("tree-sitter-bash is a dependency");
    let crate_src = Path::new(manifest).parent().unwrap().join("src");
    let ours = root.join("grammars/bash");
    for header in ["parser.h", "alloc.h", "array.h"] {
        let theirs = std::fs::read(crate_src.join("tree_sitter").join(header)).unwrap();
        let vendored = std::fs::read(ours.join("tree_sitter").join(header)).unwrap();
        assert!(
            theirs == vendored,
            "grammars/bash/tree_sitter/{header} differs"
        );
    }
    // The scanner, with the documented change undone, is the crate's.
    let theirs = std::fs::read_to_string(crate_src.join("scanner.c")).unwrap();
    let vendored = std::fs::read_to_string(ours.join("scanner.c")).unwrap();
    let (header, body) = vendored.split_once(" */\n").unwrap();
    assert!(header.starts_with("/*"), "{header}");
    let helper =
        "static inline bool is_ascii_digit(int32_t c) { return c >= '0' && c <= '9'; }\n\n";
    assert_eq!(body.matches(helper).count(), 1);
    assert_eq!(body.matches("is_ascii_digit(lexer->lookahead)").count(), 2);
    let undone = body.replacen(helper, "", 1).replace(
        "is_ascii_digit(lexer->lookahead)",
        "isdigit(lexer->lookahead)",
    );
    assert!(
        undone == theirs,
        "grammars/bash/scanner.c differs from the crate's beyond its patch"
    );
}
