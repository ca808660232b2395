//! Where a command spends its time: the library's `tracing` events and spans, shown on
//! stderr with the time since the process started, when `GIT_CODESEARCH_TRACE` is set.
//! Its value is a `RUST_LOG`-style filter (`git_codesearch=debug,lance=debug`); `1`, `true`
//! or an empty value mean this program's own trace points.

use tracing_subscriber::EnvFilter;

/// The filter for `1`, `true` or an empty value.
const OWN_TRACE_POINTS: &str = "git_codesearch=debug";

/// Install the stderr subscriber when `GIT_CODESEARCH_TRACE` is set; nothing otherwise (the
/// trace points then cost a relaxed atomic load each).
pub fn init() {
    let Some(value) = git_codesearch::env::get(git_codesearch::env::TRACE) else {
        return;
    };
    let value = value.to_string_lossy();
    let directives = match value.trim() {
        "" | "1" | "true" | "yes" | "on" => OWN_TRACE_POINTS,
        other => other,
    };
    let filter = EnvFilter::try_new(directives).unwrap_or_else(|e| {
        eprintln!(
            "warning: {} = {directives:?} is not a filter ({e}); tracing {OWN_TRACE_POINTS}",
            git_codesearch::env::TRACE
        );
        EnvFilter::new(OWN_TRACE_POINTS)
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .with_target(false)
        .with_ansi(false)
        .init();
}
