//! Unit tests of the flat vector copy (`store::flat`): its file, scan and checks,
//! apart from the module so that it stays under the house's 500 lines.

use super::*;

fn h(c: char) -> String {
    std::iter::repeat_n(c, 64).collect()
}

#[test]
fn the_nearest_rows_of_the_branch_and_language_come_back_closest_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flat/t.bin");
    let (a, b, c) = (h('a'), h('b'), h('c'));
    let rows = [
        FlatRow {
            id: &format!("{a}:0"),
            content_hash: &a,
            language: Language::Rust,
            vector: &[1.0, 0.0],
        },
        FlatRow {
            id: &format!("{b}:3"),
            content_hash: &b,
            language: Language::Python,
            vector: &[0.6, 0.8],
        },
        FlatRow {
            id: &format!("{c}:1"),
            content_hash: &c,
            language: Language::Rust,
            vector: &[0.0, -2.0],
        },
    ];
    write(&path, "k1", &rows).unwrap();
    assert!(read(&path, "k2").is_none(), "another version of the table");
    let flat = read(&path, "k1").unwrap();
    assert_eq!(flat.dimension(), 2);
    let all = flat.nearest(&[2.0, 0.0], 10, None, None).hits;
    let ids: Vec<&str> = all.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, [format!("{a}:0"), format!("{b}:3"), format!("{c}:1")]);
    assert!(all[0].distance.abs() < 0.01 && (all[1].distance - 0.4).abs() < 0.01);
    assert_eq!(all[1].content_hash, b);
    let rust = flat
        .nearest(&[2.0, 0.0], 10, None, Some(Language::Rust))
        .hits;
    assert_eq!(rust.len(), 2);
    let only_b: Contents = [content_key(&b)].into_iter().collect();
    let on_branch = flat.nearest(&[2.0, 0.0], 10, Some(&only_b), None).hits;
    assert_eq!(on_branch.len(), 1);
    assert_eq!(on_branch[0].id, format!("{b}:3"));
    assert_eq!(flat.nearest(&[2.0, 0.0], 1, None, None).hits.len(), 1);
}

#[test]
fn the_scan_counts_each_content_of_the_set_once_whatever_its_language() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flat/t.bin");
    let (a, b, c) = (h('a'), h('b'), h('c'));
    let row = |id: &str, hash, language| (id.to_string(), hash, language);
    let spec = [
        row(&format!("{a}:0"), &a, Language::Rust),
        row(&format!("{b}:0"), &b, Language::Python),
        row(&format!("{a}:1"), &a, Language::Rust),
        row(&format!("{c}:0"), &c, Language::Rust),
    ];
    let rows: Vec<FlatRow<'_>> = spec
        .iter()
        .map(|(id, hash, language)| FlatRow {
            id,
            content_hash: hash,
            language: *language,
            vector: &[1.0, 0.5],
        })
        .collect();
    write(&path, "k", &rows).unwrap();
    let flat = read(&path, "k").unwrap();
    let set: Contents = [&a, &b, &h('d')]
        .map(|x| content_key(x))
        .into_iter()
        .collect();
    let python = flat.nearest(&[1.0, 0.0], 10, Some(&set), Some(Language::Python));
    assert_eq!(python.contents, 2, "a (rows apart) and b; d has no rows");
    assert_eq!(python.hits.len(), 1);
    let absent = flat.nearest(&[1.0, 0.0], 10, Some(&set), Some(Language::Go));
    assert!(absent.hits.is_empty());
    assert_eq!(
        absent.contents, 2,
        "coverage does not depend on the language"
    );
    assert_eq!(flat.nearest(&[1.0, 0.0], 10, None, None).contents, 3);
}

#[test]
fn the_wide_dot_product_equals_the_plain_one() {
    // Odd lengths and extreme values: the vectorised loop's tail and its widening.
    for len in [1usize, 31, 256, 385] {
        let mut q: Vec<i8> = (0..len)
            .map(|i| ((i * 37 % 255) as i16 - 127) as i8)
            .collect();
        let mut row: Vec<u8> = (0..len).map(|i| (i * 91 % 256) as u8).collect();
        // The largest sum a pair of lanes must hold in an `i16`: -128 twice in the row
        // against -127 twice in the query.
        if len >= 32 {
            row[..2].copy_from_slice(&[0x80, 0x80]);
            q[..2].copy_from_slice(&[-127, -127]);
        }
        let plain = dot_plain(&q, &row);
        assert_eq!(dot(&q, &row), plain, "{len}");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: checked just above.
            assert_eq!(unsafe { dot_avx2(&q, &row) }, plain, "{len}");
        }
    }
}

#[test]
fn a_truncated_or_foreign_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    let a = h('a');
    let rows = [FlatRow {
        id: &format!("{a}:0"),
        content_hash: &a,
        language: Language::Rust,
        vector: &[1.0],
    }];
    write(&path, "k", &rows).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(4).position(|w| w == b"rust").unwrap();
    let mut renamed = bytes.clone();
    renamed[at..at + 4].copy_from_slice(b"rusk");
    std::fs::write(&path, &renamed).unwrap();
    assert!(
        read(&path, "k").is_none(),
        "a language this build does not know"
    );
    std::fs::write(&path, &bytes).unwrap();
    assert!(read(&path, "k").is_some());
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert!(read(&path, "k").is_none());
    std::fs::write(&path, b"not ours").unwrap();
    assert!(read(&path, "k").is_none());
}
