//! Output for agents and scripts: `--files-only` and the `--max-tokens` budget.

use crate::common::TestRepo;

fn many_functions() -> TestRepo {
    let mut files = Vec::new();
    for i in 0..6 {
        let body: String = (0..30)
            .map(|j| format!("    let checksum_{j} = checksum_step(data, {j});\n"))
            .collect();
        files.push((
            format!("src/sum_{i}.rs"),
            format!("/// Checksum variant {i}.\npub fn checksum_{i}(data: &[u8]) -> u32 {{\n{body}    0\n}}\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    TestRepo::with_files(&refs)
}

#[test]
fn files_only_lists_each_path_once_in_rank_order() {
    let repo = many_functions();
    let out = repo.run_ok(&["checksum step", "-q", "--files-only"], 0);
    let paths: Vec<&str> = out.lines().collect();
    assert_eq!(paths.len(), 6, "{out}");
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 6);
    assert!(paths.iter().all(|p| p.starts_with("src/sum_")));
    // JSON carries the score and the best line range, ranked best first.
    let out = repo.run_ok(&["checksum step", "-q", "-l", "--json"], 0);
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 6);
    assert!(objs
        .windows(2)
        .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
    assert!(objs[0]["start_line"].as_u64().unwrap() >= 1);
}

/// `-l -n N` lists N files, as `rg -l | head -n N` would, where it listed the files of the
/// first N hits: here the first hits are all in one large file, and `-n 3` listed one path.
#[test]
fn files_only_lists_as_many_files_as_asked_for() {
    let function = |i: usize, n: usize| {
        let body: String = (0..n)
            .map(|j| {
                format!(
                    "    let checksum_{j} = checksum_step(data, {j}) ^ checksum_step(seed, {i});\n"
                )
            })
            .collect();
        format!("pub fn checksum_{i}(data: &[u8], seed: &[u8]) -> u32 {{\n{body}    0\n}}\n\n")
    };
    let big: String = (0..12).map(|i| function(i, 30)).collect();
    let mut files = vec![("src/big.rs".to_string(), big)];
    for i in 0..4 {
        let text = format!("pub fn other_{i}() -> u32 {{\n    checksum_step(&[], {i})\n}}\n");
        files.push((format!("src/other_{i}.rs"), text));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    let hits = repo.search("checksum step", &["-n", "3"]);
    assert!(hits.iter().all(|h| h["path"] == "src/big.rs"), "{hits:#?}");
    let list = |n: &str| -> Vec<String> {
        let out = repo.run_ok(&["checksum step", "-q", "-l", "-n", n], 0);
        out.lines().map(str::to_string).collect()
    };
    let all = list("50");
    assert_eq!(all.len(), 5, "{all:?}");
    assert_eq!(list("3"), all[..3], "{all:?}");
}

#[test]
fn max_tokens_fills_the_budget_and_says_what_was_cut() {
    let repo = many_functions();
    let all = repo.run_ok(&["checksum step", "-q", "--max-tokens", "100000"], 0);
    assert!(!all.contains("left out"), "{all}");
    let small = repo.run_ok(&["checksum step", "-q", "--max-tokens", "400"], 0);
    assert!(small.len() < all.len());
    let note = small.lines().last().unwrap();
    assert!(
        note.contains("--max-tokens 400") && note.contains("left out"),
        "{note}"
    );
    // Whole lines only: every printed line is the end of that numbered line of the file.
    let mut path = String::new();
    for line in small.lines() {
        if let Some((n, code)) = line.split_once("│ ") {
            let text = std::fs::read_to_string(repo.path().join(&path)).unwrap();
            let n: usize = n.trim().parse().unwrap();
            let actual = text.lines().nth(n - 1).unwrap();
            assert!(actual.ends_with(code), "{path}:{n}: {code:?} vs {actual:?}");
        } else if let Some((p, _)) = line.split_once(':') {
            path = p.to_string();
        }
    }
    // JSON: full content, the trimmed hit is marked, the budget is roughly kept.
    let out = repo.run_ok(&["checksum step", "-q", "--json", "--max-tokens", "400"], 0);
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chars: usize = objs
        .iter()
        .map(|o| o["content"].as_str().unwrap().len())
        .sum();
    assert!(chars < 400 * 6, "{chars} characters for 400 tokens");
    let last = objs.last().unwrap();
    let lines = last["content"].as_str().unwrap().lines().count() as u64;
    assert_eq!(
        last["end_line"].as_u64().unwrap() - last["start_line"].as_u64().unwrap() + 1,
        lines
    );
}
