//! The compact binary format of an [`Opening`] (specified in `docs/FORMAT.md`).
//!
//! ```text
//! offset  size        field
//!      0     4        magic "B3RO"
//!      4     2        version = 1 (u16 LE)
//!      6     2        reserved = 0
//!      8     4        log_rows (u32 LE)
//!     12     8        lanes (u64 LE)
//!     20     8        q: number of row indices (u64 LE)
//!     28     8        m: number of chunk bytes (u64 LE)
//!     36     8        s: number of sibling chaining values (u64 LE)
//!     44     8·q      row indices (u64 LE each), in the order asked
//!      …     m        opened chunks, increasing chunk order
//!      …     32·s     sibling chaining values, fold order
//! ```

use crate::error::ProofDecodeError;
use crate::opening::Opening;

const MAGIC: [u8; 4] = *b"B3RO";
const VERSION: u16 = 1;
const HEADER_BYTES: usize = 44;

impl Opening {
    /// The opening in the binary format of `docs/FORMAT.md`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_BYTES + 8 * self.rows.len() + self.chunks.len() + 32 * self.siblings.len(),
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.log_rows.to_le_bytes());
        out.extend_from_slice(&self.lanes.to_le_bytes());
        for count in [self.rows.len(), self.chunks.len(), self.siblings.len()] {
            out.extend_from_slice(&(count as u64).to_le_bytes());
        }
        for row in &self.rows {
            out.extend_from_slice(&row.to_le_bytes());
        }
        out.extend_from_slice(&self.chunks);
        for sibling in &self.siblings {
            out.extend_from_slice(sibling);
        }
        out
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output. Checks the structure only; [`verify`]
    /// checks the contents against a commitment.
    ///
    /// # Errors
    /// [`ProofDecodeError`] for bad magic, an unknown version, a non-zero reserved field, a
    /// truncated input or trailing bytes. Never allocates more than the input's size.
    ///
    /// [`verify`]: crate::verify
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofDecodeError> {
        let mut reader = Reader::new(bytes);
        let header = reader.take(HEADER_BYTES as u64)?;
        if header[..4] != MAGIC {
            return Err(ProofDecodeError::BadMagic);
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version != VERSION {
            return Err(ProofDecodeError::UnsupportedVersion(version));
        }
        let reserved = u16::from_le_bytes([header[6], header[7]]);
        if reserved != 0 {
            return Err(ProofDecodeError::Reserved(reserved));
        }
        let u64_at = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
        let log_rows = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        let (lanes, n_rows, n_chunk_bytes, n_siblings) = (u64_at(12), u64_at(20), u64_at(28), u64_at(36));

        let rows = reader.take(n_rows.saturating_mul(8))?;
        let chunks = reader.take(n_chunk_bytes)?;
        let siblings = reader.take(n_siblings.saturating_mul(32))?;
        reader.finish()?;
        Ok(Self {
            log_rows,
            lanes,
            rows: rows
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect(),
            chunks: chunks.to_vec(),
            siblings: siblings
                .chunks_exact(32)
                .map(|b| b.try_into().expect("32 bytes"))
                .collect(),
        })
    }
}

/// A cursor that refuses to read past the end.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Refuses bytes left after the last field.
    pub(crate) fn finish(&self) -> Result<(), ProofDecodeError> {
        match self.bytes.len() - self.at {
            0 => Ok(()),
            left => Err(ProofDecodeError::TrailingBytes(left)),
        }
    }

    pub(crate) fn take(&mut self, n: u64) -> Result<&'a [u8], ProofDecodeError> {
        let available = self.bytes.len() - self.at;
        match usize::try_from(n) {
            Ok(n) if n <= available => {
                let out = &self.bytes[self.at..self.at + n];
                self.at += n;
                Ok(out)
            }
            _ => Err(ProofDecodeError::Truncated {
                offset: self.at,
                needed: n,
                available,
            }),
        }
    }
}
