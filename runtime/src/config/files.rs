//! [`FileSource`]: where the shared config file is read from, so tests can
//! pass a map instead of touching the file system.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::io;
use std::path::{Path, PathBuf};

/// A source of file contents.
///
/// Implemented for [`OsFiles`] (the real file system) and, for tests, for
/// `HashMap<PathBuf, String>`, `BTreeMap<PathBuf, String>` and slices and
/// arrays of `(path, contents)` string pairs (a path that is not there does
/// not exist), and for references to any of them.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use std::path::{Path, PathBuf};
/// use rebound_runtime::config::FileSource;
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

/// The real file system ([`std::fs::read_to_string`]).
///
/// # Examples
///
/// ```
/// use std::path::Path;
/// use rebound_runtime::config::{FileSource, OsFiles};
///
/// assert_eq!(OsFiles.read(Path::new("/surely/not/here/config")).unwrap(), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OsFiles;

impl FileSource for OsFiles {
    fn read(&self, path: &Path) -> io::Result<Option<String>> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Some(text)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err),
        }
    }
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
