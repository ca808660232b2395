//! Reading `.codesearch.toml` as the untrusted file it is: never through a symbolic link
//! (a link to a credentials file would be echoed back in a parse error), never more than
//! [`MAX_CONFIG_BYTES`] (a link or pipe to an endless source would eat memory), and only the
//! settings that cannot send anything anywhere, nor steer the user's own provider, unless
//! the user trusted the file.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use toml::de::{DeTable, DeValue};

use super::error::{ConfigError, MAX_CONFIG_BYTES};
use super::provider::Provider;
use super::settings::{Config, EmbedConfig, LlmConfig};

/// Git config key (lower case) holding the SHA-256 of the `.codesearch.toml` the user trusts.
pub const TRUST_KEY: &str = "codesearch.trustedconfig";

/// The text of the config file at `path`; `None` when there is none. A symbolic link, a
/// directory or device, a file over the size limit or one that is not UTF-8 is refused.
pub fn read_config_file(path: &Path) -> Result<Option<String>, ConfigError> {
    let refused = |why: &str| ConfigError::Refused {
        path: path.to_path_buf(),
        why: why.into(),
    };
    let read_err = |e| ConfigError::Read {
        path: path.to_path_buf(),
        source: e,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    if meta.file_type().is_symlink() {
        return Err(refused("it is a symbolic link"));
    }
    if !meta.is_file() {
        return Err(refused("it is not a regular file"));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(refused(&format!(
            "it is larger than {MAX_CONFIG_BYTES} bytes"
        )));
    }
    let file = open_no_follow(path).map_err(read_err)?;
    let mut bytes = Vec::new();
    // Bounded again while reading: the file may have grown (or been swapped) since the stat.
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(refused(&format!(
            "it is larger than {MAX_CONFIG_BYTES} bytes"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| refused("it is not UTF-8 text"))
}

/// The settings of a config file's text, and the provider it names when that is none
/// this build knows (read as the default). An unknown provider is not a parse
/// error: in an untrusted file it is dropped like any provider that file may not choose,
/// and in a trusted one it is refused as an invalid setting, naming the key.
pub(super) fn parse_config(text: &str) -> Result<(Config, Option<String>), toml::de::Error> {
    let mut root = DeTable::parse(text)?;
    let unknown = take_unknown_provider(root.get_mut());
    // Parsed from the same text as `toml::from_str` would: errors point into it.
    let config = Config::deserialize(toml::de::Deserializer::from(root)).map_err(|mut e| {
        e.set_input(Some(text));
        e
    })?;
    Ok((config, unknown))
}

/// Replace an unknown `[embed] provider` name by the default, returning the name.
fn take_unknown_provider(root: &mut DeTable<'_>) -> Option<String> {
    let (_, embed) = root.iter_mut().find(|(k, _)| k.get_ref() == "embed")?;
    let DeValue::Table(embed) = embed.get_mut() else {
        return None;
    };
    let (_, value) = embed.iter_mut().find(|(k, _)| k.get_ref() == "provider")?;
    let name = value.get_ref().as_str()?;
    if Provider::parse(name).is_ok() {
        return None;
    }
    let name = name.to_string();
    *value.get_mut() = DeValue::String(Cow::Borrowed(Provider::default().as_str()));
    Some(name)
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Put each named field of `[embed]` that differs from its default back to the default,
/// naming it in `dropped`.
macro_rules! reset {
    ($embed:expr, $defaults:expr, $dropped:expr, [$($field:ident),+ $(,)?]) => {
        $(
            if $embed.$field != $defaults.$field {
                $dropped.push(concat!("embed.", stringify!($field)).to_string());
                $embed.$field = $defaults.$field.clone();
            }
        )+
    };
}

impl Config {
    /// Put every setting only a trusted file may set back to its default; returns the keys
    /// that were set otherwise. An untrusted file may tune ranking and what is indexed
    /// (bounded by `ranges`), and turn the local model on or off. It may not choose where
    /// code or credentials go (a remote provider, its URL, its key variable, any `[llm]`
    /// setting), nor what the user's provider is sent and how (the model, the vector
    /// dimension, batch size, request and token rates, retries and timeouts): those cost the
    /// user money or time with their own provider.
    /// `unknown` is the provider name the file gave that this build does not know (already
    /// read as the default).
    pub(super) fn drop_untrusted(&mut self, unknown: Option<String>) -> Vec<String> {
        let mut dropped = Vec::new();
        let defaults = EmbedConfig::default();
        let e = &mut self.embed;
        // The compiled-in models send nothing anywhere: a committed file may pick them.
        if let Some(name) = unknown {
            dropped.push(format!("embed.provider = {name:?}"));
        } else if !e.provider.is_compiled_in() {
            dropped.push(format!("embed.provider = {:?}", e.provider.as_str()));
            e.provider = defaults.provider;
        }
        reset!(
            e,
            defaults,
            dropped,
            [
                url,
                api_key_env,
                model,
                dimension,
                batch_size,
                requests_per_second,
                tokens_per_minute,
                max_retries,
                backoff_base_ms,
                backoff_max_ms,
                timeout_secs,
            ]
        );
        if self.llm != LlmConfig::default() {
            dropped.push("[llm]".to_string());
            self.llm = LlmConfig::default();
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::super::error::CONFIG_FILE;
    use super::*;

    const HOSTILE: &str = "[embed]\nprovider = \"openai\"\nmodel = \"m\"\nurl = \"http://attacker.invalid/v1\"\napi_key_env = \"GITHUB_TOKEN\"\n[llm]\nrewrite = true\nmodel = \"m\"\nurl = \"http://attacker.invalid/v1\"\n[search]\nn_final = 7\n";

    #[test]
    fn a_committed_file_cannot_choose_where_code_goes_until_trusted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), HOSTILE).unwrap();
        let c = Config::load(dir.path(), |_| None).unwrap();
        assert_eq!(c.embed.provider, Provider::Static);
        assert_eq!(c.embed.url, EmbedConfig::default().url);
        assert_eq!(c.embed.api_key_env, "");
        assert_eq!(c.llm, LlmConfig::default());
        assert_eq!(c.untrusted.len(), 5, "{:?}", c.untrusted);
        // Ranking settings still apply.
        assert_eq!(c.search.n_final, 7);
        // Trusting exactly this file lets it decide; any other hash does not.
        let hash = crate::util::sha256_hex(HOSTILE.as_bytes());
        let c = Config::load(dir.path(), |k| (k == TRUST_KEY).then(|| hash.clone())).unwrap();
        assert_eq!(c.embed.provider, Provider::OpenAi);
        assert!(c.untrusted.is_empty());
        let other = crate::util::sha256_hex(b"older file");
        let c = Config::load(dir.path(), |k| (k == TRUST_KEY).then(|| other.clone())).unwrap();
        assert_eq!(c.embed.provider, Provider::Static);
        // The user's own git config may still choose a provider.
        let c = Config::load(dir.path(), |k| {
            (k == "codesearch.embedprovider").then(|| "none".into())
        })
        .unwrap();
        assert_eq!(c.embed.provider, Provider::None);
    }

    #[test]
    fn what_a_provider_is_sent_and_how_fast_needs_a_trusted_file() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[embed]\ntokens_per_minute = 1e-300\nrequests_per_second = 1e-300\nmodel = \"big\"\ndimension = 4096\nbatch_size = 2048\nmin_similarity = 0.5\n";
        std::fs::write(dir.path().join(CONFIG_FILE), text).unwrap();
        let c = Config::load(dir.path(), |_| None).unwrap();
        let d = EmbedConfig::default();
        assert_eq!(c.embed.tokens_per_minute, d.tokens_per_minute);
        assert_eq!(c.embed.requests_per_second, d.requests_per_second);
        assert_eq!((c.embed.model.as_str(), c.embed.dimension), ("", 0));
        assert_eq!(c.embed.batch_size, d.batch_size);
        for key in [
            "model",
            "dimension",
            "batch_size",
            "requests_per_second",
            "tokens_per_minute",
        ] {
            let key = format!("embed.{key}");
            assert!(c.untrusted.contains(&key), "{key}: {:?}", c.untrusted);
        }
        // Ranking stays the file's to tune.
        assert_eq!(c.embed.min_similarity, 0.5);
        // Trusted, the rates must still be ones a run can wait for.
        let hash = crate::util::sha256_hex(text.as_bytes());
        let err = Config::load(dir.path(), |k| (k == TRUST_KEY).then(|| hash.clone()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("embed.requests_per_second"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn links_special_files_and_huge_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "token = \"hunter2\"\n").unwrap();
        let path = dir.path().join(CONFIG_FILE);
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        let err = Config::load(dir.path(), |_| None).unwrap_err();
        assert!(matches!(err, ConfigError::Refused { .. }), "{err}");
        assert!(!crate::util::chain(&err).contains("hunter2"));
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(matches!(
            Config::load(dir.path(), |_| None),
            Err(ConfigError::Refused { .. })
        ));
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "#".repeat(MAX_CONFIG_BYTES as usize + 1)).unwrap();
        assert!(matches!(
            Config::load(dir.path(), |_| None),
            Err(ConfigError::Refused { .. })
        ));
    }

    /// Lines of each section a property-test file may hold (each at most once, so that the
    /// file stays valid TOML), every one of them something only a trusted file may decide or a
    /// harmless tuning.
    const SECTIONS: [(&str, &[&str]); 3] = [
        (
            "[embed]",
            &[
                "provider = \"openai\"",
                "url = \"http://x.invalid\"",
                "api_key_env = \"HOME\"",
                "model = \"m\"",
                "dimension = 8",
                "batch_size = 2048",
                "tokens_per_minute = 1e-300",
                "requests_per_second = 0.001",
                "min_similarity = 0.5",
            ],
        ),
        (
            "[llm]",
            &[
                "rewrite = true",
                "rerank = true",
                "model = \"m\"",
                "url = \"http://x.invalid\"",
            ],
        ),
        ("[search]", &["n_final = 3", "stemming = true"]),
    ];

    proptest::proptest! {
        #![proptest_config(crate::util::fuzzing::config(64))]
        /// Any file: loading never panics; a well-formed one always loads, and whatever it says
        /// an untrusted one never picks a remote provider, a URL, a key variable, a chat
        /// model, or what a provider is sent and how fast.
        #[test]
        fn any_file_is_read_safely(
            picks in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<bool>(), 9), 3),
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let mut text = String::new();
            for ((header, lines), pick) in SECTIONS.iter().zip(&picks) {
                if pick[8] || lines.iter().zip(pick).any(|(_, &p)| p) {
                    text.push_str(header);
                    text.push('\n');
                    for (line, _) in lines.iter().zip(pick).filter(|(_, &p)| p) {
                        text.push_str(line);
                        text.push('\n');
                    }
                }
            }
            let mut bytes = text.into_bytes();
            let noisy = noise.len() % 4 == 0;
            if noisy {
                bytes.extend(noise);
            }
            std::fs::write(dir.path().join(CONFIG_FILE), &bytes).unwrap();
            match Config::load(dir.path(), |_| None) {
                Ok(c) => {
                    let d = EmbedConfig::default();
                    proptest::prop_assert!(c.embed.provider.is_compiled_in());
                    proptest::prop_assert_eq!(&c.embed.url, &d.url);
                    proptest::prop_assert_eq!(&c.embed.api_key_env, "");
                    proptest::prop_assert_eq!(&c.embed.model, "");
                    proptest::prop_assert_eq!(c.embed.dimension, 0);
                    proptest::prop_assert_eq!(c.embed.batch_size, d.batch_size);
                    proptest::prop_assert_eq!(c.embed.tokens_per_minute, d.tokens_per_minute);
                    proptest::prop_assert_eq!(c.embed.requests_per_second, d.requests_per_second);
                    proptest::prop_assert_eq!(&c.llm, &LlmConfig::default());
                }
                Err(e) => proptest::prop_assert!(noisy, "a well-formed file was refused: {}", e),
            }
        }
    }
}
