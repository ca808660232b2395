//! A remote for `push` and `pull`: object storage (`s3://`, `gs://`, `az://`, `file://`)
//! through the `object_store` crate. Credentials come from each cloud's own environment and
//! configuration chain (`from_env` builders), never from the URL, and the URL is shown only
//! redacted. Objects are written with `PutMode::Create` only: a pack is named by the hash of
//! its bytes (a second writer writes the same bytes), and a manifest version is a new key
//! (two writers of the same version: one gets `AlreadyExists` and retries), which every
//! store supports as a conditional write (S3 `If-None-Match: *`, GCS generation 0, Azure
//! `If-None-Match: *`, a hard link on a file system).

use std::sync::Arc;

use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

/// Errors of a remote, each naming the (redacted) URL and the object involved.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The URL is not one push and pull read.
    #[error("remote {url}: {why}")]
    Url { url: String, why: String },
    /// The store refused or failed an operation.
    #[error("remote {url}: cannot {op} {key}")]
    Store {
        url: String,
        op: &'static str,
        key: String,
        #[source]
        source: Box<object_store::Error>,
    },
    /// An object is not what it must be (a hash that does not match, a manifest that does
    /// not parse or names what no push writes).
    #[error("remote {url}: object {key} is refused: {why}")]
    BadObject {
        url: String,
        key: String,
        why: String,
    },
    /// An object a manifest names is not on the remote.
    #[error("remote {url}: object {key} is missing")]
    Missing { url: String, key: String },
    /// A push of a branch this index has nothing of.
    #[error("remote {url}: nothing is indexed on {branch} to push")]
    NothingIndexed { url: String, branch: String },
    /// Writing what was read to its destination failed or was refused there.
    #[error("remote {url}: reading {key} stopped")]
    Sink {
        url: String,
        key: String,
        #[source]
        source: std::io::Error,
    },
    /// No async runtime could be started.
    #[error("cannot start the runtime for remote {url}")]
    Runtime {
        url: String,
        #[source]
        source: std::io::Error,
    },
}

impl RemoteError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            RemoteError::Url { .. } => "give a URL such as s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///absolute/path; credentials come from the environment (AWS_ACCESS_KEY_ID, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT_KEY, …), never from the URL".into(),
            RemoteError::Store { .. } => "check the remote's URL, network and credentials (the store's standard environment variables and config files); nothing local was changed".into(),
            RemoteError::BadObject { .. } | RemoteError::Missing { .. } => "the local index is unchanged; push again from a clone with a good index (objects are immutable: a damaged one must be deleted on the remote first)".into(),
            RemoteError::NothingIndexed { .. } => "run `git codesearch index` first (or `push --all` for every indexed branch)".into(),
            RemoteError::Sink { .. } => "the local index is unchanged; check the free space of the index's directory".into(),
            RemoteError::Runtime { .. } => "the machine is out of threads or file descriptors; try again".into(),
        })
    }
}

/// An opened remote.
pub struct Remote {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    url: String,
    rt: tokio::runtime::Runtime,
}

/// What [`Remote::get_to`] streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetInfo {
    /// Bytes read (counted as they came).
    pub bytes: u64,
    /// Their SHA-256, lowercase hex.
    pub sha256: String,
}

/// Whether a conditional create landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The object was written.
    Written,
    /// An object was already at that key (for a pack: the same bytes).
    Existed,
}

impl Remote {
    /// Open the remote at `url`, with credentials from the environment.
    pub fn open(url: &str) -> Result<Remote, RemoteError> {
        Remote::open_with(url, &[])
    }

