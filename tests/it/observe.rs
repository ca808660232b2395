//! The library reports an index run through `index::Observer` (the command line draws and
//! asks; the library never does): these tests call the library on a real repository with a
//! recording observer and check what it was told and asked.

use std::sync::Mutex;
use std::time::Duration;

use git_codesearch::index::lock::Contention;
use git_codesearch::index::{
    self, EmbedPolicy, Event, IndexOptions, Observer, Phase, ResumeChoice,
};
use git_codesearch::store::state::Checkpoint;
use git_codesearch::workspace::Workspace;

use crate::common::TestRepo;

/// Writes down every call, and answers `resume` with `resume`.
#[derive(Default)]
struct Recorder {
    resume: bool,
    calls: Mutex<Vec<String>>,
}

impl Recorder {
    fn push(&self, s: String) {
        self.calls.lock().unwrap().push(s);
    }
    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl Observer for Recorder {
    fn event(&self, event: Event<'_>) {
        let s = match event {
            Event::WaitingForLock(_) => "waiting".to_string(),
            Event::FirstIndex(branch) => format!("first index {branch}"),
            Event::Interrupted(cp) => format!("interrupted {}", cp.run_id),
            Event::Resuming => "resuming".to_string(),
            Event::Restarted { dropped } => format!("restarted {dropped}"),
            Event::NewDimension { old, new } => format!("dimension {old} {new}"),
            Event::TreeCut { max, left_out } => format!("tree cut {max} {left_out}"),
        };
        self.push(s);
    }
    fn resume(&self, _checkpoint: &Checkpoint) -> bool {
        self.push("asked".into());
        self.resume
    }
    fn start(&self, phase: Phase, total: usize) {
        self.push(format!("start {} {total}", phase.label()));
    }
    fn progress(&self, done: usize) {
        self.push(format!("progress {done}"));
    }
    fn finish(&self) {
        self.push("finish".into());
    }
}

fn options(resume: ResumeChoice) -> IndexOptions {
    IndexOptions {
        dry_run: false,
        resume,
        contention: Contention::Wait(Duration::from_secs(30)),
        commit: None,
        embed: EmbedPolicy::Skip,
        stop: git_codesearch::index::Stop::new(),
    }
}

fn repo_with(n: usize) -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..n {
        repo.write(
            &format!("src/m{i}.rs"),
            format!("pub fn f{i}() -> u32 {{ {i} }}\n"),
        );
    }
    repo.commit_all("files");
    repo
}

#[test]
fn an_index_run_reports_each_phase_and_its_progress_to_the_observer() {
    let repo = repo_with(7);
    let ws = Workspace::open(repo.path()).unwrap();
    let rec = Recorder::default();
    let report = index::run(&ws, &options(ResumeChoice::Ask), &rec).unwrap();
    assert_eq!(report.stats.compute, 7);
    let calls = rec.calls();
    let scanning = calls.iter().position(|c| c == "start scanning 7");
    let indexing = calls.iter().position(|c| c == "start indexing 7");
    assert!(scanning.is_some() && indexing.is_some(), "{calls:?}");
    assert!(scanning < indexing, "{calls:?}");
    // Every file was counted while scanning, and the indexing phase reached all of them.
    let between = &calls[scanning.unwrap()..indexing.unwrap()];
    assert!(between.contains(&"progress 7".to_string()), "{calls:?}");
    assert_eq!(
        calls.last().map(String::as_str),
        Some("finish"),
        "{calls:?}"
    );
    assert!(calls[indexing.unwrap()..].contains(&"progress 7".to_string()));
    let starts = calls.iter().filter(|c| c.starts_with("start")).count();
    let finishes = calls.iter().filter(|c| *c == "finish").count();
    assert_eq!(starts, finishes, "every phase ends: {calls:?}");
    // Nothing was interrupted, so nothing was asked.
    assert!(!calls
        .iter()
        .any(|c| c == "asked" || c.starts_with("interrupted")));
}

/// Leave a checkpoint as a run killed mid-way does.
fn interrupt(ws: &Workspace) {
    let db = ws.db().unwrap();
    db.run_state()
        .save_checkpoint(&Checkpoint {
            run_id: "dead-run".into(),
            workspace: ws.workdir.display().to_string(),
            branch: "refs/heads/main".into(),
            phase: "chunk".into(),
            done: 1,
            total: 3,
            started_at: 1,
            updated_at: 1,
        })
        .unwrap();
}

#[test]
fn an_interrupted_run_is_named_and_the_observer_decides_only_when_asked_to() {
    let repo = repo_with(3);
    let ws = Workspace::open(repo.path()).unwrap();
    index::run(&ws, &options(ResumeChoice::Resume), &index::Silent).unwrap();

    // Ask: the observer is asked, and its "no" restarts.
    interrupt(&ws);
    let no = Recorder::default();
    index::run(&ws, &options(ResumeChoice::Ask), &no).unwrap();
    let calls = no.calls();
    assert_eq!(
        calls.iter().take(3).cloned().collect::<Vec<_>>(),
        ["interrupted dead-run", "asked", "restarted 0"],
        "{calls:?}"
    );

    // Resume (hooks, --resume): nobody is asked.
    interrupt(&ws);
    let rec = Recorder::default();
    index::run(&ws, &options(ResumeChoice::Resume), &rec).unwrap();
    let calls = rec.calls();
    assert_eq!(
        calls[..2],
        ["interrupted dead-run", "resuming"],
        "{calls:?}"
    );
    assert!(!calls.contains(&"asked".to_string()), "{calls:?}");
    assert!(ws.db().unwrap().run_state().checkpoint().unwrap().is_none());
}

/// The trace points are `tracing` events; the binary shows them on stderr only when
/// `GIT_CODESEARCH_TRACE` is set, and the results on stdout are the same either way.
#[test]
fn trace_points_show_on_stderr_only_when_asked() {
    let repo = TestRepo::with_files(&[("src/lib.rs", "fn parse_config() -> u32 { 1 }\n")]);
    let args = ["parse_config", "-l"];
    let quiet = repo.cmd(&args).output().unwrap();
    let traced = repo
        .cmd(&args)
        .env("GIT_CODESEARCH_TRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&traced.stderr);
    assert!(
        stderr.contains("DEBUG") && stderr.contains("searched"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("DEBUG"));
    assert_eq!(quiet.stdout, traced.stdout);
    assert!(String::from_utf8_lossy(&quiet.stdout).contains("src/lib.rs"));
}
