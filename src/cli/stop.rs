//! This process's stop request: Ctrl-C sets it, and every index run the process starts
//! carries a clone (`index::Stop`), so the library keeps no global of its own.

use git_codesearch::index::Stop;

/// The process's stop request.
pub fn stop() -> Stop {
    static STOP: std::sync::OnceLock<Stop> = std::sync::OnceLock::new();
    STOP.get_or_init(Stop::new).clone()
}
