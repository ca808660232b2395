//! Vector search: the bundled local model (offline), the OpenAI-compatible client against a
//! local test server that fails in scripted ways, embedding caching across runs and
//! branches, and graceful degradation.

use std::time::Duration;

use super::common::TestRepo;
use super::embed_server::{Answer, Server};

/// Source files where each function is described only in its own words.
const FILES: &[(&str, &str)] = &[
    (
        "src/uploader.py",
        "def push_blob(client, blob, attempts=5):\n    \"\"\"Send the blob; on a transient network error wait and send it again.\"\"\"\n    for n in range(attempts):\n        try:\n            return client.put(blob)\n        except ConnectionError:\n            time.sleep(2 ** n)\n    raise GiveUp(blob)\n",
    ),
    (
        "src/colors.py",
        "def blend(a, b, t):\n    \"\"\"Linear mix of two RGB triples.\"\"\"\n    return tuple(x + (y - x) * t for x, y in zip(a, b))\n",
    ),
    (
        "src/dates.py",
        "def weekday_name(d):\n    \"\"\"Monday, Tuesday and so on for a date.\"\"\"\n    return NAMES[d.weekday()]\n",
    ),
    (
        "src/cache.py",
        "class Lru:\n    \"\"\"Keeps the most recently used entries, evicting the oldest.\"\"\"\n    def get(self, key):\n        return self.items.pop(key, None)\n",
    ),
];

/// Write `.codesearch.toml` (kept out of the index, so file counts stay those of FILES).
fn config(repo: &TestRepo, text: &str) {
    repo.write(".git/info/exclude", ".codesearch.toml\n");
    repo.write(".codesearch.toml", text);
    repo.trust_config();
}

/// More code, so that "top 5" means something.
const DISTRACTORS: &[(&str, &str)] = &[
    ("src/cli.py", "def parse_args(argv):\n    \"\"\"Read command line flags into options.\"\"\"\n    return Options.from_list(argv)\n"),
    ("src/table.py", "def render_table(rows):\n    \"\"\"Draw rows as an ASCII grid.\"\"\"\n    return '\\n'.join(' | '.join(r) for r in rows)\n"),
    ("src/auth.py", "def hash_password(pw, salt):\n    \"\"\"Derive a key from a password with PBKDF2.\"\"\"\n    return pbkdf2(pw, salt, 100000)\n"),
    ("src/settings.py", "def read_settings(path):\n    \"\"\"Load the TOML settings file.\"\"\"\n    return toml.load(open(path))\n"),
    ("src/zip.py", "def shrink(data):\n    \"\"\"Deflate a byte string.\"\"\"\n    return zlib.compress(data, 9)\n"),
    ("src/users.py", "def by_age(people):\n    \"\"\"Order people from youngest to oldest.\"\"\"\n    return sorted(people, key=lambda p: p.age)\n"),
    ("src/images.py", "def thumbnail(img, size):\n    \"\"\"Scale a picture down to fit a box.\"\"\"\n    return img.resize(fit(img.size, size))\n"),
    ("src/geo.py", "def haversine(a, b):\n    \"\"\"Great-circle distance between two points on Earth.\"\"\"\n    return 2 * R * asin(sqrt(h(a, b)))\n"),
];

fn openai_config(repo: &TestRepo, server: &Server, extra: &str) {
    config(
        repo,
        format!(
            "[embed]\nprovider = \"openai\"\nurl = \"{}\"\nmodel = \"test-embed\"\nbackoff_base_ms = 20\nbackoff_max_ms = 100\ntimeout_secs = 1\n{extra}",
            server.url()
        )
        .as_str(),
    );
}

