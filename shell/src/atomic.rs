//! An output one process writes, whole or not at all.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use crate::target::{Target, keep_mode};
use crate::temporaries::Listed;

/// Writes the file at `path` through `body`, whole or not at all, by one rule for every output:
///
/// * The data goes to a file with no name in the target's directory (Linux `O_TMPFILE`;
///   elsewhere, or where the file system lacks it, a hidden `.NAME.XXXXXX.tmp`, created with
///   `O_EXCL`, so a planted link is never followed), which is given its name only once
///   everything is written and synced: a failure, a signal (see
///   [`remove_temporaries_on_signals`](crate::remove_temporaries_on_signals)) or, with
///   `O_TMPFILE`, even `SIGKILL` leaves no partial file and the old one untouched.
/// * A new file gets mode 0666 less the umask; a file that is replaced keeps its permission bits
///   (not its owner: it becomes the writer's).
/// * A symbolic link is followed: the file it names is replaced and the link stays. A hard link
///   is not: the path gets a new file, the file's other names keep the old contents.
///
/// # Errors
/// The first I/O error (`body`'s included); the old file, if any, is then untouched.
pub fn write_atomically(path: &Path, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let target = Target::of(path);
    #[cfg(target_os = "linux")]
    if let Some(file) = crate::anonymous::create(&target)? {
        let file = write_through(file, body)?;
        return crate::anonymous::publish(&file, &target);
    }
    write_named_temporary(&target, body)
}

/// Writes everything through a large buffer, then syncs the file to disk.
fn write_through(file: File, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<File> {
    let mut out = io::BufWriter::with_capacity(1 << 20, file);
    body(&mut out)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()?;
    Ok(file)
}

/// The portable scheme: a named hidden temporary, renamed over the target when complete.
fn write_named_temporary(
    target: &Target,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let prefix = format!(".{}.", target.name());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // As a plain create would: 0666 less the umask (tempfile's default is 0600).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // Dropping the temporary file on an error removes it; a signal removes it through the list.
    let tmp = builder.tempfile_in(target.dir())?;
    let _listed = Listed::new(tmp.path().to_owned());
    keep_mode(tmp.as_file(), target.existing_mode)?;
    let (file, tmp_path) = tmp.into_parts();
    let file = write_through(file, body)?;
    drop(file);
    tmp_path.persist(&target.path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ntt-shell-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = scratch("atomic");
        let path = dir.join("out.bin");
        std::fs::write(&path, b"old").unwrap();
        let err = write_atomically(&path, |out| {
            out.write_all(b"new, half")?;
            Err(io::Error::other("the disk filled up"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("the disk filled up"));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "a temporary was left"
        );
        write_atomically(&path, |out| out.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn modes_are_kept_and_links_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("modes");
        let real = dir.join("real.bin");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |out| out.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert_eq!(
            std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
