//! Expanding the config file path as botocore does: `$NAME` / `${NAME}`
//! from the environment, then a leading `~`, on the OS bytes so non-UTF-8
//! paths survive. Kept apart as pure functions with their own tests.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::env::Env;

/// Expands `$NAME` and `${NAME}` (`NAME` of ASCII letters, digits and `_`)
/// from `env`, leaving unknown variables and anything else as written:
/// Python's `os.path.expandvars`, which botocore applies to
/// `AWS_CONFIG_FILE`. Works on the OS bytes, so non-UTF-8 paths and values
/// pass through unchanged (on non-Unix systems only UTF-8 paths expand).
pub(super) fn expand_vars(path: &OsStr, env: &(impl Env + ?Sized)) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
        OsString::from_vec(expand_var_bytes(path.as_bytes(), |name| {
            let name = std::str::from_utf8(name).ok()?;
            env.var_os(name).map(OsString::into_vec)
        }))
    }
    #[cfg(not(unix))]
    {
        match path.to_str() {
            Some(text) => {
                let bytes = expand_var_bytes(text.as_bytes(), |name| {
                    let name = std::str::from_utf8(name).ok()?;
                    env.var(name).map(String::into_bytes)
                });
                OsString::from(String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned()))
            }
            None => path.to_owned(),
        }
    }
}

/// The byte-level core of [`expand_vars`].
fn expand_var_bytes(path: &[u8], lookup: impl Fn(&[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        if path[i] == b'$' {
            let braced = path.get(i + 1) == Some(&b'{');
            let start = i + 1 + usize::from(braced);
            let len = path[start..].iter().take_while(|b| is_name(b)).count();
            let end = start + len;
            let closed = !braced || path.get(end) == Some(&b'}');
            if len > 0 && closed {
                let after = end + usize::from(braced);
                if let Some(value) = lookup(&path[start..end]) {
                    out.extend_from_slice(&value);
                    i = after;
                    continue;
                }
            }
        }
        out.push(path[i]);
        i += 1;
    }
    out
}

/// Replaces a leading `~` (alone, or before a separator) with `home`.
pub(super) fn expand_home(path: &Path, home: Option<&OsStr>) -> PathBuf {
    let Some(home) = home else {
        return path.to_path_buf();
    };
    match path.strip_prefix("~") {
        Ok(rest) => Path::new(home).join(rest),
        Err(_) => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_vars_like_python() {
        let env = [("A", "/x"), ("B_2", "y"), ("EMPTY", "")];
        let expand = |path: &str| expand_vars(OsStr::new(path), &env);
        assert_eq!(expand("$A/c"), "/x/c");
        assert_eq!(expand("${A}/${B_2}"), "/x/y");
        assert_eq!(expand("$A$B_2"), "/xy");
        assert_eq!(expand("$UNKNOWN/c"), "$UNKNOWN/c");
        assert_eq!(expand("${A"), "${A");
        assert_eq!(expand("$"), "$");
        assert_eq!(expand("a$-b"), "a$-b");
        assert_eq!(expand("$EMPTY/c"), "/c");
    }

    #[test]
    fn tilde_expansion() {
        let home = Some(OsStr::new("/h"));
        assert_eq!(expand_home(Path::new("~/c"), home), PathBuf::from("/h/c"));
        assert_eq!(expand_home(Path::new("~"), home), PathBuf::from("/h"));
        assert_eq!(expand_home(Path::new("~x/c"), home), PathBuf::from("~x/c"));
        assert_eq!(
            expand_home(Path::new("/a/~/c"), home),
            PathBuf::from("/a/~/c")
        );
        assert_eq!(expand_home(Path::new("~/c"), None), PathBuf::from("~/c"));
    }
}
