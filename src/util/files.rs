//! Reading one file of a directory tree that is not ours to trust (the work tree), after it
//! was listed: between the listing and the read, any part of its path may have been swapped
//! for a symbolic link (to a credentials file), a FIFO (which blocks a reader for ever) or a
//! device, and the file may have grown. So each directory on the way is opened without
//! following a link, the file itself without following one and without blocking, `fstat`
//! must say it is a regular file, and no more than the limit is ever read.

use std::fs::File;
use std::io::Read;
use std::path::{Component, Path};

/// What a bounded read found.
#[derive(Debug)]
pub enum Bounded {
    /// The whole file.
    Bytes(Vec<u8>),
    /// The file holds more than the limit (this many bytes at least); nothing is kept.
    TooLarge(u64),
}

/// Read the regular file `rel` (relative, no `..`) below the directory `root`, at most `max`
/// bytes. A symbolic link anywhere below `root`, or a file that is not a regular file, is an
/// error, and is never followed or read.
pub fn read_beneath(root: &Path, rel: &Path, max: u64) -> std::io::Result<Bounded> {
    let file = open_beneath(root, rel)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused("not a regular file"));
    }
    if meta.len() > max {
        return Ok(Bounded::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded again while reading: the file may grow after the `fstat`.
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Ok(Bounded::TooLarge(bytes.len() as u64));
    }
    Ok(Bounded::Bytes(bytes))
}

fn refused(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, why.to_string())
}

/// The components of `rel`, all plain names, and at least one.
fn names(rel: &Path) -> std::io::Result<Vec<&std::ffi::OsStr>> {
    let names: Vec<_> = rel
        .components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(refused("not a path below the tree")),
        })
        .collect::<Result<_, _>>()?;
    if names.is_empty() {
        return Err(refused("an empty path"));
    }
    Ok(names)
}

/// Open the regular file or directory `rel` below `root` for reading, every component
/// reached without following a link.
#[cfg(unix)]
pub fn open_beneath(root: &Path, rel: &Path) -> std::io::Result<File> {
    let names = names(rel)?;
    let (file, dirs) = names.split_last().expect("at least one name");
    let mut dir = File::open(root)?;
    for name in dirs {
        dir = open_at(&dir, name, libc::O_DIRECTORY)?;
    }
    open_at(&dir, file, libc::O_NONBLOCK)
}

/// `openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | extra)`.
#[cfg(unix)]
fn open_at(dir: &File, name: &std::ffi::OsStr, extra: libc::c_int) -> std::io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(name.as_bytes()).map_err(|_| refused("a NUL in a name"))?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC | extra;
    // SAFETY: `dir` is an open descriptor for the whole call and `name` a NUL-terminated
    // string that outlives it.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            // What O_NOFOLLOW answers for a link.
            Some(libc::ELOOP) => refused("a symbolic link (not followed)"),
            // What O_DIRECTORY answers for a link to a directory (or a file on the way).
            Some(libc::ENOTDIR) => refused("not a directory (a symbolic link is not followed)"),
            _ => e,
        });
    }
    // SAFETY: `fd` was just opened and belongs to nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Open the regular file or directory `rel` below `root` for reading.
#[cfg(not(unix))]
pub fn open_beneath(root: &Path, rel: &Path) -> std::io::Result<File> {
    names(rel)?;
    File::open(root.join(rel))
}

/// Open the directory `rel` below `root` (`root` itself when `rel` is empty), each component
/// a real directory reached without following a link; missing ones are created when `create`.
#[cfg(unix)]
pub fn dir_beneath(root: &Path, rel: &Path, create: bool) -> std::io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let mut dir = File::open(root)?;
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return Err(refused("not a path below the tree"));
        };
        match open_at(&dir, name, libc::O_DIRECTORY) {
            Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
                let cname = std::ffi::CString::new(name.as_bytes())
                    .map_err(|_| refused("a NUL in a name"))?;
                // SAFETY: an open descriptor and a NUL-terminated name, both live.
                let r = unsafe { libc::mkdirat(dir.as_raw_fd(), cname.as_ptr(), 0o777) };
                let e = std::io::Error::last_os_error();
                if r != 0 && e.raw_os_error() != Some(libc::EEXIST) {
                    return Err(e);
                }
                dir = open_at(&dir, name, libc::O_DIRECTORY)?;
            }
            opened => dir = opened?,
        }
    }
    Ok(dir)
}

