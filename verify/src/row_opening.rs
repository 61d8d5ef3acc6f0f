//! Openings of a row tree: the opened rows and the sibling digests that lead to the cap.
//!
//! The verifier hashes each distinct opened row into its leaf and folds the leaves up, level by
//! level, to the cap's level; whenever a node is known but its sibling is not, the opening
//! supplies the sibling's digest. Siblings come in that fold order (level by level from the
//! leaves up, left to right within a level), so a sibling shared by several rows is sent once
//! and a node two opened rows both reach is never sent: the opening is never larger than
//! Plonky3's `MerkleTreeMmcs` paths for the same rows.
//!
//! Binary format (`docs/FORMAT.md`):
//!
//! ```text
//! offset  size        field
//!      0     4        magic "RTRO"
//!      4     2        version = 1 (u16 LE)
//!      6     1        hash: 0 = BLAKE3, 1 = Keccak-256
//!      7     1        cap height
//!      8     4        log_rows (u32 LE)
//!     12     8        lanes (u64 LE)
//!     20     8        q: number of row indices (u64 LE)
//!     28     8        m: number of row bytes (u64 LE)
//!     36     8        s: number of sibling digests (u64 LE)
//!     44     8·q      row indices (u64 LE each), in the order asked
//!      …     m        the distinct opened rows in increasing order, words u64 LE
//!      …     32·s     sibling digests, fold order
//! ```

use serde::{Deserialize, Serialize};

use crate::error::ProofDecodeError;
use crate::header::OpeningHeader;
use crate::hex_serde;
use crate::row_hash::{Digest, node_digest};
use crate::scheme::{HashKind, Scheme};
use crate::shape::MAX_LOG_ROWS;

const MAGIC: [u8; 4] = *b"RTRO";
const VERSION: u16 = 1;
const HEADER_BYTES: usize = 44;

/// A proof that some rows belong to a codeword committed with a row tree. Serializes with serde
/// (bytes as hex) and in the compact binary format of `docs/FORMAT.md`
/// ([`RowOpening::to_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowOpening {
    pub(crate) hash: HashKind,
    pub(crate) cap_height: u32,
    pub(crate) log_rows: u32,
    pub(crate) lanes: u64,
    /// The row indices the opening was made for, in the order asked.
    pub(crate) rows: Vec<u64>,
    /// The distinct opened rows in increasing order, concatenated.
    pub(crate) values: Vec<u64>,
    /// Sibling digests in fold order.
    #[serde(with = "hex_serde::digests")]
    pub(crate) siblings: Vec<Digest>,
}

impl RowOpening {
    /// An opening from its parts, as a prover makes it: the scheme (a row tree) and shape of the
    /// codeword, the rows asked, the distinct rows' words in increasing row order and the sibling
    /// digests in fold order. Nothing is checked here; [`verify`](crate::verify) checks
    /// everything.
    pub fn new(
        scheme: Scheme,
        log_rows: u32,
        lanes: u64,
        rows: Vec<u64>,
        values: Vec<u64>,
        siblings: Vec<Digest>,
    ) -> Self {
        debug_assert!(Scheme::rows(scheme.hash(), scheme.cap_height()).is_ok_and(|rows| rows == scheme));
        Self {
            hash: scheme.hash(),
            cap_height: scheme.cap_height(),
            log_rows,
            lanes,
            rows,
            values,
            siblings,
        }
    }

    /// The hash the opening was made with.
    pub fn hash(&self) -> HashKind {
        self.hash
    }

    /// The cap height of the tree the opening was made for.
    pub fn cap_height(&self) -> u32 {
        self.cap_height
    }

    /// Base-2 log of the number of rows of the codeword the opening was made for.
    pub fn log_rows(&self) -> u32 {
        self.log_rows
    }

    /// Words per row of the codeword the opening was made for.
    pub fn lanes(&self) -> u64 {
        self.lanes
    }

    /// The row indices the opening was made for, in the order asked.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// The distinct opened rows' words, in increasing row order.
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The sibling digests.
    pub fn siblings(&self) -> &[Digest] {
        &self.siblings
    }

