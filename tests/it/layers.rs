//! Layers depend only downward: the binary's cli → answer → error → search / share / maintenance → index → workspace →
//! store / embed / git → lang → http → config → text → util → env. This test reads every source file and
//! fails when a module imports one above it or beside it (search and index, say), naming the file
//! and the import, and when a module of `src/` is in no layer (it would escape the check).

use std::path::Path;

/// The layers from the top down: a module may import only modules of layers below its own.
/// `error` gathers every module's error for the command line, so it sits right under it.
const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["report"],
    &["answer"],
    &["error"],
    &["search", "share", "maintenance"],
    &["index"],
    &["workspace"],
    &["store", "embed", "git"],
    &["lang"],
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

/// Every file under `src/`: its path (relative, `/`-separated) and its text.
fn source_texts() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(f).unwrap())
        })
        .collect()
}

/// Every line of code (not a comment) under `src/`, with its file (relative, `/`-separated)
/// and line number, for `check` to judge; returns what `check` said was wrong.
fn wrong_lines(check: impl Fn(&str, &str) -> Option<String>) -> Vec<String> {
    let mut wrong = Vec::new();
    for (rel, text) in source_texts() {
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

/// The files of `src/` (relative, `/`-separated) with their code: comments and a trailing
/// `#[cfg(test)] mod tests` left out (`pub(super) mod tests` too, whose helpers a sibling's
/// tests share), since a test may reach anywhere in its module.
fn code_files() -> std::collections::BTreeMap<String, String> {
    source_texts()
        .into_iter()
        .map(|(rel, text)| {
            let tests = [
                "#[cfg(test)]\nmod tests",
                "#[cfg(test)]\npub(super) mod tests",
            ]
            .iter()
            .filter_map(|t| text.find(t))
            .min();
            let text = match tests {
                Some(i) => &text[..i],
                None => &text,
            };
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            (rel, code.join("\n"))
        })
        .collect()
}

/// The module path of a file: `search/rank.rs` is `search::rank`, `store/mod.rs` is `store`.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file that defines the longest prefix of a module path, if any.
fn file_of(files: &std::collections::BTreeMap<String, String>, segs: &[String]) -> Option<String> {
    (1..=segs.len()).rev().find_map(|n| {
        let base = segs[..n].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|c| files.contains_key(c))
    })
}

/// Which files each file of `src/` imports: every `crate::`, `super::` and `self::` path in
/// its code (each name of a `{…}` group on its own) and a `mod.rs`'s `use child::…`
/// (re-exports included: a facade that re-exports a child depends on it).
fn import_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let files = code_files();
    let mut graph = std::collections::BTreeMap::new();
    for (rel, code) in &files {
        let me = module_of(rel);
        let mut out = std::collections::BTreeSet::new();
        let mut add = |segs: Vec<String>| {
            if let Some(f) = file_of(&files, &segs).filter(|f| f != rel) {
                out.insert(f);
            }
        };
        for (i, _) in code.match_indices(['c', 's']) {
            let rest = &code[i..];
            let starts = ["crate::", "super::", "self::"]
                .iter()
                .any(|p| rest.starts_with(p));
            let boundary = i == 0
                || !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
            if !starts || !boundary {
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let path: Vec<&str> = rest[..end].split("::").filter(|s| !s.is_empty()).collect();
            let mut segs = if path[0] == "crate" {
                Vec::new()
            } else {
                me.clone()
            };
            let mut k = usize::from(path[0] == "crate");
            while k < path.len() && (path[k] == "super" || path[k] == "self") {
                if path[k] == "super" {
                    segs.pop();
                }
                k += 1;
            }
            segs.extend(path[k..].iter().map(|s| s.to_string()));
            let group = rest[end..]
                .strip_prefix('{')
                .filter(|_| rest[..end].ends_with("::"));
            match group.and_then(|g| g.find('}').map(|j| &g[..j])) {
                Some(names) => {
                    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        let first = name.split([':', ' ']).next().unwrap_or(name);
                        let mut s = segs.clone();
                        if first != "self" {
                            s.push(first.to_string());
                        }
                        add(s);
                    }
                }
                None => add(segs),
            }
        }
        if rel.ends_with("mod.rs") {
            // A facade's own code that calls into a child by its name (`file::read(…)`).
            for child in code.lines().filter_map(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix("pub ").unwrap_or(l);
                l.strip_prefix("mod ").and_then(|m| m.strip_suffix(';'))
            }) {
                let named = code.match_indices(&format!("{child}::")).any(|(i, _)| {
                    !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                });
                if named {
                    let mut s = me.clone();
                    s.push(child.to_string());
                    add(s);
                }
            }
            for line in code.lines() {
                let l = line.trim_start();
                let l = l.strip_prefix("pub ").unwrap_or(l);
                if let Some(first) = l.strip_prefix("use ").and_then(|u| u.split("::").next()) {
                    if !["crate", "super", "self", "std"].contains(&first) {
                        let mut s = me.clone();
                        s.push(first.to_string());
                        add(s);
                    }
                }
            }
        }
        graph.insert(rel.clone(), out);
    }
    graph
}

/// No file of `src/` imports, directly or through others, a file that imports it: each
/// module's vocabulary (its errors, its types) lives in a file of its own that its stages
/// import, and its `mod.rs` only declares and re-exports, so the stages never import the
/// facade that imports them.
#[test]
fn no_cycle_between_files() {
    let graph = import_graph();
    // Depth-first search with colours; the path on the stack names a cycle when one is met.
    fn visit<'a>(
        f: &'a str,
        graph: &'a std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        state: &mut std::collections::HashMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(f, 1);
        stack.push(f);
        for g in &graph[f] {
            match state.get(g.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == g).unwrap();
                    cycles.push(format!("{} -> {g}", stack[from..].join(" -> ")));
                }
                Some(_) => {}
                None => visit(g, graph, state, stack, cycles),
            }
        }
        stack.pop();
        state.insert(f, 2);
    }
    let mut state = std::collections::HashMap::new();
    let mut cycles = Vec::new();
    for f in graph.keys() {
        if !state.contains_key(f.as_str()) {
            visit(f, &graph, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        cycles.join("\n")
    );
}

/// The graph sees what it should: a stage's import of the search vocabulary, a facade's
/// re-export and a grouped import each make an arrow (else the test above proves nothing).
#[test]
fn the_import_graph_sees_each_kind_of_import() {
    let graph = import_graph();
    assert!(graph["search/rank.rs"].contains("search/types.rs"));
    assert!(graph["search/mod.rs"].contains("search/pipeline.rs"));
    assert!(graph["store/flat.rs"].contains("store/lance.rs"));
    assert!(
        graph["index/run.rs"].contains("lang/quality.rs")
            || graph["index/scan.rs"].contains("lang/quality.rs")
    );
}
