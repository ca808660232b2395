//! The crate-wide error type: one variant per module error, each of which carries the path,
//! branch or table involved. It is rendered exactly once, at the edge (`cli`), as
//! `error: …` / `caused by: …` / `hint: …`.

use std::error::Error as StdError;

/// Any failure that reaches the command line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Locating or reading the git repository failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// The configuration could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The repository or its configuration could not be opened.
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    /// The on-disk index (SQLite or LanceDB) failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// Building or updating the index failed.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    /// Exporting, importing, pushing or pulling an index failed.
    #[error(transparent)]
    Share(#[from] crate::share::ShareError),
    /// A search could not be run.
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
    /// Installing or removing git hooks failed.
    #[error(transparent)]
    Hooks(#[from] crate::git::hooks::HookError),
    /// Writing results failed (other than a closed pipe, which is not an error).
    #[error("cannot write output")]
    Output(#[source] std::io::Error),
}

impl Error {
    /// A short suggestion of what the user can do about this error, if there is one.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Git(e) => e.hint(),
            Error::Config(e) => e.hint(),
            Error::Workspace(e) => e.hint(),
            Error::Store(e) => e.hint(),
            Error::Index(e) => e.hint(),
            Error::Share(e) => e.hint(),
            Error::Search(e) => e.hint(),
            Error::Hooks(e) => e.hint(),
            Error::Output(_) => None,
        }
    }

    /// The store error this is, directly or inside a module's error: for the command line
    /// to name its own command where the library names what to do (repair the index).
    pub fn store(&self) -> Option<&crate::store::StoreError> {
        match self {
            Error::Store(e)
            | Error::Index(crate::index::IndexError::Store(e))
            | Error::Search(crate::search::SearchError::Store(e))
            | Error::Share(crate::share::ShareError::Store(e)) => Some(e),
            _ => None,
        }
    }

    /// True when the user interrupted the work (Ctrl-C): exit code 130, like a shell.
    pub fn is_interrupted(&self) -> bool {
        matches!(
            self,
            Error::Index(crate::index::IndexError::Interrupted { .. })
        )
    }

    /// Render the error as the lines printed on stderr: `error:`, `caused by:` and `hint:`.
    pub fn render(&self) -> String {
        self.render_as(&self.to_string(), self.hint())
    }

    /// Render the error with another first line and hint: the command line's own words for
    /// what the library names by its inputs (a flag for a search option). The causes are the
    /// error's own.
    pub fn render_as(&self, message: &str, hint: Option<String>) -> String {
        let mut out = format!("error: {message}");
        let mut source = self.source();
        // `transparent` variants share their message with the first source; skip repeats.
        let mut last = self.to_string();
        while let Some(cause) = source {
            let text = cause.to_string();
            if text != last {
                out.push_str(&format!("\ncaused by: {text}"));
            }
            last = text;
            source = cause.source();
        }
        if let Some(hint) = hint {
            out.push_str(&format!("\nhint: {hint}"));
        }
        out
    }
}
