//! A C or C++ header's implementation file, by the conventions that pair them in one
//! directory: `backtracer.h` declares what `backtracer-inl.h` defines, `zstd_ddict.h` what
//! `zstd_ddict.c` does. Pure functions of a path; `search::companion` looks the paths up.

/// The extensions of a header that declares what a file beside it implements.
const HEADERS: [&str; 4] = [".h", ".hh", ".hpp", ".hxx"];

/// How an implementation is named after its header's stem, in the order they are tried: a
/// header-only library's `-inl.h` first (it sits beside a `.h` that may also have a `.cpp`
/// only for its compiled mode), then the C and C++ source extensions.
const IMPLEMENTATIONS: [&str; 7] = ["-inl.h", "-inl.hpp", ".inl", ".c", ".cc", ".cpp", ".cxx"];

/// The paths that may hold the implementation of `path`, when `path` is a header, most
/// likely first; empty for any other file (an `-inl.h` is an implementation, not a header).
pub fn implementations_of(path: &str) -> Vec<String> {
    let Some(stem) = header_stem(path) else {
        return Vec::new();
    };
    IMPLEMENTATIONS
        .iter()
        .map(|ext| format!("{stem}{ext}"))
        .collect()
}

/// `path` without its header extension, when it is a header with a name before it.
fn header_stem(path: &str) -> Option<&str> {
    let stem = HEADERS.iter().find_map(|ext| path.strip_suffix(ext))?;
    let name = stem.rsplit('/').next().unwrap_or(stem);
    (!name.is_empty() && !name.ends_with("-inl")).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_names_its_implementations_beside_it() {
        let got = implementations_of("include/spdlog/details/backtracer.h");
        assert_eq!(got[0], "include/spdlog/details/backtracer-inl.h");
        assert!(got.contains(&"include/spdlog/details/backtracer.cpp".to_string()));
        assert!(got.contains(&"include/spdlog/details/backtracer.c".to_string()));
        assert!(implementations_of("a.hpp").contains(&"a-inl.hpp".to_string()));
    }

    #[test]
    fn other_files_have_none() {
        for path in [
            "include/spdlog/details/backtracer-inl.h",
            "src/lib.c",
            "src/main.rs",
            "dir/.h",
            "README.md",
            "h",
        ] {
            assert!(implementations_of(path).is_empty(), "{path}");
        }
    }
}
