//! Files with no name until they are complete (Linux `O_TMPFILE`), linked in with `linkat`.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::target::{Target, keep_mode};
use crate::temporaries::Listed;

/// A file with no name in the target's directory, with the mode the rule gives it; `None` where
/// the kernel or the file system has no `O_TMPFILE`, or `/proc` (through which it is linked) is
/// missing.
pub(crate) fn create(target: &Target) -> io::Result<Option<File>> {
    if !Path::new("/proc/self/fd").is_dir() {
        return Ok(None);
    }
    let dir = CString::new(target.dir().as_os_str().as_bytes()).map_err(io::Error::other)?;
    let flags = libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC;
    // SAFETY: `dir` is a NUL-terminated path that outlives the call; the flags and the mode
    // (0666, less the umask, as a plain create) are plain integers.
    let fd = unsafe { libc::open(dir.as_ptr(), flags, 0o666 as libc::c_uint) };
    if fd < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            // No O_TMPFILE here: older kernels read the flag as O_DIRECTORY (EISDIR), file
            // systems without it say EOPNOTSUPP.
            Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL) => Ok(None),
            _ => Err(err),
        };
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let file = unsafe { File::from_raw_fd(fd) };
    keep_mode(&file, target.existing_mode)?;
    Ok(Some(file))
}

/// Gives the complete `file` the target's name: directly when there is no file there yet, else
/// under a hidden temporary name renamed over it (the only moment a name other than the target
/// exists, and a signal then removes it).
pub(crate) fn publish(file: &File, target: &Target) -> io::Result<()> {
    if target.existing_mode.is_none() {
        match link(file, &target.path) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {} // created meanwhile
            done => return done,
        }
    }
    let name = target.name();
    loop {
        let tmp = target
            .dir()
            .join(format!(".{name}.{:06x}.tmp", rand::random::<u32>() & 0xff_ffff));
        let listed = Listed::new(tmp.clone());
        match link(file, &tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
        let renamed = std::fs::rename(&tmp, &target.path);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        drop(listed);
        return renamed;
    }
}

fn link(file: &File, to: &Path) -> io::Result<()> {
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(io::Error::other)?;
    let to = CString::new(to.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both are NUL-terminated paths that outlive the call. AT_SYMLINK_FOLLOW links the
    // file the /proc entry names, which needs no privilege (AT_EMPTY_PATH would).
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
