//! Hostile repository content: nothing panics, every file is indexed or skipped with a
//! reason, and the good files stay searchable.

use std::collections::HashMap;

use crate::common::TestRepo;

#[test]
fn hostile_files_are_indexed_or_skipped_with_a_reason() {
    let repo = TestRepo::with_files(&[("good.rs", "pub fn survivor_function_marker() {}\n")]);
    let p = repo.path();
    repo.write("binary.dat", b"\x7fELF\0\0\0\x01\x02payload".as_slice());
    repo.write("nul_in_text.rs", b"fn a() {}\n\0\nfn b() {}\n".as_slice());
    repo.write("latin1.py", b"# caf\xe9\ndef f():\n    pass\n".as_slice());
    repo.write("blank.rs", " \n\t\n   \n");
    // 50 MB on one line: over the size limit, never read whole into a chunker.
    std::fs::write(p.join("huge_line.js"), vec![b'a'; 50 * 1024 * 1024]).unwrap();
    // 10,000 levels of nesting: tree-sitter and the splitter must not overflow the stack.
    let deep = format!(
        "fn deep() {{ let x = {}1{}; }}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    repo.write("deep.rs", deep);
    let braces = format!("{}\n{}\n", "{".repeat(10_000), "}".repeat(10_000));
    repo.write("deep_braces.c", braces);
    // A symlink loop and a dangling symlink.
    std::os::unix::fs::symlink("loop_b", p.join("loop_a")).unwrap();
    std::os::unix::fs::symlink("loop_a", p.join("loop_b")).unwrap();
    std::os::unix::fs::symlink("nowhere", p.join("dangling")).unwrap();
    // A file name that is not UTF-8.
    use std::os::unix::ffi::OsStrExt;
    let odd = std::ffi::OsStr::from_bytes(b"odd_\xff_name.rs");
    std::fs::write(p.join(odd), "pub fn odd_named_file_marker() {}\n").unwrap();
    // A submodule (a nested repository with its own commit).
    let sub = TestRepo::with_files(&[("inner.rs", "pub fn submodule_inner_marker() {}\n")]);
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        sub.path().to_str().unwrap(),
        "vendor/sub",
    ]);
    repo.commit_all("hostile");

    let out = repo.run(&["index"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let status = repo.status(&["--verbose"]);
    let reasons: HashMap<String, String> = status["skipped_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let reason = |path: &str| {
        reasons
            .get(path)
            .unwrap_or_else(|| panic!("{path} not listed as skipped: {reasons:?}"))
            .clone()
    };
    assert!(reason("binary.dat").contains("binary"));
    assert!(reason("nul_in_text.rs").contains("binary"));
    assert!(reason("latin1.py").contains("UTF-8"));
    assert!(reason("blank.rs").contains("empty"));
    assert!(reason("huge_line.js").contains("too large"));
    assert!(reason("loop_a").contains("symbolic link"));
    assert!(reason("dangling").contains("symbolic link"));
    assert!(reason("vendor/sub").contains("submodule"));
    assert!(reasons.keys().any(|k| k.starts_with("odd_")), "{reasons:?}");
    // Deeply nested files are indexed (or skipped with a reason), never a crash.
    for f in ["deep.rs", "deep_braces.c"] {
        let listed = reasons.contains_key(f);
        let found = !repo
            .hit_paths("deep", &["--no-index", "--path", f])
            .is_empty();
        assert!(listed || found, "{f} neither indexed nor skipped");
    }
    // The good file is still found, and nothing from inside the submodule is.
    assert_eq!(
        repo.hit_paths("survivor_function_marker", &[])[0],
        "good.rs"
    );
    let inner = repo.hit_paths("submodule_inner_marker", &[]);
    assert!(inner.iter().all(|p| !p.starts_with("vendor/")), "{inner:?}");
}

#[test]
fn a_file_removed_during_the_run_is_not_an_error() {
    let repo = TestRepo::new();
    for i in 0..600 {
        repo.write(
            &format!("f/file_{i}.rs"),
            format!("pub fn vanishing_{i}() -> u32 {{ {i} }}\n"),
        );
    }
    repo.commit_all("many");
    let mut child = repo.cmd(&["index", "-q"]).spawn().unwrap();
    // Delete files while the run walks, hashes and chunks them (spread over ~0.6 s).
    std::thread::sleep(std::time::Duration::from_millis(40));
    for i in (0..600).rev().step_by(3) {
        let _ = std::fs::remove_file(repo.path().join(format!("f/file_{i}.rs")));
        std::thread::sleep(std::time::Duration::from_millis(3));
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    // A second run settles on exactly the files that remain.
    repo.index(&[]);
    let s = repo.status(&[]);
    assert_eq!(s["files"], 400, "{s}");
    let gone = repo.hit_paths("vanishing_599", &["--no-index"]);
    assert!(!gone.contains(&"f/file_599.rs".to_string()), "{gone:?}");
    assert_eq!(
        repo.hit_paths("vanishing_1", &["--no-index"])[0],
        "f/file_1.rs"
    );
}
