//! Unit tests of the vector store (`store::vectors`): LanceDB and its flat copy,
//! apart from the module so that it stays under the house's 500 lines.

use super::*;

/// A store whose vectors move to LanceDB from [`SMALL`] rows, so a test crosses the line.
fn store(dir: &std::path::Path) -> ChunkStore {
    let mut cs = ChunkStore::open(&dir.join("meta.sqlite"), &dir.join("lance")).unwrap();
    cs.ann_min_rows = SMALL;
    cs
}

const SMALL: usize = 5_000;

/// Row `i`: its own content and a pseudo-random direction of 16 dimensions (its nearest
/// row is itself, at one byte per dimension too).
fn row(i: usize) -> VectorRow {
    let hash = format!("{i:064x}");
    let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let vector = (0..16)
        .map(|_| {
            x ^= x >> 29;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    VectorRow {
        id: format!("{hash}:0"),
        content_hash: hash,
        language: if i.is_multiple_of(2) {
            Language::Rust
        } else {
            Language::Python
        },
        vector,
    }
}

fn ids(hits: &[VectorHit]) -> Vec<String> {
    hits.iter().map(|h| h.id.clone()).collect()
}

#[test]
fn an_older_builds_small_table_moves_to_the_flat_file_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cs = store(dir.path());
    let rows: Vec<VectorRow> = (0..300).map(row).collect();
    // As a build before this one stored them: a LanceDB table (its flat copy aside).
    cs.add_to_table("m", &rows, 16).unwrap();
    assert!(cs.flat_vectors("m").is_none());
    let query = row(120).vector;
    let from_table = cs.search_vectors("m", &query, 5, None).unwrap();
    cs.settle_vectors("m").unwrap();
    assert!(
        !table_committed(&cs.lance_dir, &table_name("m")),
        "one copy"
    );
    let flat = cs.flat_vectors("m").expect("the flat file holds them");
    assert_eq!(flat.len(), 300);
    let from_flat = flat.nearest(&query, 5, None, None).hits;
    assert_eq!(ids(&from_flat)[0], row(120).id);
    assert_eq!(ids(&from_table)[0], row(120).id);
    assert_eq!(cs.vector_dimension("m").unwrap(), Some(16));
    // Settled already: another call changes nothing.
    cs.settle_vectors("m").unwrap();
    assert_eq!(cs.flat_vectors("m").unwrap().len(), 300);
}

#[test]
fn rows_of_a_content_embedded_again_replace_its_old_ones_and_gc_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    let cs = store(dir.path());
    cs.add_vectors("m", &(0..10).map(row).collect::<Vec<_>>())
        .unwrap();
    // Content 3 again (an interrupted run's rows are written again), and two new.
    let again: Vec<VectorRow> = [3, 10, 11].into_iter().map(row).collect();
    cs.add_vectors("m", &again).unwrap();
    let flat = cs.flat_vectors("m").unwrap();
    assert_eq!(flat.len(), 12, "content 3 once");
    assert_eq!(
        flat.stored().iter().filter(|r| r.id() == row(3).id).count(),
        1
    );
    drop(flat);
    cs.delete_vectors(&[row(3).content_hash, row(11).content_hash])
        .unwrap();
    let flat = cs.flat_vectors("m").unwrap();
    assert_eq!(flat.len(), 10);
    assert!(!flat.stored().iter().any(|r| r.id() == row(3).id));
    // A dimension the file does not have is refused, not mixed in.
    let mut odd = row(20);
    odd.vector.push(1.0);
    assert!(cs.add_vectors("m", &[odd]).is_err());
    // Every row collected: no file is left to claim a dimension, and vectors come back.
    let all: Vec<String> = (0..11).map(|i| row(i).content_hash).collect();
    cs.delete_vectors(&all).unwrap();
    assert!(!flat::path_of(&cs.lance_dir, "m").exists());
    assert_eq!(cs.vector_dimension("m").unwrap(), None);
    cs.add_vectors("m", &[row(30)]).unwrap();
    assert_eq!(cs.vector_dimension("m").unwrap(), Some(16));
}

#[test]
fn past_ann_min_rows_the_vectors_move_to_a_lancedb_table_and_leave_the_flat_file() {
    let dir = tempfile::tempdir().unwrap();
    let cs = store(dir.path());
    let first: Vec<VectorRow> = (0..SMALL - 10).map(row).collect();
    cs.add_vectors("m", &first).unwrap();
    assert!(!table_committed(&cs.lance_dir, &table_name("m")));
    let query = row(500).vector;
    let from_flat = cs
        .flat_vectors("m")
        .unwrap()
        .nearest(&query, 3, None, None)
        .hits;
    drop(first);
    let more: Vec<VectorRow> = (SMALL - 10..SMALL + 10).map(row).collect();
    cs.add_vectors("m", &more).unwrap();
    assert!(cs.flat_vectors("m").is_none(), "one copy");
    assert!(!flat::path_of(&cs.lance_dir, "m").exists());
    let t = cs.vector_table("m").unwrap().expect("a table");
    let l = cs.lance().unwrap();
    assert_eq!(l.rt.block_on(t.count_rows(None)).unwrap(), SMALL + 10);
    // Quantised and back: the same nearest rows.
    let from_table = cs.search_vectors("m", &query, 3, None).unwrap();
    assert_eq!(ids(&from_flat)[0], row(500).id);
    assert_eq!(ids(&from_table)[0], row(500).id);
    // Large, it stays where it is, and an older build's copy of it goes.
    let copy = flat::path_of(&cs.lance_dir, "m");
    flat::write(&copy, "3:a:b", &[row(1).as_flat()]).unwrap();
    cs.settle_vectors("m").unwrap();
    assert!(cs.flat_vectors("m").is_none());
    assert!(!copy.exists());
}
