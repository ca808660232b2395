//! `git codesearch trust [--revoke]`: record (or withdraw) the user's trust in this exact
//! `.codesearch.toml`, as its SHA-256 in the repository's local git config, which a clone
//! never carries. A changed file is untrusted again until trusted anew.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use super::common::Outcome;
use git_codesearch::config::{read_config_file, ConfigError, CONFIG_FILE};
use git_codesearch::Error;

/// The git config key as written (git compares it case-insensitively).
const KEY: &str = "codesearch.trustedConfig";

/// Run `trust`.
pub fn run(dir: &Path, revoke: bool) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
    let mut out = std::io::stdout();
    if revoke {
        // Status 5: the key was not set, which is what was asked.
        git_config(dir, &["--unset", KEY], &[0, 5])?;
        writeln!(out, "{CONFIG_FILE} is no longer trusted").map_err(Error::Output)?;
        return Ok(Outcome::Found);
    }
    let path = ws.workdir.join(CONFIG_FILE);
    let Some(text) = read_config_file(&path)? else {
        writeln!(out, "there is no {CONFIG_FILE} here; nothing to trust").map_err(Error::Output)?;
        return Ok(Outcome::NotFound);
    };
    let hash = git_codesearch::util::sha256_hex(text.as_bytes());
    git_config(dir, &[KEY, &hash], &[0])?;
    // What is trusted, exactly as recorded: the user sees the text the hash stands for
    // (escaped: the file comes with the repository and may hold terminal escapes).
    let mut shown = format!("trusting this {CONFIG_FILE}:\n");
    for line in text.lines() {
        shown.push_str(&format!("  | {}\n", super::render::safe_text(line)));
    }
    writeln!(
        out,
        "{shown}trusted {} (sha256 {hash}); it may now choose embedding and chat providers",
        super::render::path(&path.display().to_string())
    )
    .map_err(Error::Output)?;
    Ok(Outcome::Found)
}

fn git_config(dir: &Path, args: &[&str], ok: &[i32]) -> Result<(), Error> {
    let out = Command::new("git")
        .arg("config")
        .arg("--local")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| ConfigError::Trust { why: e.to_string() })?;
    match out.status.code() {
        Some(c) if ok.contains(&c) => Ok(()),
        _ => Err(ConfigError::Trust {
            why: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        }
        .into()),
    }
}
