//! Layers depend only downward: the binary's cli → answer → error → search / index → workspace →
//! store / embed / git → http → config → text → util → env. This test reads every source file and
//! fails when a module imports one above it or beside it (search and index, say), naming the file
//! and the import, and when a module of `src/` is in no layer (it would escape the check).

use std::path::Path;

/// The layers from the top down: a module may import only modules of layers below its own.
/// `error` gathers every module's error for the command line, so it sits right under it.
const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["answer"],
    &["error"],
    &["search", "index"],
    &["workspace"],
    &["store", "embed", "git"],
    &["http"],
    &["config"],
    &["text"],
    &["util"],
    &["env"],
];

/// The modules `module` must never import: every module of its layer and the layers above.
fn forbidden(module: &str) -> Vec<&'static str> {
    let Some(layer) = LAYERS.iter().position(|l| l.contains(&module)) else {
        return Vec::new();
    };
    LAYERS[..=layer]
        .iter()
        .flat_map(|l| l.iter().copied())
        .filter(|m| *m != module)
        .collect()
}

/// True when `code` names module `module`: by its path, or, for `error`, by the crate-wide
/// `Error` that `lib.rs` re-exports from it.
fn imports(code: &str, module: &str) -> bool {
    let by_path =
        code.contains(&format!("crate::{module}::")) || code.contains(&format!("crate::{module};"));
    let reexport = module == "error"
        && code.match_indices("crate::Error").any(|(i, m)| {
            !code[i + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        });
    by_path || reexport
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every line of code (not a comment) under `src/`, with its file (relative, `/`-separated)
/// and line number, for `check` to judge; returns what `check` said was wrong.
fn wrong_lines(check: impl Fn(&str, &str) -> Option<String>) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim();
            if code.starts_with("//") {
                continue;
            }
            if let Some(why) = check(&rel, code) {
                wrong.push(format!("src/{rel}:{}: {why}: {code}", n + 1));
            }
        }
    }
    wrong
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let wrong = wrong_lines(|rel, code| {
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs");
        forbidden(module)
            .into_iter()
            .find(|up| imports(code, up))
            .map(|up| format!("{module} imports {up}"))
    });
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// Every module of `src/` (a file or a folder) has a layer, so the check above sees it;
/// `lib.rs` and `main.rs` only declare modules.
#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let module = name.trim_end_matches(".rs");
        let layered = LAYERS.iter().any(|l| l.contains(&module));
        if !layered && !["lib", "main"].contains(&module) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "modules in no layer: {missing:?}");
}

/// The command line is part of the binary only, and only it draws or prompts: the library
/// reports through `index::Observer` (the print lints in Cargo.toml cover printing).
#[test]
fn only_the_binary_draws_prompts_or_holds_the_command_line() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = std::fs::read_to_string(lib).unwrap();
    assert!(
        !lib.lines().any(|l| l.trim_end().ends_with("mod cli;")),
        "src/lib.rs declares the cli module"
    );
    let wrong = wrong_lines(|rel, code| {
        let library = rel != "main.rs" && !rel.starts_with("cli/");
        let draws = ["indicatif::", "dialoguer::"]
            .iter()
            .any(|c| code.contains(c));
        (library && draws).then(|| "the library draws or prompts".to_string())
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
