//! Build script: compiles the patched shell scanner (`grammars/bash`, see src/lang/bash.rs),
//! checking that it still matches the locked tree-sitter-bash,
//! and packs the release binary's relative relocations (`DT_RELR`) where the C library that
//! will load it understands them.
//!
//! Why: the binary is a position-independent executable whose vtables and static tables hold
//! about 400,000 pointers; as ordinary `.rela.dyn` entries they take 9.5 MB of the file and
//! the loader reads every one at each start. Packed, they take a few kilobytes, the binary is
//! 9 MB smaller and each process starts about a millisecond sooner (bench/history/2026-11-23-to-25.md, eighth
//! session). A binary with packed relocations needs glibc 2.36 or newer to start, so the flag
//! is only passed when building for the machine we run on (no cross target) and its glibc is
//! new enough; linkers that predate the flag warn and ignore it, which is harmless.

use std::env;
use std::process::Command;

/// The first glibc release whose loader applies `DT_RELR` relocations.
const MIN_GLIBC: (u32, u32) = (2, 36);

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    patched_bash_scanner();
    if env::var("PROFILE").as_deref() != Ok("release") {
        return; // debug and test builds link as before: nothing there is measured for size
    }
    let target = env::var("TARGET").unwrap_or_default();
    let host = env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return; // the build machine's glibc says nothing about a cross target's
    }
    if host_glibc().is_some_and(|v| v >= MIN_GLIBC) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// tree-sitter-bash's external scanner with its fix (grammars/bash/scanner.c), its five
/// exported functions renamed so that they live beside the crate's own, and the C side of the
/// language that uses them (grammars/bash/language.c).
fn patched_bash_scanner() {
    let dir = std::path::Path::new("grammars/bash");
    let mut build = cc::Build::new();
    build.std("c11").include(dir).warnings(false);
    for f in ["create", "destroy", "scan", "serialize", "deserialize"] {
        build.define(
            &format!("tree_sitter_bash_external_scanner_{f}"),
            Some(format!("codesearch_bash_external_scanner_{f}").as_str()),
        );
    }
    for file in ["scanner.c", "language.c"] {
        build.file(dir.join(file));
        println!("cargo:rerun-if-changed=grammars/bash/{file}");
    }
    println!("cargo:rerun-if-changed=grammars/bash/tree_sitter");
    check_vendored_bash();
    build.compile("codesearch-bash");
}

/// The tree-sitter-bash release grammars/bash was copied (and patched) from, and its
/// Cargo.lock checksum. `language.c` copies the crate's `TSLanguage` by value and hands it
/// our scanner: if the crate moves on, the struct layout and the scanner's tokens may no
/// longer match, silently. So the build stops until grammars/bash is vendored again.
const VENDORED_BASH: (&str, &str) = (
    "0.25.1",
    "9e5ec769279cc91b561d3df0d8a5deb26b0ad40d183127f409494d6d8fc53062",
);
/// The vendored headers, byte-identical to the crate's `src/tree_sitter/`.
const VENDORED_HEADERS: [&str; 3] = ["parser.h", "alloc.h", "array.h"];
const REVENDOR: &str = "re-vendor grammars/bash from the new crate (see src/lang/bash.rs)";

/// Fail the build when the locked tree-sitter-bash is not the release grammars/bash came
/// from, or its headers differ from the vendored ones (when its source can be found in the
/// cargo registry: `$CARGO_HOME/registry/src/*/tree-sitter-bash-VERSION`; when it cannot,
/// say so in a warning, the version check still holds).
fn check_vendored_bash() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lock = std::path::Path::new(&manifest_dir).join("Cargo.lock");
    let Ok(text) = std::fs::read_to_string(&lock) else {
        println!("cargo:warning=no Cargo.lock: the vendored shell scanner was not checked");
        return;
    };
    let text = text.replace("\r\n", "\n");
    let Some((version, checksum)) = locked_package(&text, "tree-sitter-bash") else {
        panic!("tree-sitter-bash is not in Cargo.lock: {REVENDOR}, or remove grammars/bash");
    };
    if (version.as_str(), checksum.as_str()) != VENDORED_BASH {
        panic!(
            "tree-sitter-bash changed: Cargo.lock has {version} (checksum {checksum}), \
             grammars/bash was vendored from {} (checksum {}): {REVENDOR}",
            VENDORED_BASH.0, VENDORED_BASH.1
        );
    }
    let Some(src) = registry_source(&format!("tree-sitter-bash-{version}")) else {
        println!(
            "cargo:warning=the source of tree-sitter-bash {version} was not found in the \
             cargo registry: the vendored shell-grammar headers were not compared with it"
        );
        return;
    };
    for header in VENDORED_HEADERS {
        let theirs = src.join("src/tree_sitter").join(header);
        let ours = std::path::Path::new("grammars/bash/tree_sitter").join(header);
        println!("cargo:rerun-if-changed={}", theirs.display());
        let (a, b) = (std::fs::read(&theirs), std::fs::read(&ours));
        if a.is_err() || a.ok() != b.ok() {
            panic!(
                "grammars/bash/tree_sitter/{header} differs from {}: {REVENDOR}",
                theirs.display()
            );
        }
    }
}

/// The version and checksum of the package `name` in a Cargo.lock text.
fn locked_package(lock: &str, name: &str) -> Option<(String, String)> {
    let quoted = |line: &str, key: &str| {
        let rest = line.strip_prefix(key)?.trim().strip_prefix('=')?.trim();
        Some(rest.trim_matches('"').to_string())
    };
    let start = lock.find(&format!("[[package]]\nname = \"{name}\"\n"))?;
    let block = lock[start..].split("\n\n").next()?;
    let field = |key| block.lines().find_map(|l| quoted(l, key));
    Some((field("version")?, field("checksum")?))
}

/// `$CARGO_HOME/registry/src/<any registry>/<dir>` (`CARGO_HOME` defaults to `~/.cargo`).
fn registry_source(dir: &str) -> Option<std::path::PathBuf> {
    let home = env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join(dir)))
        .find(|p| p.is_dir())
}

/// The build machine's glibc version as (major, minor), from `getconf GNU_LIBC_VERSION`
/// ("glibc 2.36"); `None` when it cannot be told, which keeps the ordinary relocations.
fn host_glibc() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