/// Open the directory `rel` below `root`, creating missing ones when `create`.
#[cfg(not(unix))]
pub fn dir_beneath(root: &Path, rel: &Path, create: bool) -> std::io::Result<File> {
    let path = root.join(rel);
    if create {
        std::fs::create_dir_all(&path)?;
    }
    File::open(path)
}

/// Write `bytes` as the new file `name` in the directory `dir` (from [`dir_beneath`]) unless
/// something is there already, atomically: a temporary file, then a hard link that never
/// replaces. Whether it was written.
#[cfg(unix)]
pub fn create_in(dir: &File, name: &str, bytes: &[u8]) -> std::io::Result<bool> {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    let cstr = |s: &str| std::ffi::CString::new(s).map_err(|_| refused("a NUL in a name"));
    let tmp = format!(".tmp-{}-{name}", std::process::id());
    let (ctmp, cname) = (cstr(&tmp)?, cstr(name)?);
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: an open descriptor and a NUL-terminated name, both live.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), ctmp.as_ptr(), flags, 0o666) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and belongs to nothing else.
    let mut file = unsafe { File::from_raw_fd(fd) };
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    let linked = written.and_then(|()| {
        // SAFETY: as above; linkat with no flags never follows `tmp` and never replaces `name`.
        let r = unsafe {
            libc::linkat(
                dir.as_raw_fd(),
                ctmp.as_ptr(),
                dir.as_raw_fd(),
                cname.as_ptr(),
                0,
            )
        };
        let e = std::io::Error::last_os_error();
        match r {
            0 => Ok(true),
            _ if e.raw_os_error() == Some(libc::EEXIST) => Ok(false),
            _ => Err(e),
        }
    });
    // SAFETY: as above.
    unsafe { libc::unlinkat(dir.as_raw_fd(), ctmp.as_ptr(), 0) };
    linked
}

/// Remove the file `name` of the directory `dir` (never what a link there points to).
#[cfg(unix)]
pub fn remove_in(dir: &File, name: &str) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let cname = std::ffi::CString::new(name).map_err(|_| refused("a NUL in a name"))?;
    // SAFETY: an open descriptor and a NUL-terminated name, both live.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), cname.as_ptr(), 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Not on this platform: a `file://` remote needs `linkat` and `unlinkat`.
#[cfg(not(unix))]
pub fn create_in(_dir: &File, _name: &str, _bytes: &[u8]) -> std::io::Result<bool> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Not on this platform: a `file://` remote needs `linkat` and `unlinkat`.
#[cfg(not(unix))]
pub fn remove_in(_dir: &File, _name: &str) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn read(root: &Path, rel: &str, max: u64) -> Result<Vec<u8>, String> {
        match read_beneath(root, Path::new(rel), max) {
            Ok(Bounded::Bytes(b)) => Ok(b),
            Ok(Bounded::TooLarge(n)) => Err(format!("too large: {n}")),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn only_regular_files_reached_without_a_link_are_read_and_never_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tree");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.rs"), "fn a() {}\n").unwrap();
        assert_eq!(read(&root, "sub/a.rs", 100).unwrap(), b"fn a() {}\n");
        assert_eq!(read(&root, "sub/a.rs", 3).unwrap_err(), "too large: 10");
        // A link as the file or as a directory on the way, to something outside.
        let outside = dir.path().join("secret");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("a.rs"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.join("a.rs"), root.join("link.rs")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("linkdir")).unwrap();
        for rel in ["link.rs", "linkdir/a.rs"] {
            let err = read(&root, rel, 100).unwrap_err();
            assert!(err.contains("not followed"), "{rel}: {err}");
        }
        // A FIFO with no writer: refused at once, never waited on.
        let fifo = std::ffi::CString::new(root.join("fifo.rs").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        assert!(read(&root, "fifo.rs", 100)
            .unwrap_err()
            .contains("not a regular file"));
        assert!(read(&root, "../tree/sub/a.rs", 100).is_err());
        assert!(read(&root, "sub", 100).is_err());
    }
}
