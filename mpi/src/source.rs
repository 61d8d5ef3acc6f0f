//! Where a rank reads the message from: memory, or its own view of the witness file.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
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
    /// Opens `path` and checks that it is whole words.
    ///
    /// # Errors
    /// The file cannot be opened or stat'ed ([`io::ErrorKind::NotFound`] and friends), or its
    /// length is not a multiple of 8 ([`io::ErrorKind::InvalidData`]).
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a regular file (every rank reads it at offsets)",
                    path.display()
                ),
            ));
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
