//! What an index run shows on the terminal: notes on stderr, progress bars (`indicatif`) and
//! the resume prompt (`dialoguer`), for the library's [`Observer`].

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use git_codesearch::index::{Event, Observer, Phase};
use git_codesearch::store::state::Checkpoint;
use git_codesearch::util::when;

/// Phases with fewer items than this finish before a bar would be worth drawing.
const MIN_BAR_ITEMS: usize = 50;

/// The command line's observer.
pub struct Terminal {
    /// Draw progress bars (when stderr is a terminal too).
    progress: bool,
    /// Say that the run waits for another run's lock.
    verbose: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    /// `quiet`: no bars and no notes about waiting (an interrupted run is still named).
    pub fn new(quiet: bool) -> Self {
        Terminal {
            progress: !quiet,
            verbose: !quiet,
            bar: Mutex::new(None),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        // A panic while drawing must not stop the index run: take the bar as it is.
        self.bar.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

impl Observer for Terminal {
    fn event(&self, event: Event<'_>) {
        match event {
            Event::WaitingForLock(h) if self.verbose => note(&format!(
                "waiting for the index lock held by pid {} on {} since {}",
                h.pid,
                h.host,
                when(h.acquired_at)
            )),
            Event::WaitingForLock(_) => {}
            Event::FirstIndex(branch) if self.verbose => {
                note(&format!("indexing {branch} for the first time…"))
            }
            Event::FirstIndex(_) => {}
            Event::Interrupted(cp) => note(&format!(
                "found an interrupted index run: workspace {}, branch {}, phase {}, progress {}/{} files, started {}",
                cp.workspace,
                git_codesearch::git::display_key(&cp.branch),
                cp.phase,
                cp.done,
                cp.total,
                when(cp.started_at)
            )),
            Event::Resuming => note("resuming: content already computed is kept"),
            Event::Restarted { dropped } => {
                note(&format!("restarting: dropped {dropped} partly indexed files"))
            }
            Event::TreeCut { max, left_out } => note(&format!(
                "note: the tree lists more than {max} entries: the rest is left out ({left_out} entries or directories not walked)"
            )),
            Event::NewDimension { old, new } => note(&format!(
                "note: the embedding model now returns {new} dimensions (stored: {old}); re-embedding everything"
            )),
        }
    }

    fn resume(&self, _checkpoint: &Checkpoint) -> bool {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return true;
        }
        dialoguer::Confirm::new()
            .with_prompt("Resume?")
            .default(true)
            .interact()
            .unwrap_or(true)
    }

    fn start(&self, phase: Phase, total: usize) {
        let show = self.progress && std::io::stderr().is_terminal() && total >= MIN_BAR_ITEMS;
        let bar = if show {
            let bar = ProgressBar::new(total as u64);
            let style = ProgressStyle::with_template(
                "{msg:>10} [{bar:30}] {pos}/{len} files ({per_sec}, {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message(phase.label());
            Some(bar)
        } else {
            None
        };
        if let Some(old) = std::mem::replace(&mut *self.bar(), bar) {
            old.finish_and_clear();
        }
    }

    fn progress(&self, done: usize) {
        if let Some(bar) = self.bar().as_ref() {
            // Workers report out of order: never move the bar back.
            if done as u64 > bar.position() {
                bar.set_position(done as u64);
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }
}
