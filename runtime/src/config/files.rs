//! [`FileSource`]: where the shared config file is read from, so tests can
//! pass a map instead of touching the file system.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::io;
use std::path::{Path, PathBuf};

/// A source of file contents: the test seam of
/// [`RetryConfig::resolve_from`](super::RetryConfig::resolve_from).
///
/// **Not part of the API**: reachable only as
/// `rebound_runtime::internals::FileSource`, hidden from the documentation
/// and exempt from semantic versioning.
///
/// Implemented for the real file system (crate-private, used by
/// [`RetryConfig::resolve`](super::RetryConfig::resolve)) and, for tests, for
/// `HashMap<PathBuf, String>`, `BTreeMap<PathBuf, String>` and slices and
/// arrays of `(path, contents)` string pairs (a path that is not there does
/// not exist), and for references to any of them. Whatever the source, a
/// text longer than the 1 MiB limit is refused.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use std::path::{Path, PathBuf};
/// use rebound_runtime::internals::FileSource;
///
/// let files = HashMap::from([(PathBuf::from("/c"), "[default]\n".to_owned())]);
/// assert_eq!(files.read(Path::new("/c")).unwrap().as_deref(), Some("[default]\n"));
/// assert_eq!(files.read(Path::new("/missing")).unwrap(), None);
///
/// let pairs = [("/c", "[default]\n")];
/// assert_eq!(pairs.read(Path::new("/c")).unwrap().as_deref(), Some("[default]\n"));
/// ```
pub trait FileSource {
    /// The contents of the file at `path`; `Ok(None)` when it does not exist.
    ///
    /// # Errors
    ///
    /// Any other failure to read it (permissions, not UTF-8, a directory).
    fn read(&self, path: &Path) -> io::Result<Option<String>>;
}

/// The largest shared config file read: 1 MiB. Real files are a few
/// kilobytes; the cap keeps a mistaken `AWS_CONFIG_FILE` (`/dev/zero`, a huge
/// log) from reading until memory runs out. It applies to every
/// [`FileSource`]: a longer text is refused with the path and the reason.
pub(crate) const MAX_CONFIG_FILE_BYTES: u64 = 1024 * 1024;

/// Why [`OsFiles`] refused to read a path (the inner error of the
/// [`io::Error`] it returns, which [`ConfigError::ReadConfigFile`](super::ConfigError::ReadConfigFile)
/// reports with the path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RefusedFile {
    /// Not a regular file: a directory, a FIFO (reading one can block
    /// forever), a device such as `/dev/zero`, a socket.
    #[error("not a regular file (it is {kind})")]
    NotRegular {
        /// What it is instead.
        kind: &'static str,
    },
    /// Larger than [`MAX_CONFIG_FILE_BYTES`].
    #[error("larger than the {limit}-byte limit for a config file")]
    TooLarge {
        /// The limit, [`MAX_CONFIG_FILE_BYTES`].
        limit: u64,
    },
}

/// The real file system. Reads regular files only, up to
/// [`MAX_CONFIG_FILE_BYTES`]; anything else is an error naming the reason
/// ([`RefusedFile`]), checked before the file is opened and again on what
/// was opened, which is opened without blocking: a FIFO cannot block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct OsFiles;

impl FileSource for OsFiles {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        use std::io::Read as _;
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) => metadata,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(err),
        };
        check_regular(&metadata)?;
        let file = open_regular(path)?;
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG_FILE_BYTES + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
            return Err(refused(RefusedFile::TooLarge {
                limit: MAX_CONFIG_FILE_BYTES,
            }));
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))
    }
}

/// Opens `path` and checks that what was opened is a regular file: the
/// path may have been replaced since it was checked. On Unix the open does
/// not block (`O_NONBLOCK`), so a path swapped to a FIFO with no writer is
/// refused instead of holding the caller; reading a regular file is the
/// same with or without the flag.
fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    check_regular(&file.metadata()?)?;
    Ok(file)
}

fn check_regular(metadata: &std::fs::Metadata) -> io::Result<()> {
    let kind = metadata.file_type();
    if kind.is_file() {
        if metadata.len() > MAX_CONFIG_FILE_BYTES {
            return Err(refused(RefusedFile::TooLarge {
                limit: MAX_CONFIG_FILE_BYTES,
            }));
        }
        return Ok(());
    }
    let kind = if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        special_kind(&kind)
    };
    Err(refused(RefusedFile::NotRegular { kind }))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "not a file"
}

