//! Layers depend only downward: cli → search / index → workspace → store / embed / git /
//! config → text → util → env. This test reads every source file and fails when a module imports
//! one above it (or search and index import each other), naming the file and the import.

use std::path::Path;

/// The layers from the top down: a module may import only modules of layers below its own
/// (and, within the store / embed / git / config layer, only config).
const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["search", "index"],
    &["workspace"],
    &["store", "embed", "git"],
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

#[test]
fn no_module_imports_a_layer_above_it() {
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
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs");
        let forbidden = forbidden(module);
        if forbidden.is_empty() {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for up in forbidden.iter() {
                if line.contains(&format!("crate::{up}::"))
                    || line.contains(&format!("crate::{up};"))
                {
                    wrong.push(format!(
                        "src/{rel}:{}: {module} imports {up}: {}",
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}