fn stats(v: &serde_json::Value, key: &str) -> u64 {
    v["stats"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn the_bundled_model_finds_a_paraphrase_that_bm25_misses() {
    let mut files: Vec<(&str, &str)> = FILES.to_vec();
    files.extend_from_slice(DISTRACTORS);
    let repo = TestRepo::with_files(&files);
    repo.embed_locally();
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "embedded"), files.len() as u64, "{v}");
    assert_eq!(stats(&v, "embed_pending"), 0, "{v}");
    let query = "where do we retry failed uploads";
    let hybrid = repo.hit_paths(query, &["-n", "5"]);
    assert!(
        hybrid.iter().any(|p| p == "src/uploader.py"),
        "hybrid top 5: {hybrid:?}"
    );
    let bm25 = repo.hit_paths(query, &["-n", "5", "--mode", "bm25"]);
    assert!(
        !bm25.iter().any(|p| p == "src/uploader.py"),
        "bm25 should not find it (no shared words): {bm25:?}"
    );
    let hits = repo.search(query, &["-n", "5", "--mode", "vector"]);
    assert_eq!(hits[0]["path"], "src/uploader.py", "{hits:?}");
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
    assert_eq!(hits[0]["sources"], serde_json::json!(["vector"]));
}

#[test]
fn a_chunk_is_embedded_once_across_runs_branches_and_renames() {
    let repo = TestRepo::with_files(FILES);
    repo.embed_locally();
    assert_eq!(stats(&repo.index(&[]), "embedded"), 4);
    let again = repo.index(&[]);
    assert_eq!(stats(&again, "embedded"), 0, "{again}");
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.git(&["mv", "src/colors.py", "src/palette.py"]);
    repo.write(
        "src/dates.py",
        "def weekday_name(d):\n    return NAMES[d.weekday() % 7]\n",
    );
    repo.commit_all("rename and edit");
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "compute"), 1, "{v}");
    assert_eq!(stats(&v, "embedded"), 1, "only the edited file: {v}");
    repo.git(&["checkout", "-q", "main"]);
    assert_eq!(stats(&repo.index(&[]), "embedded"), 0);
}

#[test]
fn retries_429_500_and_timeouts_then_stores_every_vector() {
    let server = Server::start(
        vec![
            Answer::Status(429),
            Answer::Status(500),
            Answer::Slow(Duration::from_secs(3)),
        ],
        Answer::Ok,
    );
    let repo = TestRepo::with_files(FILES);
    openai_config(&repo, &server, "");
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "embedded"), 4, "{v}");
    assert_eq!(stats(&v, "embed_pending"), 0, "{v}");
    let statuses = server.statuses();
    assert!(
        statuses.starts_with(&[429, 500, 200]) && statuses.len() >= 4,
        "three failures (the slow one timed out), then success: {statuses:?}"
    );
    let hits = repo.search("blend two RGB colours", &["--mode", "vector"]);
    assert!(!hits.is_empty());
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
}

#[test]
fn a_failing_api_leaves_files_pending_and_search_degrades_until_it_recovers() {
    let server = Server::start(Vec::new(), Answer::Status(503));
    let repo = TestRepo::with_files(FILES);
    openai_config(&repo, &server, "max_retries = 2\n");
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "embedded"), 0, "{v}");
    assert_eq!(stats(&v, "embed_pending"), 4, "nothing marked done: {v}");
    assert!(v["embed_error"].as_str().unwrap().contains("503"), "{v}");
    assert_eq!(server.statuses().len(), 3, "one try and two retries");
    // BM25 and symbols still answer, and say why vectors are missing.
    let hits = repo.search("blend", &[]);
    assert_eq!(hits[0]["path"], "src/colors.py");
    let why = hits[0]["degraded"].as_str().expect("degraded reason");
    assert!(why.contains("no vectors"), "{why}");
    let out = repo.run(&["search", "--mode", "vector", "blend"]);
    assert_eq!(out.status.code(), Some(2));
    // The API comes back: the next run embeds what is pending, computing nothing else.
    server.set_fallback(Answer::Ok);
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "compute"), 0, "{v}");
    assert_eq!(stats(&v, "embedded"), 4, "{v}");
    assert_eq!(stats(&v, "embed_pending"), 0, "{v}");
    let hits = repo.search("blend", &[]);
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
}

