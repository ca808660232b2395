//! A remote for `push` and `pull`: object storage (`s3://`, `gs://`, `az://`, `file://`)
//! through the `object_store` crate. Credentials come from each cloud's own environment and
//! configuration chain (`from_env` builders), never from the URL, and the URL is shown only
//! redacted. Objects are written with `PutMode::Create` only: a pack is named by the hash of
//! its bytes (a second writer writes the same bytes), and a manifest version is a new key
//! (two writers of the same version: one gets `AlreadyExists` and retries), which every
//! store supports as a conditional write (S3 `If-None-Match: *`, GCS generation 0, Azure
//! `If-None-Match: *`, a hard link on a file system).

use std::io::Read;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

/// Most objects one listing returns: a remote's manifests are a few versions per branch, and
/// a bucket listing millions of keys would otherwise be held whole by every pull.
pub const MAX_LISTED: usize = 100_000;

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

/// Where a remote's objects are.
enum Backend {
    /// Object storage, under a prefix (its parts encoded once, as the store lists them).
    Object(Arc<dyn ObjectStore>, ObjectPath),
    /// A directory (`file://`), never followed through a link inside it.
    File(super::local::FileStore),
}

/// An opened remote.
pub struct Remote {
    backend: Backend,
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
                let fs = super::local::FileStore::open(path)
                    .map_err(|e| bad(&format!("cannot create the directory: {e}")))?;
                return Ok(Remote {
                    backend: Backend::File(fs),
                    url: shown,
                    rt,
                });
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
            backend: Backend::Object(store, ObjectPath::from(prefix.as_str())),
            url: shown,
            rt,
        })
    }

    /// The URL, redacted: how the remote is shown and recorded.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object path of `key` below `prefix`: the prefix's parts as encoded once, then the
    /// key's (a `~ # %` in a prefix no longer shifts what a listing gives back).
    fn path(prefix: &ObjectPath, key: &str) -> ObjectPath {
        prefix
            .parts()
            .chain(ObjectPath::from(key).parts())
            .collect()
    }

    fn io_err(&self, op: &'static str, key: &str) -> impl Fn(std::io::Error) -> RemoteError + '_ {
        let key = key.to_string();
        move |e| RemoteError::Store {
            url: self.url.clone(),
            op,
            key: key.clone(),
            source: Box::new(object_store::Error::Generic {
                store: "file",
                source: Box::new(e),
            }),
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
        let too_many = || {
            self.bad(
                dir,
                format!("it lists more than {MAX_LISTED} objects: no push writes so many"),
            )
        };
        let (store, prefix) = match &self.backend {
            Backend::File(fs) => {
                return fs
                    .list(dir, MAX_LISTED)
                    .map_err(self.io_err("list", dir))?
                    .ok_or_else(too_many)
            }
            Backend::Object(store, prefix) => (store, prefix),
        };
        let path = Self::path(prefix, dir);
        // One past the bound is enough to know: a bucket listing millions of keys is never
        // held whole.
        let metas: Vec<object_store::ObjectMeta> = self
            .rt
            .block_on(store.list(Some(&path)).take(MAX_LISTED + 1).try_collect())
            .map_err(self.err("list", dir))?;
        if metas.len() > MAX_LISTED {
            return Err(too_many());
        }
        Ok(metas
            .into_iter()
            .filter_map(|m| {
                let parts = m.location.prefix_match(prefix)?;
                let key: Vec<String> = parts.map(|p| p.as_ref().to_string()).collect();
                Some((key.join("/"), m.size))
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
        let mut feed = Feed {
            remote: self,
            key,
            max,
            sink,
            hasher: sha2::Sha256::default(),
            bytes: 0,
        };
        let (store, prefix) = match &self.backend {
            Backend::File(fs) => {
                let refused = |e: std::io::Error| match e.kind() {
                    // A link or a special file where an object should be: the remote's data.
                    std::io::ErrorKind::InvalidInput => feed.remote.bad(key, e.to_string()),
                    _ => feed.remote.io_err("read", key)(e),
                };
                let Some(mut file) = fs.open_file(key).map_err(refused)? else {
                    return Ok(None);
                };
                let mut buf = vec![0u8; 64 << 10];
                loop {
                    let n = file.read(&mut buf).map_err(self.io_err("read", key))?;
                    if n == 0 {
                        return Ok(Some(feed.done()));
                    }
                    feed.take(&buf[..n])?;
                }
            }
            Backend::Object(store, prefix) => (store, prefix),
        };
        let path = Self::path(prefix, key);
        let streamed = self.rt.block_on(async {
            let r = match store.get(&path).await {
                Ok(r) => r,
                Err(object_store::Error::NotFound { .. }) => return Ok(false),
                Err(e) => return Err(self.err("read", key)(e)),
            };
            if r.meta.size > max {
                return Err(feed.too_big(r.meta.size));
            }
            let mut stream = r.into_stream();
            while let Some(chunk) = stream.next().await {
                feed.take(&chunk.map_err(self.err("read", key))?)?;
            }
            Ok(true)
        })?;
        Ok(streamed.then(|| feed.done()))
    }

    fn bad(&self, key: &str, why: String) -> RemoteError {
        RemoteError::BadObject {
            url: self.url.clone(),
            key: key.into(),
            why,
        }
    }

    /// Whether `key` exists.
    pub fn exists(&self, key: &str) -> Result<bool, RemoteError> {
        let (store, prefix) = match &self.backend {
            Backend::File(fs) => {
                let found = fs.open_file(key).map_err(self.io_err("check", key))?;
                return Ok(found.is_some());
            }
            Backend::Object(store, prefix) => (store, prefix),
        };
        match self.rt.block_on(store.head(&Self::path(prefix, key))) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.err("check", key)(e)),
        }
    }

    /// Write `bytes` at `key` unless an object is there already (atomically).
    pub fn create(&self, key: &str, bytes: Vec<u8>) -> Result<Created, RemoteError> {
        let (store, prefix) = match &self.backend {
            Backend::File(fs) => {
                let written = fs.create(key, &bytes).map_err(self.io_err("write", key))?;
                return Ok(if written {
                    Created::Written
                } else {
                    Created::Existed
                });
            }
            Backend::Object(store, prefix) => (store, prefix),
        };
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        let put = self.rt.block_on(store.put_opts(
            &Self::path(prefix, key),
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
        let (store, prefix) = match &self.backend {
            Backend::File(fs) => return fs.delete(key).map_err(self.io_err("delete", key)),
            Backend::Object(store, prefix) => (store, prefix),
        };
        match self.rt.block_on(store.delete(&Self::path(prefix, key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.err("delete", key)(e)),
        }
    }
}

/// What [`Remote::get_to`] has streamed so far: counted, hashed and passed on.
struct Feed<'a> {
    remote: &'a Remote,
    key: &'a str,
    max: u64,
    sink: &'a mut dyn std::io::Write,
    hasher: sha2::Sha256,
    bytes: u64,
}

impl Feed<'_> {
    fn too_big(&self, size: u64) -> RemoteError {
        let why = format!(
            "it is {size} bytes or more, more than the {} allowed",
            self.max
        );
        self.remote.bad(self.key, why)
    }

    fn take(&mut self, chunk: &[u8]) -> Result<(), RemoteError> {
        use sha2::Digest;
        self.bytes += chunk.len() as u64;
        if self.bytes > self.max {
            return Err(self.too_big(self.bytes));
        }
        self.hasher.update(chunk);
        self.sink
            .write_all(chunk)
            .map_err(|source| RemoteError::Sink {
                url: self.remote.url.clone(),
                key: self.key.into(),
                source,
            })
    }

    fn done(self) -> GetInfo {
        use sha2::Digest;
        GetInfo {
            bytes: self.bytes,
            sha256: crate::util::hex(&self.hasher.finalize()),
        }
    }
}
