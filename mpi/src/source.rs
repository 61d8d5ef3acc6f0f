//! Where a rank reads the message from: memory, or its own view of the witness file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Little-endian `u64` words a rank can read at any offset: the whole message lives here, and a
/// rank reads only the words its share needs.
pub trait MessageSource {
    /// Words in the message.
    fn words(&self) -> u64;

    /// Reads `out.len()` words starting at word `offset`.
    ///
    /// # Errors
    /// An I/O error, or a range past the end.
    fn read_words(&self, offset: u64, out: &mut [u64]) -> io::Result<()>;
}

impl MessageSource for [u64] {
    fn words(&self) -> u64 {
        self.len() as u64
    }

    fn read_words(&self, offset: u64, out: &mut [u64]) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| past_end())?;
        let src = start
            .checked_add(out.len())
            .and_then(|end| self.get(start..end))
            .ok_or_else(past_end)?;
        out.copy_from_slice(src);
        Ok(())
    }
}

fn past_end() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end of the message")
}

/// A witness file of raw little-endian `u64` words, read at offsets (each rank opens its own).
#[derive(Debug)]
pub struct WitnessFile {
    file: File,
    path: PathBuf,
    words: u64,
    bytes_read: AtomicU64,
}

impl WitnessFile {
    /// Opens `path` and checks that it is a regular file of whole words.
    ///
    /// # Errors
    /// The file cannot be opened or stat'ed ([`io::ErrorKind::NotFound`] and friends); it is not
    /// a regular file ([`io::ErrorKind::InvalidInput`]: a FIFO, a device, a directory); or its
    /// length is not a multiple of 8 ([`io::ErrorKind::InvalidData`]).
    pub fn open(path: &Path) -> io::Result<Self> {
        let not_regular = || {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a regular file (every rank reads it at offsets)",
                    path.display()
                ),
            )
        };
        // Checked before opening, as opening a FIFO for reading waits for a writer; the open
        // does not wait either (O_NONBLOCK), should the path change in between.
        if !std::fs::metadata(path)?.is_file() {
            return Err(not_regular());
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let len = meta.len();
        if !len.is_multiple_of(8) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} is {len} bytes long, not a whole number of 8-byte little-endian words",
                    path.display()
                ),
            ));
        }
        Ok(Self {
            file,
            path: path.to_owned(),
            words: len / 8,
            bytes_read: AtomicU64::new(0),
        })
    }

    /// The path it was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes read from it so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }
}

impl MessageSource for WitnessFile {
    fn words(&self) -> u64 {
        self.words
    }

    fn read_words(&self, offset: u64, out: &mut [u64]) -> io::Result<()> {
        if offset
            .checked_add(out.len() as u64)
            .is_none_or(|end| end > self.words)
        {
            return Err(past_end());
        }
        // SAFETY: `u64` has no padding and every byte pattern is a valid `u64`, so the words may
        // be filled through a byte view of exactly their memory, borrowed for this call only.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), size_of_val(out)) };
        self.file.read_exact_at(bytes, offset * 8)?;
        self.bytes_read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if cfg!(target_endian = "big") {
            out.iter_mut().for_each(|w| *w = u64::from_le(*w));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_of_whole_words_is_a_witness() {
        let dir = std::env::temp_dir().join(format!("ntt-mpi-source-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        let words = dir.join("w.bin");
        std::fs::write(&words, [1u8; 24]).expect("write");
        assert_eq!(WitnessFile::open(&words).expect("3 words").words(), 3);
        std::fs::write(&words, [1u8; 13]).expect("write");
        let err = WitnessFile::open(&words).expect_err("13 bytes");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        // A FIFO with no writer: refused at once, where opening it would wait for a writer.
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().expect("UTF-8")).expect("no NUL");
        // SAFETY: `c` is a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for special in [fifo.as_path(), Path::new("/dev/zero"), dir.as_path()] {
            let err = WitnessFile::open(special).expect_err("not a regular file");
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{}", special.display());
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
