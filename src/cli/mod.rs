//! Command-line interface: argument definitions (clap), dispatch to one file per command,
//! and the single place where errors are rendered and mapped to exit codes
//! (0 hits / success, 1 no hits, 2 error, 130 interrupted).

mod assets;
mod background;
mod cmd_doctor;
mod cmd_gc;
mod cmd_hooks;
mod cmd_index;
mod cmd_model;
mod cmd_remote;
mod cmd_search;
mod cmd_share;
mod cmd_status;
mod cmd_trust;
mod mcp;
mod observer;
mod render;
mod runs;
mod trace;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use git_codesearch::search::Mode;
use git_codesearch::Error;

/// Branch-aware local code search for git repositories.
///
/// Run inside a git work tree: `git codesearch "where do we parse the config file"`.
/// The first search builds the index (kept in the repository's git dir); hooks keep it
/// fresh across checkouts, merges and rebases.
#[derive(Debug, Parser)]
#[command(name = "git-codesearch", version, bin_name = "git codesearch")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    /// Run as if started in this directory.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The search (when no command is given).
    #[command(flatten)]
    pub search: SearchArgs,
    /// A command other than searching.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Search (the default; use it to search for a word that is also a command name).
    Search(SearchArgs),
    /// Build or update the index of the checked-out branch.
    Index(IndexArgs),
    /// Show what is indexed.
    Status(StatusArgs),
    /// Drop branches that no longer exist and content no branch uses.
    Gc,
    /// Check the index for damage, stale locks and interrupted runs; --repair fixes them.
    Doctor(DoctorArgs),
    /// Install or remove the git hooks that keep the index fresh.
    Hooks {
        /// install or uninstall.
        #[command(subcommand)]
        action: HooksAction,
    },
    /// Install or list local embedding models (copied from a directory; nothing is
    /// downloaded).
    Model {
        /// install or list.
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Serve the Model Context Protocol over stdio, for coding agents.
    Mcp,
    /// Let this repository's .codesearch.toml choose remote providers, URLs, API key
    /// variables and [llm] settings (recorded for its exact content; a change needs trusting
    /// again).
    Trust {
        /// Withdraw the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Write a snapshot of the index to FILE (a tar), e.g. built once by CI.
    Export {
        /// Where to write the snapshot.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Merge a snapshot written by `export` (from any clone) into this index.
    Import {
        /// The snapshot to read.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Upload the index of the checked-out branch to object storage (s3://, gs://, az://,
    /// file://), only what the remote lacks; REMOTE defaults to `git config codesearch.remote`.
    Push {
        /// The remote's URL (credentials come from the environment, never the URL).
        #[arg(value_name = "REMOTE")]
        remote: Option<String>,
        /// Push every indexed branch, not only the checked-out one.
        #[arg(long)]
        all: bool,
    },
    /// Download and merge the branches pushed to REMOTE (default `git config
    /// codesearch.remote`), only what this clone lacks; searchable at once.
    Pull {
        /// The remote's URL.
        #[arg(value_name = "REMOTE")]
        remote: Option<String>,
    },
    /// Write the man page and shell completions (for packagers; the repository has them
    /// under completions/).
    #[command(hide = true)]
    GenerateAssets {
        /// Directory to write `completions/` into.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
    },
}

/// `hooks` actions.
#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Write post-checkout, post-merge and post-rewrite hooks (chaining existing ones).
    Install,
    /// Remove our hooks and restore the ones they replaced.
    Uninstall,
}

/// `model` actions.
#[derive(Debug, Subcommand)]
pub enum ModelAction {
    /// Copy a sentence-embedding model in Hugging Face layout (config.json, tokenizer.json,
    /// model.safetensors; BERT family) into the model directory and check that it works.
    Install {
        /// The model directory to copy.
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
        /// Name to select it by (`[embed] model = "NAME"`); default: the directory's name.
        #[arg(long)]
        name: Option<String>,
    },
    /// List the bundled model and the installed ones.
    List,
}

/// `--mode NAME`: the search modes by the names the library gives them (MCP takes the same).
fn mode_parser() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    let values =
        Mode::NAMES.map(|(name, _, what)| clap::builder::PossibleValue::new(name).help(what));
    clap::builder::PossibleValuesParser::new(values)
        .map(|name: String| Mode::named(&name).unwrap_or_default())
}

/// Search arguments.
#[derive(Debug, Args, Default)]
pub struct SearchArgs {
    /// What to look for: plain words, identifiers, or a question.
    #[arg(value_name = "QUERY", required = true)]
    pub query: Vec<String>,
    /// Number of results.
    #[arg(short = 'n', long = "limit", value_name = "N")]
    pub limit: Option<usize>,
    /// Only paths matching this glob (e.g. 'src/**/*.rs').
    #[arg(long = "path", value_name = "GLOB")]
    pub path: Option<String>,
    /// Only this language (rust, python, go, java, typescript, javascript, c, cpp, …).
    #[arg(long = "lang", value_name = "LANG")]
    pub lang: Option<String>,
    /// Search the index of this branch instead of the checked-out one.
    #[arg(long = "branch", value_name = "NAME", conflicts_with = "rev")]
    pub branch: Option<String>,
    /// Search a commit, tag or branch as committed, read from git's object database without
    /// checking it out (content already indexed anywhere is reused).
    #[arg(long = "rev", value_name = "REV")]
    pub rev: Option<String>,
    /// Retrievers to use.
    #[arg(long = "mode", value_name = "MODE", value_parser = mode_parser(), default_value = "hybrid")]
    pub mode: Mode,
    /// One JSON object per hit on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print ranked unique file paths only (like `rg -l`).
    #[arg(short = 'l', long = "files-only", conflicts_with = "max_tokens")]
    pub files_only: bool,
    /// Print whole hits (not snippets) until about N tokens, trimming the last hit at a line
    /// boundary and saying what was cut: a budget for coding agents.
    #[arg(long = "max-tokens", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
    /// Do not build the index if the branch has none yet.
    #[arg(long = "no-index")]
    pub no_index: bool,
    /// Print nothing on stderr but errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// `index` arguments.
#[derive(Debug, Args, Default)]
pub struct IndexArgs {
    /// Show the plan (Compute / AddTag / RemoveTag / Delete counts) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Resume an interrupted run without asking.
    #[arg(long, conflicts_with = "restart")]
    pub resume: bool,
    /// Discard an interrupted run's partial work without asking.
    #[arg(long)]
    pub restart: bool,
    /// Print nothing on stderr but errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Index a commit, tag or branch as committed, without checking it out.
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Leave embedding for later: update chunks and symbols only (vectors stay pending).
    #[arg(long, conflicts_with = "wait")]
    pub no_embed: bool,
    /// Embed in the foreground before returning (by default a low-priority background run
    /// embeds what is pending once chunks and symbols are written).
    #[arg(long)]
    pub wait: bool,
    /// Run as a git hook: never wait for the lock (ask the holder to run again instead).
    #[arg(long, hide = true)]
    pub hook: bool,
    /// The background embedding run: a hook run at low priority that embeds everything pending.
    #[arg(long, hide = true)]
    pub background: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `status` arguments.
#[derive(Debug, Args, Default)]
pub struct StatusArgs {
    /// Also list skipped files with the reason.
    #[arg(short, long)]
    pub verbose: bool,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
    /// Status of this branch instead of the checked-out one.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
}

/// `doctor` arguments.
#[derive(Debug, Args, Default)]
pub struct DoctorArgs {
    /// Fix what was found (rebuilding the index from the work tree if it is badly damaged).
    #[arg(long)]
    pub repair: bool,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What a successful command found, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Success, or a search with hits.
    Found,
    /// A search without hits.
    NotFound,
}

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
        if git_codesearch::index::interrupted() {
            // Second Ctrl-C: give up at once; the last checkpoint is already saved.
            std::process::exit(130);
        }
        git_codesearch::index::interrupt();
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

/// Open the workspace of `dir`; the first time in this process, say on stderr which
/// settings of an untrusted `.codesearch.toml` were ignored.
pub(crate) fn open(dir: &std::path::Path) -> Result<git_codesearch::workspace::Workspace, Error> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let ws = git_codesearch::workspace::Workspace::open(dir)?;
    let ignored = &ws.config.untrusted;
    if !ignored.is_empty() && !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {} sets {}, which only a trusted file may set: ignored (they choose where code \
             and credentials go, or what your provider is sent and how fast). Set them in your git \
             config, or run `git codesearch trust` after reading the file.",
            git_codesearch::config::CONFIG_FILE,
            ignored.join(", ")
        );
    }
    Ok(ws)
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
        Some(Command::Model { action }) => cmd_model::run(&action),
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
