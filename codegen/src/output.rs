//! Writing the generated file to the path a user names, which may be a
//! regular file, a link, a device, a FIFO, or something to refuse.
//!
//! The type of the target is taken from the file that is opened, never from
//! an earlier look at the path: a path swapped between a check and the write
//! (a link or a FIFO put there) cannot redirect the write. The target is
//! opened once, without following a final symbolic link, and its type read
//! from the open handle (`fstat`); a device or FIFO is written through that
//! handle, and a regular file is replaced by a rename, which acts on the
//! directory entry and never writes through what it replaces.

use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A target [`write_output`] refuses to write: a directory or a socket. It
/// is the inner error of the [`io::Error`] returned (of kind
/// [`IsADirectory`](io::ErrorKind::IsADirectory) for a directory,
/// [`InvalidInput`](io::ErrorKind::InvalidInput) for a socket), reached with
/// [`io::Error::get_ref`] and `downcast_ref`.
#[derive(Debug, thiserror::Error)]
#[error("{} is a {what}, not a file", path.display())]
pub struct NotAFile {
    /// The path that names it (a link's final target).
    pub path: PathBuf,
    /// What it is: `"directory"` or `"socket"`.
    pub what: &'static str,
}

impl NotAFile {
    fn error(path: &Path, what: &'static str) -> io::Error {
        let kind = if what == "directory" {
            io::ErrorKind::IsADirectory
        } else {
            io::ErrorKind::InvalidInput
        };
        let path = path.to_owned();
        io::Error::new(kind, Self { path, what })
    }
}

/// Writes `contents` to the output `path`: atomically when it is a regular
/// file (or does not exist yet), straight through when it is a device or a
/// FIFO, and never by replacing anything but a regular file.
///
/// - A symbolic link is followed, link by link, to its final target, and
///   that target is written: the link stays a link and points at the new
///   contents, as with the shell's `> link`. A dangling link creates the
///   file it names.
/// - A regular file, or no file: `contents` go to a temporary file in the
///   target's directory, renamed over the target once complete. Readers
///   never see a partial file, and a failed write leaves no file behind.
/// - A character or block device or a FIFO (`/dev/null`, `/dev/stdout`, a
///   named pipe): opened for writing, without creating or truncating it, and
///   written to. Opening a FIFO waits for a reader, as `> fifo` does.
/// - A directory or a socket: an error ([`NotAFile`]); nothing is written.
///
/// Each path is opened once, without following a final link: a link is
/// followed only when the path is a link when opened, and what is written
/// through is the file opened, whatever the path names afterwards.
///
/// `path` is a path only: `-` is a file named `-` (the CLI reads `-o -` as
/// standard output before calling this).
///
/// Where there are no Unix file types, anything that exists and is neither
/// a regular file nor a directory is written through, and links are
/// followed by the system.
///
/// # Errors
///
/// The target is a directory or a socket, a link chain is too long (a
/// loop), the directory is not writable, the disk is full, the rename or
/// the write fails.
pub fn write_output(path: &Path, contents: &str) -> io::Result<()> {
    write_output_with(path, |out| out.write_all(contents.as_bytes()))
}

/// [`write_output`], the contents written by `write` (when it fails, a
/// regular file is left as it was; a device or FIFO may have had part of
/// them).
pub(crate) fn write_output_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_output_hooked(path, write, &mut |_| {})
}

/// The most links [`write_output`] follows, Linux's limit for one path.
const MAX_LINKS: usize = 40;

/// What opening one path found.
#[derive(Debug)]
enum Opened {
    /// Nothing there: the file is created.
    Missing,
    /// A symbolic link: its target is opened next.
    Link,
    /// A regular file, with its permissions (kept by the replacement).
    Regular(Permissions),
    /// A device or FIFO, open for writing.
    WriteThrough(File),
}

/// [`write_output_with`], calling `between` with the final target's path
/// after it is opened and its type read, before anything is written (tests
/// change the path there, as another process could).
fn write_output_hooked(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    between: &mut dyn FnMut(&Path),
) -> io::Result<()> {
    let mut target = path.to_owned();
    for _ in 0..=MAX_LINKS {
        match open(&target)? {
            Opened::Link => target = follow(&target)?,
            Opened::Missing => {
                between(&target);
                return write_atomically(&target, None, write);
            }
            Opened::Regular(permissions) => {
                between(&target);
                return write_atomically(&target, Some(permissions), write);
            }
            Opened::WriteThrough(mut file) => {
                between(&target);
                return write(&mut file);
            }
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "more than {MAX_LINKS} symbolic links from {} (a loop?)",
            path.display()
        ),
    ))
}

/// Opens `path` for writing, without creating or truncating it and without
/// following it if it is a link, and sorts it by the opened file's type.
fn open(path: &Path) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NOFOLLOW: a link is an error (ELOOP) rather than followed.
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) => return unopened(path, e),
    };
    let metadata = file.metadata()?;
    if metadata.is_file() {
        Ok(Opened::Regular(metadata.permissions()))
    } else if metadata.is_dir() {
        // Systems that open a directory for writing; Linux refuses (EISDIR).
        Err(NotAFile::error(path, "directory"))
    } else if is_socket(&metadata) {
        Err(NotAFile::error(path, "socket"))
    } else {
        Ok(Opened::WriteThrough(file))
    }
}