#[test]
fn the_api_key_is_sent_but_never_printed() {
    let server = Server::start(Vec::new(), Answer::Status(401));
    let repo = TestRepo::with_files(FILES);
    openai_config(&repo, &server, "api_key_env = \"CS_TEST_KEY\"\n");
    let out = repo
        .cmd(&["index"])
        .env("CS_TEST_KEY", "sk-very-secret-42")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "BM25 still indexed");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("401"), "{all}");
    assert!(!all.contains("sk-very-secret-42"), "key leaked: {all}");
    let auth = server.seen.lock().unwrap().auth.clone();
    assert_eq!(auth[0], "Bearer sk-very-secret-42");
}

#[test]
fn switching_the_model_re_embeds_and_never_mixes_vectors() {
    let server = Server::start(Vec::new(), Answer::Ok);
    let repo = TestRepo::with_files(FILES);
    openai_config(&repo, &server, "");
    assert_eq!(stats(&repo.index(&[]), "embedded"), 4);
    config(
        &repo,
        &format!(
            "[embed]\nprovider = \"openai\"\nurl = \"{}\"\nmodel = \"other-model\"\n",
            server.url()
        ),
    );
    let v = repo.index(&[]);
    assert_eq!(
        stats(&v, "embedded"),
        4,
        "a new model embeds everything: {v}"
    );
    assert_eq!(stats(&v, "compute"), 0, "{v}");
}

#[test]
fn vector_search_is_on_by_default_and_none_turns_it_off_quietly() {
    let repo = TestRepo::with_files(FILES);
    let v = repo.index(&[]);
    assert_eq!(stats(&v, "embedded"), 4, "the static model by default: {v}");
    let hits = repo.search("blend", &[]);
    assert_eq!(hits[0]["path"], "src/colors.py");
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
    let hits = repo.search("mix two colours", &["--mode", "vector"]);
    assert_eq!(hits[0]["path"], "src/colors.py", "{hits:?}");
    // Off is a choice, not a degraded search: no note.
    repo.lexical();
    let hits = repo.search("blend", &[]);
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
    let out = repo.run(&["search", "blend"]);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "{out:?}");
    let out = repo.run(&["search", "--mode", "vector", "blend"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: vector search is not available")
            && err.contains("codesearch.embedProvider static"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
}

/// `index` in the background mode users get: what `--json` says, after the command returned.
fn index_with_background(repo: &TestRepo, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["index", "--json", "-q"];
    args.extend_from_slice(extra);
    let out = repo
        .cmd(&args)
        .env_remove("GIT_CODESEARCH_BACKGROUND")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Wait until a detached background run has embedded the branch: `status --json` reports
/// `want` (embedded files, files with chunks), or, without `want`, every file with chunks.
pub(crate) fn wait_until_embedded(repo: &TestRepo, want: Option<(u64, u64)>) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (done, total) = coverage(repo);
        if want.map_or(total > 0 && done == total, |w| w == (done, total)) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the background run never embedded the branch: {done} of {total}"
        );
        std::thread::sleep(Duration::from_millis(50)); // polling interval, not a wait for it
    }
}

/// The branch's vector coverage from `status --json`: (embedded files, files with chunks).
fn coverage(repo: &TestRepo) -> (u64, u64) {
    let s: serde_json::Value =
        serde_json::from_str(&repo.run_ok(&["status", "--json"], 0)).unwrap();
    let v = &s["vectors"];
    (
        v["embedded_files"].as_u64().unwrap_or(0),
        v["files_with_chunks"].as_u64().unwrap_or(0),
    )
}

