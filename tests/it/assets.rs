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
