//! Reading a small description file (a topology export, wisdom) from a path a user names:
//! only a regular file, and only up to a bound, so that a FIFO cannot block the read forever
//! and a device such as `/dev/zero` cannot fill memory.

use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// Reads the regular file at `path` as text, refusing anything else and anything larger than
/// `max_bytes`.
///
/// # Errors
/// The open's or read's own error; [`ErrorKind::InvalidInput`] when `path` is not a regular
/// file (a FIFO, a device, a directory); [`ErrorKind::InvalidData`] when it holds more than
/// `max_bytes` bytes or is not UTF-8.
pub fn read_regular_file(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    let not_regular = || Error::new(ErrorKind::InvalidInput, "it is not a regular file");
    // Checked before opening, as opening a FIFO for reading waits for a writer; the open does
    // not wait either (O_NONBLOCK), should the path change in between.
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let too_large = |bytes: &dyn std::fmt::Display| {
        Error::new(
            ErrorKind::InvalidData,
            format!("it is {bytes} bytes, more than the {max_bytes} such a file can be"),
        )
    };
    if meta.len() > max_bytes {
        return Err(too_large(&meta.len()));
    }
    // A file that grows while it is read is cut at the bound plus one byte, and refused.
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(&format!("more than {max_bytes}")));
    }
    String::from_utf8(bytes).map_err(|e| Error::new(ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_small_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("ntt-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch");
        let small = dir.join("small.txt");
        std::fs::write(&small, "hello").expect("write");
        assert_eq!(read_regular_file(&small, 5).expect("fits"), "hello");
        let err = read_regular_file(&small, 4).expect_err("too large");
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        assert!(err.to_string().contains("more than the 4"), "{err}");
        for special in [dir.as_path(), Path::new("/dev/zero")] {
            let err = read_regular_file(special, 1 << 20).expect_err("not regular");
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{}", special.display());
        }
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().expect("UTF-8")).expect("no NUL");
            // SAFETY: `c` is a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let err = read_regular_file(&fifo, 1 << 20).expect_err("a FIFO");
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
        }
        assert_eq!(
            read_regular_file(&dir.join("missing"), 1)
                .expect_err("missing")
                .kind(),
            ErrorKind::NotFound
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