#[test]
fn an_index_run_returns_before_embedding_and_a_background_run_embeds_the_rest() {
    let repo = TestRepo::with_files(FILES);
    repo.git(&["config", "codesearch.embedProvider", "static"]);
    let v = index_with_background(&repo, &[]);
    assert_eq!(
        stats(&v, "embedded"),
        0,
        "the run itself embeds nothing: {v}"
    );
    assert_eq!(v["embedding_in_background"], 4, "{v}");
    // The background run is detached: wait for its condition (all four files embedded).
    wait_until_embedded(&repo, Some((4, 4)));
    let hits = repo.search(
        "where do we retry failed uploads",
        &["-n", "5", "--mode", "vector"],
    );
    assert!(hits[0]["degraded"].is_null(), "{hits:?}");
    assert_eq!(hits[0]["sources"], serde_json::json!(["vector"]));
    // Nothing left: the next run starts no background run.
    let again = index_with_background(&repo, &[]);
    assert_eq!(again["embedding_in_background"], 0, "{again}");
}

#[test]
fn index_wait_embeds_in_the_foreground() {
    let repo = TestRepo::with_files(FILES);
    repo.git(&["config", "codesearch.embedProvider", "static"]);
    let v = index_with_background(&repo, &["--wait"]);
    assert_eq!(stats(&v, "embedded"), 4, "{v}");
    assert_eq!(v["embedding_in_background"], 0, "{v}");
    assert_eq!(coverage(&repo), (4, 4));
}

