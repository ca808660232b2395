//! Command-line interface: argument definitions (clap), dispatch to one file per command,
//! and the single place where errors are rendered and mapped to exit codes
//! (0 hits / success, 1 no hits, 2 error, 130 interrupted).

mod args;
mod assets;
mod background;
mod cmd_doctor;
mod cmd_gc;
mod cmd_hooks;
mod cmd_index;
mod cmd_remote;
mod cmd_search;
mod cmd_share;
mod cmd_status;
mod cmd_trust;
mod common;
mod mcp;
mod observer;
mod render;
mod runs;
mod stop;
mod trace;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use git_codesearch::Error;

pub use args::{Cli, Command};
pub use common::Outcome;

/// Parse a command line. Leading `-C DIR` options are taken out first, as git takes them:
/// clap would otherwise read the word after them as a query (`-C DIR index` searched for
/// "index"). Several compose, each relative to the one before.
pub fn parse_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Result<Cli, clap::Error> {
    let mut args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let mut dir: Option<PathBuf> = None;
    while args.len() > 1 {
        let a = args[1].to_string_lossy().into_owned();
        let value = if a == "-C" && args.len() > 2 {
            let v = args.remove(2);
            args.remove(1);
            v
        } else if let Some(v) = a.strip_prefix("-C").filter(|v| !v.is_empty()) {
            let v = std::ffi::OsString::from(v.trim_start_matches('='));
            args.remove(1);
            v
        } else {
            break;
        };
        dir = Some(match dir {
            Some(d) => d.join(value),
            None => PathBuf::from(value),
        });
    }
    let mut cli = Cli::try_parse_from(args)?;
    if let Some(d) = dir {
        cli.dir = Some(match cli.dir.take() {
            Some(inner) => d.join(inner),
            None => d,
        });
    }
    Ok(cli)
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    trace::init();
    let cli = parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit());
    let _ = ctrlc::set_handler(|| {
        if stop::stop().requested() {
            // Second Ctrl-C: give up at once; the last checkpoint is already saved.
            std::process::exit(130);
        }
        stop::stop().request();
    });
    match run(cli) {
        Ok(Outcome::Found) => ExitCode::SUCCESS,
        Ok(Outcome::NotFound) => ExitCode::from(1),
        Err(Error::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            // Messages quote what they failed on: a config file's offending line, a path, a
            // snapshot's value. Each line is escaped like file content.
            let text: Vec<String> = in_flags(&e)
                .lines()
                .map(|l| render::safe_text(l).into_owned())
                .collect();
            let _ = writeln!(std::io::stderr(), "{}", text.join("\n"));
            if e.is_interrupted() {
                ExitCode::from(130)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

/// The error rendered in the command line's words: the library names a search's inputs (the
/// path glob, the mode) and what to do (repair the index); here they are the flags that set
/// them and the command that does it.
fn in_flags(e: &Error) -> String {
    use git_codesearch::search::SearchError;
    use git_codesearch::store::StoreError;
    match e {
        Error::Search(SearchError::BadGlob { glob, .. }) => {
            e.render_as(&format!("invalid --path glob {glob:?}"), e.hint())
        }
        // "path glob of 604 bytes …": the flag that set it.
        Error::Search(SearchError::GlobTooComplex { .. }) => {
            e.render_as(&format!("--{}", e), e.hint())
        }
        Error::Search(SearchError::ModeUnavailable { .. }) => e.render_as(
            &e.to_string(),
            Some(
                "run `git codesearch index` to embed, or use --mode hybrid, bm25 or symbol".into(),
            ),
        ),
        _ => match e.store() {
            Some(s) if s.needs_repair() => {
                let why = match s {
                    StoreError::Corrupt { .. } => " (it rebuilds the index from the work tree)",
                    _ => "",
                };
                e.render_as(
                    &e.to_string(),
                    Some(format!("run `git codesearch doctor --repair`{why}")),
                )
            }
            _ => e.render(),
        },
    }
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<Outcome, Error> {
    let dir = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(Error::Output)?,
    };
    match cli.command {
        None => cmd_search::run(&dir, &cli.search),
        Some(Command::Search(args)) => cmd_search::run(&dir, &args),
        Some(Command::Index(args)) => cmd_index::run(&dir, &args),
        Some(Command::Status(args)) => cmd_status::run(&dir, &args),
        Some(Command::Gc) => cmd_gc::run(&dir),
        Some(Command::Doctor(args)) => cmd_doctor::run(&dir, &args),
        Some(Command::Hooks { action }) => cmd_hooks::run(&dir, &action),
        Some(Command::Export { file }) => cmd_share::export(&dir, &file),
        Some(Command::Import { file }) => cmd_share::import(&dir, &file),
        Some(Command::Push { remote, all }) => cmd_remote::push(&dir, remote.as_deref(), all),
        Some(Command::Pull { remote }) => cmd_remote::pull(&dir, remote.as_deref()),
        Some(Command::Trust { revoke }) => cmd_trust::run(&dir, revoke),
        Some(Command::Mcp) => {
            let stdin = std::io::stdin();
            mcp::serve(&dir, stdin.lock(), std::io::stdout()).map(|_| Outcome::Found)
        }
        Some(Command::GenerateAssets { out }) => {
            for rel in assets::write_all(&dir.join(out)).map_err(Error::Output)? {
                println!("{rel}");
            }
            Ok(Outcome::Found)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::args::IndexArgs;
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bare_words_are_a_query_and_commands_are_commands() {
        let cli = Cli::try_parse_from(["git-codesearch", "parse", "config"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.search.query, ["parse", "config"]);
        let cli = Cli::try_parse_from(["git-codesearch", "index", "--dry-run"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Index(IndexArgs { dry_run: true, .. }))
        ));
        let cli = Cli::try_parse_from(["git-codesearch", "search", "index"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Search(_))));
    }

    #[test]
    fn a_leading_dir_option_keeps_the_command_a_command() {
        let parse = |a: &[&str]| parse_args(a.iter().map(std::ffi::OsString::from)).unwrap();
        let cli = parse(&["git-codesearch", "-C", "/repo", "index"]);
        assert!(matches!(cli.command, Some(Command::Index(_))), "{cli:?}");
        assert_eq!(cli.dir, Some(PathBuf::from("/repo")));
        let cli = parse(&["git-codesearch", "-C/a", "-C", "b", "status"]);
        assert!(matches!(cli.command, Some(Command::Status(_))));
        assert_eq!(cli.dir, Some(PathBuf::from("/a/b")));
        let cli = parse(&["git-codesearch", "-C", "/repo", "parse", "config"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.search.query, ["parse", "config"]);
    }
}
