//! Installed local models: `git codesearch model install --from DIR` copies a sentence
//! embedding model in Hugging Face layout (`config.json`, `tokenizer.json`,
//! `model.safetensors`) into the user's model directory, checks that it loads and embeds,
//! and records its identity (a checksum of the weights), so that `[embed] model = "NAME"`
//! selects it without hashing hundreds of megabytes on every search. Nothing is downloaded.

use std::path::{Path, PathBuf};

/// The files a model directory must have.
pub const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];
/// Written at install: the model's identity, `NAME@<sha256 of the weights, 12 hex>`.
const ID_FILE: &str = "MODEL_ID";

/// Errors of installing or finding a local model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The source directory lacks a required file.
    #[error("{dir} is not a model directory: {file} is missing")]
    Incomplete { dir: PathBuf, file: &'static str },
    /// The name would not be a plain directory name.
    #[error("bad model name {name:?}: use letters, digits, '.', '-' and '_'")]
    BadName { name: String },
    /// Copying or reading files failed.
    #[error("cannot {what} {path}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The model did not load or run.
    #[error("the model in {dir} does not work")]
    Broken {
        dir: PathBuf,
        #[source]
        source: super::embedder::EmbedError,
    },
    /// `[embed] model` names a model that is not installed.
    #[error("no installed model named {name:?} (in {dir})")]
    NotInstalled { name: String, dir: PathBuf },
    /// No home directory to keep models in.
    #[error("no model directory: set GIT_CODESEARCH_MODELS or HOME")]
    NoHome,
}

impl ModelError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            ModelError::Incomplete { .. } => Some(format!(
                "a model directory holds {} (Hugging Face layout)",
                FILES.join(", ")
            )),
            ModelError::NotInstalled { .. } => Some(
                "install it with `git codesearch model install --from DIR --name NAME`, or leave embed.model empty for the bundled model".into(),
            ),
            ModelError::Broken { .. } => Some(
                "only BERT-family sentence-embedding models (MiniLM, BGE, E5, GTE…) are supported locally".into(),
            ),
            _ => None,
        }
    }
}

/// Where installed models live: `$GIT_CODESEARCH_MODELS`, else
/// `$XDG_DATA_HOME/git-codesearch/models`, else `~/.local/share/git-codesearch/models`.
pub fn models_dir() -> Result<PathBuf, ModelError> {
    if let Some(d) = crate::env::get(crate::env::MODELS) {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = crate::env::non_empty(crate::env::XDG_DATA_HOME) {
        return Ok(PathBuf::from(d).join("git-codesearch/models"));
    }
    let home = crate::env::get(crate::env::HOME).ok_or(ModelError::NoHome)?;
    Ok(PathBuf::from(home).join(".local/share/git-codesearch/models"))
}

/// An installed model: its directory and identity.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The name it was installed under.
    pub name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// `NAME@checksum`: vectors are stored under this id.
    pub id: String,
}

/// Find the installed model `name`.
pub fn find(name: &str) -> Result<Installed, ModelError> {
    check_name(name)?;
    let root = models_dir()?;
    let dir = root.join(name);
    let id = std::fs::read_to_string(dir.join(ID_FILE)).map_err(|_| ModelError::NotInstalled {
        name: name.into(),
        dir: root.clone(),
    })?;
    Ok(Installed {
        name: name.into(),
        dir,
        id: id.trim().to_string(),
    })
}

/// Every installed model, by name.
pub fn list() -> Result<Vec<Installed>, ModelError> {
    let root = models_dir()?;
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<Installed> = entries
        .flatten()
        .filter_map(|e| find(&e.file_name().to_string_lossy()).ok())
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Copy the model in `from` into the model directory as `name`, verify that it embeds, and
/// record its identity. Returns the installed model and its vector dimension. A failed
/// install leaves nothing behind (files go to a temporary directory first).
pub fn install(from: &Path, name: &str) -> Result<(Installed, usize), ModelError> {
    check_name(name)?;
    for file in FILES {
        if !from.join(file).is_file() {
            return Err(ModelError::Incomplete {
                dir: from.to_path_buf(),
                file,
            });
        }
    }
    let root = models_dir()?;
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| ModelError::Io { what, path, source }
    };
    std::fs::create_dir_all(&root).map_err(io("create", &root))?;
    let staging = root.join(format!(".{name}.installing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io("create", &staging))?;
    let result = stage(from, name, &staging);
    let (id, dim) = match result {
        Ok(v) => v,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&staging, &dir).map_err(io("move into place", &dir))?;
    let installed = Installed {
        name: name.into(),
        dir,
        id,
    };
    Ok((installed, dim))
}

/// Copy, checksum, load and try the model in `staging`; the id file is written last.
fn stage(from: &Path, name: &str, staging: &Path) -> Result<(String, usize), ModelError> {
    for file in FILES {
        let src = from.join(file);
        std::fs::copy(&src, staging.join(file)).map_err(|source| ModelError::Io {
            what: "copy",
            path: src,
            source,
        })?;
    }
    let weights = staging.join("model.safetensors");
    let bytes = std::fs::read(&weights).map_err(|source| ModelError::Io {
        what: "read",
        path: weights.clone(),
        source,
    })?;
    let sum = crate::util::sha256_hex(&bytes);
    let id = format!("{name}@{}", &sum[..12]);
    let broken = |source| ModelError::Broken {
        dir: from.to_path_buf(),
        source,
    };
    let mut model = super::bert::BertDir::load(staging, &id).map_err(broken)?;
    let v = super::embedder::Embedder::embed(&mut model, &["fn parse_config(path: &Path)".into()])
        .map_err(broken)?;
    let dim = v.first().map_or(0, Vec::len);
    let id_path = staging.join(ID_FILE);
    std::fs::write(&id_path, &id).map_err(|source| ModelError::Io {
        what: "write",
        path: id_path,
        source,
    })?;
    Ok((id, dim))
}

fn check_name(name: &str) -> Result<(), ModelError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if ok {
        Ok(())
    } else {
        Err(ModelError::BadName { name: name.into() })
    }
}