    /// What the opening says about itself: a row tree with its hash and cap height, the
    /// codeword's shape and the rows asked.
    pub(crate) fn header(&self) -> OpeningHeader<'_> {
        OpeningHeader::rows(self.hash, self.cap_height, self.log_rows, self.lanes, &self.rows)
    }

    /// The opening in the binary format of `docs/FORMAT.md`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_BYTES + 8 * self.rows.len() + 8 * self.values.len() + 32 * self.siblings.len(),
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(match self.hash {
            HashKind::Blake3 => 0,
            HashKind::Keccak => 1,
            HashKind::Sha256 => 2,
        });
        // A cap height above 255 cannot be a valid scheme; saturate so it is refused on reading.
        out.push(u8::try_from(self.cap_height).unwrap_or(u8::MAX));
        out.extend_from_slice(&self.log_rows.to_le_bytes());
        out.extend_from_slice(&self.lanes.to_le_bytes());
        for count in [self.rows.len(), 8 * self.values.len(), self.siblings.len()] {
            out.extend_from_slice(&(count as u64).to_le_bytes());
        }
        for row in &self.rows {
            out.extend_from_slice(&row.to_le_bytes());
        }
        for word in &self.values {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for sibling in &self.siblings {
            out.extend_from_slice(sibling);
        }
        out
    }

    /// Whether `bytes` start like a row-tree opening (its magic).
    pub fn is_row_opening(bytes: &[u8]) -> bool {
        bytes.starts_with(&MAGIC)
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output. Checks the structure only;
    /// [`verify`](crate::verify) checks the contents against a commitment.
    ///
    /// # Errors
    /// [`ProofDecodeError`] for bad magic, an unknown version or hash, row bytes that are not
    /// whole words, a truncated input or trailing bytes. Never allocates more than the input's
    /// size.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofDecodeError> {
        let mut reader = crate::codec::Reader::new(bytes);
        let header = reader.take(HEADER_BYTES as u64)?;
        if header[..4] != MAGIC {
            return Err(ProofDecodeError::BadMagic);
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version != VERSION {
            return Err(ProofDecodeError::UnsupportedVersion(version));
        }
        let hash = match header[6] {
            0 => HashKind::Blake3,
            1 => HashKind::Keccak,
            2 => HashKind::Sha256,
            other => return Err(ProofDecodeError::UnknownHash(other)),
        };
        let cap_height = u32::from(header[7]);
        let u64_at = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
        let log_rows = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        let (lanes, n_rows, n_value_bytes, n_siblings) = (u64_at(12), u64_at(20), u64_at(28), u64_at(36));
        if n_value_bytes % 8 != 0 {
            return Err(ProofDecodeError::PartialWord(n_value_bytes));
        }
        let rows = reader.take(n_rows.saturating_mul(8))?;
        let values = reader.take(n_value_bytes)?;
        let siblings = reader.take(n_siblings.saturating_mul(32))?;
        reader.finish()?;
        let words = |b: &[u8]| -> Vec<u64> {
            b.chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                .collect()
        };
        Ok(Self {
            hash,
            cap_height,
            log_rows,
            lanes,
            rows: words(rows),
            values: words(values),
            siblings: siblings
                .chunks_exact(32)
                .map(|b| b.try_into().expect("32 bytes"))
                .collect(),
        })
    }
}

/// Folds the leaves `nodes` (sorted by index, distinct) of a tree with `levels` levels below
/// the cap up to the cap's level, and returns the nodes reached there (sorted, distinct).
/// `sibling(h, i)` supplies each missing sibling at level `h` (0: the leaves), in proof order.
///
/// Returns `Ok(None)` when the arguments describe no such fold: more levels than a codeword can
/// have, nodes not in strictly increasing order, or a node past the last row a codeword can
/// have (both bounds [`MAX_LOG_ROWS`]); so no arguments make it walk more than
/// [`MAX_LOG_ROWS`] levels.
///
/// # Errors
/// The first error `sibling` returns.
pub fn fold_to_cap<E>(
    hash: HashKind,
    levels: u32,
    mut nodes: Vec<(u64, Digest)>,
    mut sibling: impl FnMut(u32, u64) -> Result<Digest, E>,
) -> Result<Option<Vec<(u64, Digest)>>, E> {
    let increasing = nodes.windows(2).all(|pair| pair[0].0 < pair[1].0);
    let in_tree = levels <= MAX_LOG_ROWS && nodes.last().is_none_or(|&(last, _)| last >> MAX_LOG_ROWS == 0);
    if !increasing || !in_tree {
        return Ok(None);
    }
    for h in 0..levels {
        let mut parents = Vec::with_capacity(nodes.len().div_ceil(2));
        let mut k = 0;
        while k < nodes.len() {
            let (i, digest) = nodes[k];
            k += 1;
            let (left, right) = if i % 2 == 1 {
                (sibling(h, i - 1)?, digest)
            } else if k < nodes.len() && nodes[k].0 == i + 1 {
                k += 1;
                (digest, nodes[k - 1].1)
            } else {
                (digest, sibling(h, i + 1)?)
            };
            parents.push((i / 2, node_digest(hash, &left, &right)));
        }
        nodes = parents;
    }
    Ok(Some(nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hash_round_trips_its_byte_and_others_are_refused() {
        for hash in [HashKind::Blake3, HashKind::Keccak, HashKind::Sha256] {
            let scheme = Scheme::rows(hash, 1).expect("scheme");
            let opening = RowOpening::new(scheme, 2, 1, vec![3], vec![9], vec![[5; 32]]);
            let bytes = opening.to_bytes();
            assert_eq!(RowOpening::from_bytes(&bytes).expect("decodes"), opening);
        }
        let scheme = Scheme::rows(HashKind::Sha256, 0).expect("scheme");
        let mut bytes = RowOpening::new(scheme, 0, 1, vec![0], vec![1], vec![]).to_bytes();
        assert_eq!(bytes[6], 2, "SHA-256 is hash byte 2");
        bytes[6] = 3;
        assert!(matches!(
            RowOpening::from_bytes(&bytes),
            Err(ProofDecodeError::UnknownHash(3))
        ));
    }
}
