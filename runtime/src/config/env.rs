//! [`Env`]: where environment variables are read from, so tests can pass a
//! map instead of touching the process environment.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::hash::BuildHasher;

/// A source of environment variables: the test seam of
/// [`RetryConfig::resolve_from`](super::RetryConfig::resolve_from).
///
/// **Not part of the API**: reachable only as `rebound_runtime::internals::Env`,
/// hidden from the documentation and exempt from semantic versioning.
///
/// Implemented for the real environment (crate-private, used by
/// [`RetryConfig::resolve`](super::RetryConfig::resolve)), for
/// `HashMap<String, String>` and `BTreeMap<String, String>`, for slices and
/// arrays of `(&str, &str)` pairs, and for references to any of them.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use rebound_runtime::internals::Env;
///
/// let env = HashMap::from([("AWS_PROFILE".to_owned(), "dev".to_owned())]);
/// assert_eq!(env.var("AWS_PROFILE").as_deref(), Some("dev"));
/// assert_eq!(env.var("AWS_RETRY_MODE"), None);
///
/// let pairs = [("AWS_MAX_ATTEMPTS", "5")];
/// assert_eq!(pairs.var("AWS_MAX_ATTEMPTS").as_deref(), Some("5"));
/// ```
pub trait Env {
    /// The value of `name`, or `None` when it is not set.
    ///
    /// A value that is set but empty is `Some("")`: resolution reports it as
    /// an error rather than treating it as unset.
    fn var(&self, name: &str) -> Option<String>;

    /// The value of the variable `name` as the OS holds it, not necessarily
    /// UTF-8: how paths (`AWS_CONFIG_FILE`, `HOME`) are read, so a non-UTF-8
    /// path is used as it is rather than mangled. Defaults to
    /// [`var`](Self::var).
    fn var_os(&self, name: &str) -> Option<OsString> {
        self.var(name).map(OsString::from)
    }
}

/// The environment of the current process ([`std::env::var_os`]).
///
/// A value that is not valid Unicode is passed on with replacement characters
/// (`U+FFFD`), so that it is rejected with a message naming the variable
/// instead of being silently ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct ProcessEnv;

impl Env for ProcessEnv {
    fn var_os(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|value| match value.into_string() {
            Ok(value) => value,
            Err(value) => value.to_string_lossy().into_owned(),
        })
    }
}

impl<S: BuildHasher> Env for HashMap<String, String, S> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl Env for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl Env for [(&str, &str)] {
    fn var(&self, name: &str) -> Option<String> {
        // The last pair wins, as when a variable is exported twice.
        self.iter()
            .rev()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    }
}

impl<const N: usize> Env for [(&str, &str); N] {
    fn var(&self, name: &str) -> Option<String> {
        self.as_slice().var(name)
    }
}

/// `(name, value)` pairs whose values need not be UTF-8 (e.g. a non-UTF-8
/// `HOME`): [`var`](Env::var) sees a non-UTF-8 value as its lossy
/// conversion, [`var_os`](Env::var_os) as it is.
impl Env for [(&str, OsString)] {
    fn var(&self, name: &str) -> Option<String> {
        self.var_os(name)
            .map(|value| value.to_string_lossy().into_owned())
    }

    fn var_os(&self, name: &str) -> Option<OsString> {
        self.iter()
            .rev()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    }
}

impl<const N: usize> Env for [(&str, OsString); N] {
    fn var(&self, name: &str) -> Option<String> {
        self.as_slice().var(name)
    }

    fn var_os(&self, name: &str) -> Option<OsString> {
        self.as_slice().var_os(name)
    }
}

impl<E: Env + ?Sized> Env for &E {
    fn var(&self, name: &str) -> Option<String> {
        (**self).var(name)
    }

    fn var_os(&self, name: &str) -> Option<OsString> {
        (**self).var_os(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_and_pairs_answer_alike() {
        let map: HashMap<String, String> = HashMap::from([("A".into(), "1".into())]);
        let tree: BTreeMap<String, String> = BTreeMap::from([("A".into(), "1".into())]);
        let pairs = [("A", "0"), ("A", "1")];
        let slice: &[(&str, &str)] = &pairs;
        for env in [&map as &dyn Env, &tree, &pairs, &slice] {
            assert_eq!(env.var("A").as_deref(), Some("1"));
            assert_eq!(env.var("B"), None);
        }
    }

    #[test]
    fn process_env_reads_the_real_environment() {
        // Whatever the process has; `PATH` is set on every usual system.
        let path = ProcessEnv.var("PATH");
        assert_eq!(path.is_some(), std::env::var_os("PATH").is_some());
        assert_eq!(
            ProcessEnv.var_os("PATH"),
            std::env::var_os("PATH"),
            "var_os is the OS value"
        );
    }

    #[test]
    fn empty_is_set() {
        assert_eq!([("A", "")].var("A").as_deref(), Some(""));
    }
}
