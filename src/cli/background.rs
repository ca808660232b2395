//! Embedding in the background. An index run builds what BM25 and symbols need and returns;
//! when the branch still has chunks without vectors, a detached `git-codesearch index
//! --background` at low priority embeds them, so no command waits for a model. A search fuses
//! whatever is embedded meanwhile and says how much is missing. `index --wait` and
//! `GIT_CODESEARCH_BACKGROUND=0` embed in the foreground instead.

use std::process::{Command, Stdio};

use git_codesearch::workspace::Workspace;

/// How much lower than the user's commands a background run is scheduled (`nice` 10: it
/// gets a core when the user's own work leaves one).
const NICENESS: libc::c_int = 10;

/// Whether embedding may go to the background (it may, unless the environment says `0`).
pub fn enabled() -> bool {
    git_codesearch::env::get(git_codesearch::env::BACKGROUND).is_none_or(|v| v != "0")
}

/// Files of `branch` the configured model has not embedded yet (0 when vectors are off).
pub fn pending(ws: &Workspace, branch: &str) -> usize {
    let Some(model) = git_codesearch::embed::model_id(&ws.config.embed) else {
        return 0;
    };
    // A catalog that cannot be read now has nothing to embed later either.
    ws.db()
        .ok()
        .and_then(|db| db.embedded().coverage(branch, &model).ok())
        .map_or(0, |(done, total)| total.saturating_sub(done))
}

/// Start a detached background run embedding `branch` (`rev`: the commit an `--rev` run
/// indexed), if it has anything pending; returns how many files it will embed. Failing to
/// start it is not an error: the vectors stay pending for the next run.
pub fn embed_later(ws: &Workspace, branch: &str, rev: Option<&str>) -> usize {
    let n = pending(ws, branch);
    if n == 0 {
        return 0;
    }
    let Ok(exe) = std::env::current_exe() else {
        return 0;
    };
    let mut cmd = Command::new(exe);
    cmd.args(["index", "--background"]);
    if let Some(rev) = rev {
        cmd.args(["--rev", rev]);
    }
    cmd.current_dir(&ws.workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    detach(&mut cmd);
    match cmd.spawn() {
        Ok(mut child) => {
            // Reap it when it ends (the MCP server lives on); a CLI process simply exits.
            std::thread::spawn(move || child.wait());
            n
        }
        Err(_) => 0,
    }
}

/// Its own process group: a Ctrl-C at the terminal stops the user's command, not the
/// embedding that outlives it.
fn detach(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
}

/// Lower this process's priority (a background or hook run: the user's commands come first).
pub fn lower_priority() {
    #[cfg(unix)]
    // SAFETY: setpriority only reads its integer arguments; `who` 0 is this process.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, NICENESS);
    }
}
