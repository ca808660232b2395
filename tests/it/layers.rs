//! Layers depend only downward: cli → search / index → workspace → store / embed / git /
//! config → text → util → env. This test reads every source file and fails when a module imports
//! one above it (or search and index import each other), naming the file and the import.

use std::path::Path;

/// For each module, the modules it must never import.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "env",
        &[
            "util",
            "text",
            "config",
            "store",
            "embed",
            "git",
            "workspace",
            "index",
            "search",
            "cli",
        ],
    ),
    (
        "util",
        &[
            "text",
            "config",
            "store",
            "embed",
            "git",
            "workspace",
            "index",
            "search",
            "cli",
        ],
    ),
    (
        "text",
        &[
            "config",
            "store",
            "embed",
            "git",
            "workspace",
            "index",
            "search",
            "cli",
        ],
    ),
    (
        "config",
        &[
            "store",
            "embed",
            "git",
            "workspace",
            "index",
            "search",
            "cli",
        ],
    ),
    (
        "store",
        &["embed", "git", "workspace", "index", "search", "cli"],
    ),
    (
        "git",
        &["store", "embed", "workspace", "index", "search", "cli"],
    ),
    (
        "embed",
        &["store", "git", "workspace", "index", "search", "cli"],
    ),
    ("workspace", &["index", "search", "cli"]),
    ("index", &["search", "cli"]),
    ("search", &["index", "cli"]),
];

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
        let Some((_, forbidden)) = FORBIDDEN.iter().find(|(m, _)| *m == module) else {
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
