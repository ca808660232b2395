//! The `git-codesearch` binary: parse arguments, hand over to the library, map the outcome to
//! an exit code. Everything testable lives in the library (`git_codesearch::cli`).

fn main() -> std::process::ExitCode {
    git_codesearch::cli::main()
}
