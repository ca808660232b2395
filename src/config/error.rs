//! The configuration's one error type, [`ConfigError`], naming the file or the key and where
//! its value came from, and the file's name and size bound its messages name.

use std::path::PathBuf;

/// Name of the per-repository configuration file, at the top of the work tree.
pub const CONFIG_FILE: &str = ".codesearch.toml";

/// The largest `.codesearch.toml` read: a committed file is untrusted, and a link or pipe to
/// an endless source would eat memory.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// Errors while reading or validating the configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file exists but could not be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The config file is a symbolic link, not a regular file, or too large.
    #[error("refusing to read {path}: {why}")]
    Refused { path: PathBuf, why: String },
    /// `git codesearch trust` could not write the local git config.
    #[error("cannot record the trust in the local git config: {why}")]
    Trust { why: String },
    /// The config file is not valid TOML or has unknown keys.
    #[error("invalid configuration in {path}")]
    Parse {
        path: PathBuf,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A value is out of range or malformed.
    #[error("invalid setting {key} = {value} (from {origin}): {reason}")]
    Invalid {
        key: String,
        value: String,
        origin: String,
        reason: String,
    },
}

impl ConfigError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ConfigError::Read { .. } => "check the file's permissions".into(),
            ConfigError::Refused { .. } => format!(
                "{CONFIG_FILE} must be a regular file of at most {MAX_CONFIG_BYTES} bytes; remove or replace it"
            ),
            ConfigError::Trust { .. } => "check that .git/config is writable".into(),
            ConfigError::Parse { .. } => {
                "see README.md, section \"Configuration\", for the keys and their defaults".into()
            }
            ConfigError::Invalid { .. } => {
                "fix the value, or remove it to use the default (see README.md, \"Configuration\")"
                    .into()
            }
        })
    }
}

/// A range or value error of `key`, from `origin`.
pub(crate) fn invalid(origin: &str, key: &str, value: String, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        value,
        origin: origin.into(),
        reason: reason.into(),
    }
}