fn refused(why: RefusedFile) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

impl<S: BuildHasher> FileSource for HashMap<PathBuf, String, S> {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        Ok(self.get(path).cloned())
    }
}

impl FileSource for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        Ok(self.get(path).cloned())
    }
}

impl FileSource for [(&str, &str)] {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        Ok(self
            .iter()
            .rev()
            .find(|(name, _)| Path::new(name) == path)
            .map(|(_, text)| (*text).to_owned()))
    }
}

impl<const N: usize> FileSource for [(&str, &str); N] {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        self.as_slice().read(path)
    }
}

impl<F: FileSource + ?Sized> FileSource for &F {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        (**self).read(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RetryConfig, RetryMode};

    /// A fresh directory under the system's temporary directory.
    fn tempdir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rebound-config-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_file_is_none() {
        let read = OsFiles.read(Path::new("/surely/not/here/config"));
        assert_eq!(read.unwrap(), None);
    }

    #[test]
    fn real_file_system_through_os_files() {
        // A real file in a fresh temporary directory; never ~/.aws/config.
        let dir = tempdir("os-files");
        let path = dir.join("config");
        std::fs::write(&path, "[profile ci]\r\nretry_mode = adaptive\r\n").unwrap();
        let env = [("AWS_PROFILE", "ci"), ("HOME", "/nonexistent-home")];
        let resolved = RetryConfig::new()
            .config_file(&path)
            .resolve_from(&env, &OsFiles)
            .unwrap();
        assert_eq!(resolved.mode, RetryMode::Adaptive);
        let missing = RetryConfig::new()
            .config_file(dir.join("absent"))
            .resolve_from(&env, &OsFiles)
            .unwrap();
        assert_eq!(missing.mode, RetryMode::Standard);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_home_and_config_paths_are_used_as_they_are() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt as _;

        let dir = tempdir("non-utf8");
        let odd = OsString::from_vec(b"caf\xe9".to_vec());
        let home = dir.join(&odd);
        std::fs::create_dir_all(home.join(".aws")).unwrap();
        std::fs::write(home.join(".aws/config"), "[default]\nmax_attempts = 7\n").unwrap();
        let env = [("HOME", home.clone().into_os_string())];
        let resolved = RetryConfig::new().resolve_from(&env, &OsFiles).unwrap();
        assert_eq!(resolved.max_attempts, Some(7), "HOME read lossily");

        let env = [
            ("HOME", OsString::from("/nowhere")),
            ("AWS_CONFIG_FILE", home.join(".aws/config").into_os_string()),
        ];
        let resolved = RetryConfig::new().resolve_from(&env, &OsFiles).unwrap();
        assert_eq!(
            resolved.max_attempts,
            Some(7),
            "AWS_CONFIG_FILE read lossily"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tempdir("kinds");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");
        let big = dir.join("big");
        std::fs::write(&big, "#".repeat(2 * 1024 * 1024)).unwrap();
        for (path, why) in [
            (fifo.to_str().unwrap(), "not a regular file (it is a FIFO)"),
            ("/dev/zero", "not a regular file (it is a character device)"),
            (
                dir.to_str().unwrap(),
                "not a regular file (it is a directory)",
            ),
            (big.to_str().unwrap(), "larger than the 1048576-byte limit"),
        ] {
            // A FIFO would block forever if opened: refused before opening.
            let err = RetryConfig::new()
                .resolve_from(&[("HOME", "/h"), ("AWS_CONFIG_FILE", path)], &OsFiles)
                .unwrap_err();
            let message = err.to_string();
            assert!(message.contains(path) && message.contains(why), "{message}");
        }
        std::fs::remove_dir_all(dir).ok();
    }

    /// A path that was a regular file when checked and is a FIFO when
    /// opened: `open_regular` is what `OsFiles::read` does after the check.
    #[cfg(unix)]
    #[test]
    fn a_path_swapped_to_a_fifo_is_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("rebound-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("config");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo");

        // Without `O_NONBLOCK` the open waits for a writer forever: run it
        // on a thread, and fail (not hang) if it has not returned in 60 s.
        let (sender, receiver) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || sender.send(open_regular(&path).map(drop)));
        let opened = receiver.recv_timeout(std::time::Duration::from_secs(60));
        let _ = std::fs::remove_dir_all(&dir);

        let err = opened.expect("open returned").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("a FIFO"), "{err}");
    }
}