/// What a failed [`open`] of `path` means. Nothing found is a file to
/// create; a link (O_NOFOLLOW's error) is to follow; a directory or socket is
/// refused. A file that cannot be opened for writing (read-only, or a
/// running program) is still replaced when it is a regular file, as a
/// rename needs only the directory's permission; the look at the path for
/// it cannot redirect a write, since a rename writes through nothing.
fn unopened(path: &Path, e: io::Error) -> io::Result<Opened> {
    match e.kind() {
        io::ErrorKind::NotFound => return Ok(Opened::Missing),
        io::ErrorKind::IsADirectory => return Err(NotAFile::error(path, "directory")),
        _ => {}
    }
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        match Errno::from_io_error(&e) {
            // ELOOP, and EMLINK on FreeBSD: the final component is a link.
            Some(Errno::LOOP | Errno::MLINK) => return Ok(Opened::Link),
            // ENXIO: a socket (or a device without its driver).
            Some(Errno::NXIO) if std::fs::symlink_metadata(path).is_ok_and(|m| is_socket(&m)) => {
                return Err(NotAFile::error(path, "socket"));
            }
            _ => {}
        }
    }
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(Opened::Regular(metadata.permissions())),
        Ok(metadata) if metadata.is_dir() => Err(NotAFile::error(path, "directory")),
        _ => Err(e),
    }
}

/// The path the link `path` points at; a relative link is relative to the
/// link's directory. A path that is no longer a link (changed since it was
/// opened) is opened again as it is.
fn follow(path: &Path) -> io::Result<PathBuf> {
    let link = match std::fs::read_link(path) {
        Ok(link) => link,
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Ok(path.to_owned()),
        Err(e) => return Err(e),
    };
    Ok(match path.parent() {
        Some(dir) => dir.join(link),
        None => link,
    })
}

#[cfg(unix)]
fn is_socket(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    metadata.file_type().is_socket()
}

#[cfg(not(unix))]
fn is_socket(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// Writes to `path` through a temporary file in the same directory (`write`
/// fills it), renamed over `path` once complete; the new file gets
/// `permissions` (the replaced file's), else the mode any new file gets.
fn write_atomically(
    path: &Path,
    permissions: Option<Permissions>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    // A new file gets the mode any new file gets (0o666 less the umask), a
    // replaced one keeps its own; not `tempfile`'s private 0o600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder.tempfile_in(dir)?;
    if let Some(permissions) = permissions {
        file.as_file().set_permissions(permissions)?;
    }
    write(&mut file)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    //! The path changes between the open and the write, as another process
    //! could change it: the write follows the file opened, never the change.

    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    use std::path::Path;
    use std::process::Command;

    use super::write_output_hooked;

    fn mkfifo(path: &Path) {
        let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
        assert!(status.success());
    }

    fn write(path: &Path, contents: &str, between: &mut dyn FnMut(&Path)) {
        write_output_hooked(path, |out| out.write_all(contents.as_bytes()), between)
            .expect("written");
    }

    #[test]
    fn a_file_swapped_for_a_link_is_replaced_and_the_link_target_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out.rs");
        let victim = dir.path().join("victim");
        std::fs::write(&out, "// old\n").expect("write");
        std::fs::write(&victim, "kept").expect("write");
        write(&out, "// new\n", &mut |path| {
            std::fs::remove_file(path).expect("remove");
            std::os::unix::fs::symlink(&victim, path).expect("symlink");
        });
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "kept");
        let metadata = std::fs::symlink_metadata(&out).expect("metadata");
        assert!(metadata.is_file(), "the link was replaced, not followed");
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "// new\n");
    }

    #[test]
    fn a_file_swapped_for_a_fifo_is_replaced_not_opened() {
        // Opening the FIFO would wait for a reader, and there is none: the
        // test finishes only if the FIFO is replaced.
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out.rs");
        std::fs::write(&out, "// old\n").expect("write");
        write(&out, "// new\n", &mut |path| {
            std::fs::remove_file(path).expect("remove");
            mkfifo(path);
        });
        assert!(std::fs::symlink_metadata(&out).expect("metadata").is_file());
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "// new\n");
    }

    #[test]
    fn a_fifo_swapped_for_a_link_is_still_written_through() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("pipe");
        let moved = dir.path().join("moved-pipe");
        let victim = dir.path().join("victim");
        mkfifo(&fifo);
        std::fs::write(&victim, "kept").expect("write");
        // The reader opens the FIFO first (the writer's open waits for it)
        // and reads until the writer closes it.
        let reader_path = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&reader_path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .map(|_| text)
        });
        write(&fifo, "// through the pipe\n", &mut |path| {
            std::fs::rename(path, &moved).expect("rename");
            std::os::unix::fs::symlink(&victim, path).expect("symlink");
        });
        let read = reader.join().expect("the reader").expect("read");
        assert_eq!(read, "// through the pipe\n");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "kept");
        let moved = std::fs::symlink_metadata(&moved).expect("metadata");
        assert!(moved.file_type().is_fifo());
    }

    #[test]
    fn a_link_swapped_for_a_fifo_after_it_is_followed_opens_nothing_new() {
        // `out.rs` links to `real.rs`; once `real.rs` is opened, `out.rs`
        // becomes a FIFO: the write goes to `real.rs`, the FIFO is untouched.
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out.rs");
        let real = dir.path().join("real.rs");
        std::fs::write(&real, "// old\n").expect("write");
        std::os::unix::fs::symlink("real.rs", &out).expect("symlink");
        let link = out.clone();
        write(&out, "// new\n", &mut |path| {
            assert_eq!(path, real.as_path());
            std::fs::remove_file(&link).expect("remove");
            mkfifo(&link);
        });
        assert_eq!(std::fs::read_to_string(&real).expect("read"), "// new\n");
        let out = std::fs::symlink_metadata(&out).expect("metadata");
        assert!(out.file_type().is_fifo());
    }
}
