//! The `git-codesearch` binary: the command line (`cli`) parses arguments, hands over to the
//! library, shows what it reports (output, progress, prompts) and maps the outcome to an exit
//! code. Everything below the command line lives in the library crate, which never prints.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the command line is the one place that writes to the terminal"
)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