#[test]
fn an_embedding_hook_run_lets_a_waiting_index_run_go_first() {
    // Every embedding request takes 300 ms: the hook run's embedding would take a minute.
    let server = Server::start(vec![], Answer::Slow(Duration::from_millis(300)));
    let repo = TestRepo::new();
    for i in 0..200 {
        repo.write(
            &format!("src/m{i}.py"),
            format!("def f{i}():\n    return {i}\n"),
        );
    }
    repo.commit_all("many");
    openai_config(&repo, &server, "batch_size = 8\n");
    repo.index(&["--no-embed"]);
    let mut hook = repo
        .cmd(&["index", "--hook", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    super::crash::wait_until(
        &repo,
        &mut hook,
        "SELECT count(*) FROM checkpoint WHERE phase = 'embed' AND done > 0",
    );
    // A user's own run: it asks for the lock, and the hook run lets it go at its next step.
    repo.write("src/new.py", "def arrived():\n    return 1\n");
    let mine = repo.index(&["--no-embed"]);
    assert_eq!(stats(&mine, "compute"), 1, "{mine}");
    let out = hook.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        stats(&v, "embed_pending") > 0,
        "the hook run embedded everything: {v}"
    );
}

/// The flat copy of the vectors (`store::flat`): what a search reads instead of LanceDB.
fn flat_copies(repo: &TestRepo) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(repo.path().join(".git/codesearch/flat"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// The files under the index's LanceDB directory (a vector table would be there).
fn lance_tables(repo: &TestRepo) -> Vec<String> {
    std::fs::read_dir(repo.path().join(".git/codesearch/lance"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("vectors_"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn vectors_are_stored_once_in_a_flat_file_that_runs_and_gc_keep_current() {
    let mut files: Vec<(&str, &str)> = FILES.to_vec();
    files.extend_from_slice(DISTRACTORS);
    let repo = TestRepo::with_files(&files);
    repo.index(&[]);
    let flat = flat_copies(&repo);
    assert_eq!(flat.len(), 1, "{flat:?}");
    assert!(
        lance_tables(&repo).is_empty(),
        "no second copy: {:?}",
        lance_tables(&repo)
    );
    let query = "where do we retry failed uploads";
    let before = std::fs::read(&flat[0]).unwrap();
    // A new file embedded: its rows join the file, and a search finds them.
    repo.write("src/resend.py", "def resend_upload(blob):\n    \"\"\"Retry a failed upload.\"\"\"\n    return push_blob(blob)\n");
    repo.commit_all("resend");
    repo.index(&[]);
    let grown = std::fs::read(&flat[0]).unwrap();
    assert!(grown.len() > before.len(), "rows added");
    let hits = repo.search(query, &["-n", "10", "--mode", "vector"]);
    assert!(
        hits.iter().any(|h| h["path"] == "src/resend.py"),
        "{hits:?}"
    );
    // Deleted everywhere and collected: its rows leave the file, which is what it was.
    repo.remove("src/resend.py");
    repo.commit_all("drop resend");
    repo.index(&[]);
    repo.run_ok(&["gc"], 0);
    assert_eq!(std::fs::read(&flat[0]).unwrap(), before, "rows removed");
    assert!(lance_tables(&repo).is_empty());
    let hits = repo.search(query, &["-n", "10", "--mode", "vector"]);
    assert!(!hits.iter().any(|h| h["path"] == "src/resend.py"));
}

#[test]
fn a_search_over_the_flat_copy_says_how_much_of_the_branch_has_vectors() {
    let repo = TestRepo::with_files(FILES);
    repo.git(&["config", "codesearch.embedProvider", "static"]);
    repo.index(&[]);
    assert_eq!(flat_copies(&repo).len(), 1);
    let query = "send the blob again";
    let hits = repo.search(query, &["--no-index"]);
    assert!(
        hits[0]["degraded"].is_null(),
        "all four have vectors: {hits:?}"
    );
    // One more file, indexed without vectors: the copy is still the table's (current), and
    // its scan finds one of the branch's five files missing.
    repo.write(
        "src/resend.py",
        "def resend_blob(blob):\n    return push_blob(blob)\n",
    );
    repo.commit_all("resend");
    repo.index(&["--no-embed"]);
    let hits = repo.search(query, &["--no-index"]);
    let why = hits[0]["degraded"]
        .as_str()
        .expect("the partial coverage is said");
    assert!(why.contains("vectors cover 4 of 5 files"), "{why}");
}

/// Code that says "retry failed uploads" in its statements, where a definition's name and
/// comment (what the static model embeds) say something else; and one function whose
/// docstring says it in a long body, so that BM25 ranks it below the first.
const LEXICAL_AND_NEAR: &[(&str, &str)] = &[
    (
        "src/alpha.py",
        "def paint_canvas(brush):\n    retry(failed, uploads)\n    retry(failed, uploads)\n",
    ),
    (
        "src/gamma.py",
        "def sort_people(ages):\n    retry(failed, uploads)\n    return ages\n",
    ),
    (
        "src/delta.py",
        "def blend_colors(palette):\n    retry(failed)\n    return uploads(palette)\n",
    ),
];

#[test]
fn a_questions_vectors_lift_the_nearest_file_above_a_lexically_better_one() {
    let mut body = String::from(
        "def beta(client, blob, attempts):\n    \"\"\"Retry failed uploads after a network error.\"\"\"\n",
    );
    for i in 0..30 {
        body.push_str(&format!("    step_{i} = client.prepare(blob, {i})\n"));
    }
    body.push_str("    return client.put(blob)\n");
    let mut files: Vec<(&str, &str)> = LEXICAL_AND_NEAR.to_vec();
    files.push(("src/beta.py", &body));
    files.extend_from_slice(&FILES[1..]);
    let repo = TestRepo::with_files(&files);
    repo.git(&["config", "codesearch.embedProvider", "static"]);
    index_with_background(&repo, &["--wait"]);
    let query = "retry failed uploads";
    // Its vector chunk alone (weight 0.15) leaves the nearest file below the lexical one…
    repo.git(&["config", "codesearch.questionVectorFileWeight", "0"]);
    let chunks_only = repo.hit_paths(query, &["-n", "5"]);
    assert_eq!(chunks_only[0], "src/alpha.py", "{chunks_only:?}");
    // …and the file list lifts that file's best span to the top (the default weight).
    repo.git(&["config", "--unset", "codesearch.questionVectorFileWeight"]);
    let hits = repo.search(query, &["-n", "5"]);
    assert_eq!(hits[0]["path"], "src/beta.py", "{hits:?}");
    assert_eq!(hits[0]["start_line"], 1, "{hits:?}");
    // A pasted issue uses neither list.
    let issue = format!("{query}\nThe job gives up too early when the network drops.");
    for hit in repo.search(&issue, &["-n", "5"]) {
        let sources = hit["sources"].as_array().unwrap();
        assert!(!sources.contains(&"vector".into()), "{hit}");
    }
}
