//! Where the output goes: `write_output` replaces only regular files
//! (atomically), follows symbolic links, writes through to devices and
//! FIFOs, refuses directories; the CLI's `-o -` is standard output. Each
//! test works in a temporary directory of its own.

use std::path::Path;
use std::process::Command;

use rebound_codegen::{Generator, NotAFile, write_output};

const MODEL: &str = include_str!("../fixtures/models/weather.json");

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .into_string()
                .expect("UTF-8")
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_missing_file_is_created() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.rs");
    write_output(&path, "// new\n").expect("write");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "// new\n");
    assert_eq!(names(dir.path()), ["out.rs"]);
}

#[test]
fn generate_to_file_creates_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("weather.rs");
    let generator = Generator::new().model_json("weather.json", MODEL);
    generator.generate_to_file(&path).expect("generate");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        generator.generate().expect("generate")
    );
    assert_eq!(names(dir.path()), ["weather.rs"]);
}

#[test]
fn a_regular_file_is_replaced_and_no_temporary_file_is_left() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.rs");
    std::fs::write(&path, "// old, and longer than the new contents\n").expect("write");
    let before = std::fs::metadata(&path).expect("metadata");
    write_output(&path, "// new\n").expect("write");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "// new\n");
    assert_eq!(names(dir.path()), ["out.rs"]);
    #[cfg(unix)]
    {
        // A rename puts a new inode in place; writing in place would keep it.
        use std::os::unix::fs::MetadataExt;
        let after = std::fs::metadata(&path).expect("metadata");
        assert_ne!(before.ino(), after.ino(), "replaced by a rename");
    }
    #[cfg(not(unix))]
    let _ = before;
}

#[test]
fn a_directory_is_an_error_and_stays_as_it_was() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("out.rs");
    std::fs::create_dir(&target).expect("mkdir");
    std::fs::write(target.join("inside"), "kept").expect("write");
    let err = write_output(&target, "// new\n").expect_err("a directory");
    assert_eq!(err.kind(), std::io::ErrorKind::IsADirectory, "{err}");
    let refused = err.get_ref().and_then(|e| e.downcast_ref::<NotAFile>());
    assert!(
        matches!(refused, Some(NotAFile { path, what: "directory" }) if *path == target),
        "{err:?}"
    );
    assert!(
        std::fs::symlink_metadata(&target)
            .expect("metadata")
            .is_dir()
    );
    assert_eq!(names(&target), ["inside"]);
    assert_eq!(
        std::fs::read_to_string(target.join("inside")).expect("read"),
        "kept"
    );
    assert_eq!(names(dir.path()), ["out.rs"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_stays_a_link_and_its_target_gets_the_contents() {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = dir.path().join("real.rs");
    let link = dir.path().join("link.rs");
    std::fs::write(&real, "// old\n").expect("write");
    // Relative, as `ln -s real.rs link.rs` makes it: relative to the link.
    std::os::unix::fs::symlink("real.rs", &link).expect("symlink");
    write_output(&link, "// new\n").expect("write");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("metadata")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_link(&link).expect("read link"),
        Path::new("real.rs")
    );
    assert_eq!(std::fs::read_to_string(&real).expect("read"), "// new\n");
    assert_eq!(names(dir.path()), ["link.rs", "real.rs"]);
}

#[cfg(unix)]
#[test]
fn a_chain_of_links_into_another_directory_is_followed_to_the_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::write(sub.join("real.rs"), "// old\n").expect("write");
    std::os::unix::fs::symlink("sub/real.rs", dir.path().join("first.rs")).expect("symlink");
    std::os::unix::fs::symlink(dir.path().join("first.rs"), dir.path().join("second.rs"))
        .expect("symlink");
    Generator::new()
        .model_json("weather.json", MODEL)
        .generate_to_file(dir.path().join("second.rs"))
        .expect("generate");
    let written = std::fs::read_to_string(sub.join("real.rs")).expect("read");
    assert!(written.contains("pub enum Error"), "{written}");
    for link in ["first.rs", "second.rs"] {
        assert!(
            std::fs::symlink_metadata(dir.path().join(link))
                .expect("metadata")
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(names(dir.path()), ["first.rs", "second.rs", "sub"]);
    assert_eq!(names(&sub), ["real.rs"]);
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_creates_its_target() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("link.rs");
    std::os::unix::fs::symlink("real.rs", &link).expect("symlink");
    write_output(&link, "// new\n").expect("write");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("metadata")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("real.rs")).expect("read"),
        "// new\n"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink("b", dir.path().join("a")).expect("symlink");
    std::os::unix::fs::symlink("a", dir.path().join("b")).expect("symlink");
    let err = write_output(&dir.path().join("a"), "// new\n").expect_err("a loop");
    assert!(err.to_string().contains("symbolic links"), "{err}");
    assert_eq!(names(dir.path()), ["a", "b"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_directory_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let link = dir.path().join("link.rs");
    std::os::unix::fs::symlink("sub", &link).expect("symlink");
    let err = write_output(&link, "// new\n").expect_err("a directory");
    assert_eq!(err.kind(), std::io::ErrorKind::IsADirectory, "{err}");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("metadata")
            .file_type()
            .is_symlink()
    );
    assert!(names(&dir.path().join("sub")).is_empty());
}

#[cfg(unix)]
#[test]
fn a_fifo_stays_a_fifo_and_its_reader_gets_the_contents() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    use std::sync::mpsc;

    /// How long FIFO work may take before the test fails instead of hanging.
    const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let contents = "// through the pipe\n".repeat(1000);

    // Opening either end of a FIFO waits for the other, so the reader and the
    // writer each run in a thread and the test waits for them with a timeout.
    let (read_tx, read_rx) = mpsc::channel();
    let reader_path = fifo.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = std::fs::File::open(&reader_path).and_then(|mut f| f.read_to_string(&mut text));
        let _ = read_tx.send(read.map(|_| text));
    });
    let (write_tx, write_rx) = mpsc::channel();
    let writer_path = fifo.clone();
    let written = contents.clone();
    std::thread::spawn(move || {
        let _ = write_tx.send(write_output(&writer_path, &written));
    });

    write_rx
        .recv_timeout(TIMEOUT)
        .expect("the writer finishes")
        .expect("write");
    let read = read_rx
        .recv_timeout(TIMEOUT)
        .expect("the reader finishes")
        .expect("read");
    assert_eq!(read, contents);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("metadata")
            .file_type()
            .is_fifo()
    );
    assert_eq!(names(dir.path()), ["pipe"]);
}

