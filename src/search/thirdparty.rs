//! Third-party code that no `vendor/` directory announces: a subtree that carries its own
//! licence file (`src/decNumber/ICU-license.html`, `contrib/linux-kernel/COPYING`) was
//! copied in from another project, unless it also has a package manifest of its own, which
//! makes it a member of this project's workspace (`crates/ignore/LICENSE-MIT` beside
//! `crates/ignore/Cargo.toml`). Such code is rarely what a search is after, and its long
//! prose comments match issue text well. Read from the branch's catalog at search time, so
//! it always agrees with the branch.

use crate::lang::Language;
use crate::store::{Db, StoreError};

/// File names that make a directory a package of its own (a workspace member).
const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "go.mod",
    "setup.py",
    "pyproject.toml",
];

/// Languages (by extension) a licence file may be in: code named `*license*` is no licence.
const LICENCE_LANGUAGES: &[Language] = &[
    Language::Text,
    Language::Markdown,
    Language::Rst,
    Language::Html,
];

/// Directories of a branch holding third-party code.
#[derive(Debug, Default, Clone)]
pub struct ThirdParty {
    roots: Vec<String>,
}

impl ThirdParty {
    /// The third-party subtrees of `branch`: directories below the root with a licence file
    /// and no package manifest.
    pub fn of_branch(db: &Db, branch: &str) -> Result<Self, StoreError> {
        let mut roots: Vec<String> = db
            .catalog()
            .licence_like_paths(branch)?
            .iter()
            .filter(|p| is_licence_file(p))
            .filter_map(|p| p.rsplit_once('/').map(|(dir, _)| dir.to_string()))
            .collect();
        roots.sort();
        roots.dedup();
        let mut kept = Vec::new();
        for dir in roots {
            if !has_manifest(db, branch, &dir)? {
                kept.push(dir);
            }
        }
        Ok(ThirdParty { roots: kept })
    }

    /// Whether `path` lies in a third-party subtree.
    pub fn contains(&self, path: &str) -> bool {
        self.roots.iter().any(|r| {
            path.strip_prefix(r.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

/// Whether a directory of `branch` has a package manifest.
fn has_manifest(db: &Db, branch: &str, dir: &str) -> Result<bool, StoreError> {
    for m in MANIFESTS {
        if db
            .catalog()
            .path_on_branch(branch, &format!("{dir}/{m}"))?
            .is_some()
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `LICENSE`, `COPYING.LIB`, `LICENCE-MIT`, `ICU-license.html`, `fmt.license.rst`: a
/// licence text, not code. Any part of the name counts, not only the part before its first
/// dot: spdlog keeps its bundled copy of fmt beside `fmt.license.rst`.
fn is_licence_file(path: &str) -> bool {
    if !LICENCE_LANGUAGES.contains(&Language::of_path(path)) {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let licence = |w: &str| w == "license" || w == "licence" || w == "copying";
    name.split(['.', '-', '_']).any(licence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licence_files_are_told_from_code_about_licences() {
        for p in [
            "src/decNumber/ICU-license.html",
            "contrib/linux-kernel/COPYING",
            "x/LICENSE-MIT",
            "x/LICENCE.txt",
            "x/license.md",
            "x/COPYING.LIB",
            "include/spdlog/fmt/bundled/fmt.license.rst",
        ] {
            assert!(is_licence_file(p), "{p}");
        }
        for p in [
            "tests/test-license.py",
            "src/licenses.rs",
            "x/license.json",
            "src/license.rs",
            "README",
        ] {
            assert!(!is_licence_file(p), "{p}");
        }
    }

    #[test]
    fn paths_in_a_root_and_only_there_are_contained() {
        let t = ThirdParty {
            roots: vec!["src/dec".into()],
        };
        assert!(t.contains("src/dec/a.c"));
        assert!(t.contains("src/dec/sub/b.c"));
        assert!(!t.contains("src/decoder.c"));
        assert!(!t.contains("src/dec"));
        assert!(!t.contains("src/main.c"));
    }
}