    /// Open the remote at `url` with `options` (object_store's configuration keys, such as
    /// `aws_endpoint`) over the environment's: for tests and tools, never from a user's file.
    pub fn open_with(url: &str, options: &[(&str, &str)]) -> Result<Remote, RemoteError> {
        let shown = crate::util::redact_url(url.trim_end_matches('/'));
        let bad = |why: &str| RemoteError::Url {
            url: shown.clone(),
            why: why.into(),
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("not a URL"))?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') || rest.contains('?') {
            return Err(bad(
                "credentials or options in the URL are not read (they would be printed and stored); use the environment",
            ));
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| RemoteError::Runtime {
                url: shown.clone(),
                source,
            })?;
        // TLS for the cloud clients, on the ring provider the rest of the program uses.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let built = |e: object_store::Error| RemoteError::Store {
            url: shown.clone(),
            op: "open",
            key: String::new(),
            source: Box::new(e),
        };
        let (store, prefix): (Arc<dyn ObjectStore>, String) = match scheme {
            "file" => {
                let path = std::path::Path::new(rest);
                if !path.is_absolute() || !authority.is_empty() {
                    return Err(bad("a file:// remote needs an absolute path (file:///dir)"));
                }
                std::fs::create_dir_all(path)
                    .map_err(|e| bad(&format!("cannot create the directory: {e}")))?;
                let fs =
                    object_store::local::LocalFileSystem::new_with_prefix(path).map_err(built)?;
                (Arc::new(fs), String::new())
            }
            "s3" | "gs" | "az" | "abfs" => {
                let prefix = rest[authority.len()..].trim_matches('/').to_string();
                let root = format!("{scheme}://{authority}");
                let store: Arc<dyn ObjectStore> = match scheme {
                    "s3" => {
                        let mut b = object_store::aws::AmazonS3Builder::from_env().with_url(root);
                        for (k, v) in options {
                            if let Ok(key) = k.parse() {
                                b = b.with_config(key, *v);
                            }
                        }
                        Arc::new(b.build().map_err(built)?)
                    }
                    "gs" => Arc::new(
                        object_store::gcp::GoogleCloudStorageBuilder::from_env()
                            .with_url(root)
                            .build()
                            .map_err(built)?,
                    ),
                    _ => Arc::new(
                        object_store::azure::MicrosoftAzureBuilder::from_env()
                            .with_url(root)
                            .build()
                            .map_err(built)?,
                    ),
                };
                (store, prefix)
            }
            _ => {
                return Err(bad(
                    "only s3://, gs://, az:// and file:// remotes are supported",
                ))
            }
        };
        Ok(Remote {
            store,
            prefix,
            url: shown,
            rt,
        })
    }

    /// The URL, redacted: how the remote is shown and recorded.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn path(&self, key: &str) -> ObjectPath {
        if self.prefix.is_empty() {
            ObjectPath::from(key)
        } else {
            ObjectPath::from(format!("{}/{key}", self.prefix))
        }
    }

    fn err(&self, op: &'static str, key: &str) -> impl Fn(object_store::Error) -> RemoteError + '_ {
        let key = key.to_string();
        move |source| RemoteError::Store {
            url: self.url.clone(),
            op,
            key: key.clone(),
            source: Box::new(source),
        }
    }

    /// Keys (relative to the remote's prefix) and sizes of every object under `dir`.
    pub fn list(&self, dir: &str) -> Result<Vec<(String, u64)>, RemoteError> {
        let path = self.path(dir);
        let metas: Vec<object_store::ObjectMeta> = self
            .rt
            .block_on(self.store.list(Some(&path)).try_collect())
            .map_err(self.err("list", dir))?;
        let skip = if self.prefix.is_empty() {
            0
        } else {
            self.prefix.len() + 1
        };
        Ok(metas
            .into_iter()
            .filter_map(|m| {
                let key = m.location.as_ref().get(skip..)?.to_string();
                Some((key, m.size))
            })
            .collect())
    }

    /// The bytes of `key`, at most `max` of them; `None` if there is no such object. For
    /// small objects (manifests): a pack goes through [`Remote::get_to`].
    pub fn get(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>, RemoteError> {
        let mut out = Vec::new();
        Ok(self.get_to(key, max, &mut out)?.map(|_| out))
    }

    /// Stream the bytes of `key` into `sink` as they arrive, hashing them: never more than
    /// `max` (counted here, whatever size the store announces), never held whole. `None`
    /// if there is no such object.
    pub fn get_to(
        &self,
        key: &str,
        max: u64,
        sink: &mut dyn std::io::Write,
    ) -> Result<Option<GetInfo>, RemoteError> {
        use futures::StreamExt;
        use sha2::Digest;
        let too_big = |size: u64| RemoteError::BadObject {
            url: self.url.clone(),
            key: key.into(),
            why: format!("it is {size} bytes or more, more than the {max} allowed"),
        };
        let path = self.path(key);
        let mut hasher = sha2::Sha256::new();
        let mut bytes = 0u64;
        let streamed = self.rt.block_on(async {
            let r = match self.store.get(&path).await {
                Ok(r) => r,
                Err(object_store::Error::NotFound { .. }) => return Ok(false),
                Err(e) => return Err(self.err("read", key)(e)),
            };
            if r.meta.size > max {
                return Err(too_big(r.meta.size));
            }
            let mut stream = r.into_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(self.err("read", key))?;
                bytes += chunk.len() as u64;
                if bytes > max {
                    return Err(too_big(bytes));
                }
                hasher.update(&chunk);
                sink.write_all(&chunk).map_err(|source| RemoteError::Sink {
                    url: self.url.clone(),
                    key: key.into(),
                    source,
                })?;
            }
            Ok(true)
        })?;
        Ok(streamed.then(|| GetInfo {
            bytes,
            sha256: crate::util::hex(&hasher.finalize()),
        }))
    }

    /// Whether `key` exists.
    pub fn exists(&self, key: &str) -> Result<bool, RemoteError> {
        match self.rt.block_on(self.store.head(&self.path(key))) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.err("check", key)(e)),
        }
    }

    /// Write `bytes` at `key` unless an object is there already (atomically).
    pub fn create(&self, key: &str, bytes: Vec<u8>) -> Result<Created, RemoteError> {
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        let put = self.rt.block_on(self.store.put_opts(
            &self.path(key),
            PutPayload::from(bytes),
            opts,
        ));
        match put {
            Ok(_) => Ok(Created::Written),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(Created::Existed),
            Err(e) => Err(self.err("write", key)(e)),
        }
    }

    /// Delete `key` (an old manifest version); a missing object is no error.
    pub fn delete(&self, key: &str) -> Result<(), RemoteError> {
        match self.rt.block_on(self.store.delete(&self.path(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.err("delete", key)(e)),
        }
    }
}