#[cfg(unix)]
#[test]
fn a_socket_is_an_error_and_stays_a_socket() {
    use std::os::unix::fs::FileTypeExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).expect("bind");
    let err = write_output(&path, "// new\n").expect_err("a socket");
    assert_eq!(
        err.to_string(),
        format!("{} is a socket, not a file", path.display())
    );
    let refused = err.get_ref().and_then(|e| e.downcast_ref::<NotAFile>());
    assert!(
        matches!(refused, Some(NotAFile { what: "socket", .. })),
        "{err:?}"
    );
    assert!(
        std::fs::symlink_metadata(&path)
            .expect("metadata")
            .file_type()
            .is_socket()
    );
    assert_eq!(names(dir.path()), ["sock"]);
}

/// `/dev/null` is written through, never replaced (safe to run: nothing
/// but a write to it happens).
#[cfg(unix)]
#[test]
fn dev_null_stays_a_character_device() {
    use std::os::unix::fs::FileTypeExt;

    let dev_null = Path::new("/dev/null");
    let is_char_device = || {
        std::fs::symlink_metadata(dev_null)
            .expect("metadata")
            .file_type()
            .is_char_device()
    };
    assert!(is_char_device());
    write_output(dev_null, "// new\n").expect("write");
    assert!(is_char_device());
    Generator::new()
        .model_json("weather.json", MODEL)
        .generate_to_file(dev_null)
        .expect("generate");
    assert!(is_char_device());
}

#[test]
fn the_cli_writes_dash_to_standard_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("weather.json");
    std::fs::write(&model, MODEL).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .current_dir(dir.path())
        .args(["weather.json", "-o", "-"])
        .env_remove("SMITHY_PLUGIN_DIR")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = Generator::new()
        .model_json("weather.json", MODEL)
        .generate()
        .expect("generate");
    assert_eq!(String::from_utf8(out.stdout).expect("UTF-8"), expected);
    assert_eq!(names(dir.path()), ["weather.json"], "no file named `-`");
}

#[cfg(unix)]
#[test]
fn the_cli_writes_through_to_dev_null() {
    use std::os::unix::fs::FileTypeExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("weather.json");
    std::fs::write(&model, MODEL).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .arg(&model)
        .args(["-o", "/dev/null"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(
        std::fs::symlink_metadata("/dev/null")
            .expect("metadata")
            .file_type()
            .is_char_device()
    );
}

#[test]
fn the_cli_reports_a_directory_target() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("weather.json"), MODEL).expect("write");
    std::fs::create_dir(dir.path().join("out")).expect("mkdir");
    let out = Command::new(env!("CARGO_BIN_EXE_rebound-codegen"))
        .current_dir(dir.path())
        .args(["weather.json", "-o", "out"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("rebound-codegen: weather.json: cannot write out: "),
        "{stderr}"
    );
    assert!(names(&dir.path().join("out")).is_empty());
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_usual_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let mode = |path: &Path| {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    let kept = dir.path().join("kept.rs");
    std::fs::write(&kept, "// old\n").expect("write");
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    write_output(&kept, "// new\n").expect("write");
    assert_eq!(mode(&kept), 0o640);
    // A new file gets what any new file gets here (0o666 less the umask),
    // as one made with `std::fs::write` shows; not a private 0o600.
    let usual = dir.path().join("usual");
    std::fs::write(&usual, "").expect("write");
    let new = dir.path().join("new.rs");
    write_output(&new, "// new\n").expect("write");
    assert_eq!(mode(&new), mode(&usual));
}
