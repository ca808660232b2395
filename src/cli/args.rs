//! The command line's grammar (clap): the top-level options, the subcommands and each one's
//! arguments. `cli` parses with it and dispatches; each `cmd_*` reads its own arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use git_codesearch::search::Mode;

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
    /// Number of results (files, with `--files-only`).
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
    /// Show what made each hit's score: every feature and what it added (with --json, an
    /// `explain` field).
    #[arg(long, conflicts_with = "files_only")]
    pub explain: bool,
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
