//! Build script: compiles the patched shell scanner (`grammars/bash`, see src/lang/bash.rs),
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
    build.compile("codesearch-bash");
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
