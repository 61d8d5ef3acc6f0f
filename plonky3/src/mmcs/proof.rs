//! What a [`Blake3Mmcs`](super::Blake3Mmcs) proof carries, and how an `ntt_verify` opening is
//! split into the opened rows (which travel as the opened values) and the rest.
//!
//! An opening of rows needs the whole 1 KiB BLAKE3 chunks that hold them. The rows' own bytes
//! already travel as the opened values, so the proof carries only the other bytes of those
//! chunks (`rest`), and the verifier puts the claimed rows back in their places:
//!
//! ```text
//!  chunk bytes   [ ....... | row 9 | .......... | row 12 | .... ]
//!  rest          [ ....... |         .......... |          .... ]
//! ```

use ntt_pcs::ntt_verify::tree::{CHUNK_BYTES, ChunkSet};
use serde::{Deserialize, Serialize};

/// The proof of one batch opening ([`Mmcs::open_batch`]) or multi-opening
/// ([`Mmcs::open_multi_batch`]) of a [`Blake3Mmcs`](super::Blake3Mmcs) commitment.
///
/// [`Mmcs::open_batch`]: p3_commit::Mmcs::open_batch
/// [`Mmcs::open_multi_batch`]: p3_commit::Mmcs::open_multi_batch
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blake3Proof {
    /// Each matrix's root, in commit order, when the batch holds more than one matrix (the
    /// commitment is their hash); empty for a single matrix, whose root is the commitment.
    pub roots: Vec<[u8; 32]>,
    /// One opening per matrix, in commit order; none when no index was opened.
    pub openings: Vec<MatrixOpening>,
}

/// The opened rows of one matrix, less the rows themselves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixOpening {
    /// The bytes of the chunks holding the opened rows, in chunk order, with the opened rows'
    /// own bytes left out.
    pub rest: Vec<u8>,
    /// The sibling chaining values from those chunks up to the root, in `ntt_verify`'s fold
    /// order (level by level from the chunks up, left to right).
    pub siblings: Vec<[u8; 32]>,
}

/// Where each of `rows` (distinct, increasing, each `row_bytes` long) starts within the bytes
/// of `chunks`, the chunks that hold them.
fn row_offsets<'a>(
    chunks: &'a ChunkSet,
    row_bytes: u64,
    rows: impl IntoIterator<Item = u64> + 'a,
) -> impl Iterator<Item = usize> + 'a {
    rows.into_iter().map(move |row| {
        let start = row * row_bytes;
        let position = chunks
            .position(start / CHUNK_BYTES)
            .expect("an opened row's first chunk is opened");
        (position * CHUNK_BYTES + start % CHUNK_BYTES) as usize
    })
}

/// The bytes of `chunk_bytes` (the bytes of `chunks`) outside `rows` (distinct, increasing).
pub(crate) fn leave_out_rows(chunk_bytes: &[u8], chunks: &ChunkSet, row_bytes: u64, rows: &[u64]) -> Vec<u8> {
    let len = row_bytes as usize;
    let mut rest = Vec::with_capacity(chunk_bytes.len() - rows.len() * len);
    let mut at = 0;
    for offset in row_offsets(chunks, row_bytes, rows.iter().copied()) {
        rest.extend_from_slice(&chunk_bytes[at..offset]);
        at = offset + len;
    }
    rest.extend_from_slice(&chunk_bytes[at..]);
    rest
}

/// The `total` bytes of `chunks` rebuilt from `rest` and `rows` (distinct, increasing row
/// indices with their bytes, each `row_bytes` long); `None` when `rest` has the wrong length.
pub(crate) fn put_back_rows(
    rest: &[u8],
    total: u64,
    chunks: &ChunkSet,
    row_bytes: u64,
    rows: &[(u64, &[u8])],
) -> Option<Vec<u8>> {
    let covered = rows.len() as u64 * row_bytes;
    if total.checked_sub(covered)? != rest.len() as u64 {
        return None;
    }
    let mut out = Vec::with_capacity(total as usize);
    let mut taken = 0;
    for (offset, (_, bytes)) in row_offsets(chunks, row_bytes, rows.iter().map(|&(r, _)| r)).zip(rows) {
        let gap = offset - out.len();
        out.extend_from_slice(&rest[taken..taken + gap]);
        taken += gap;
        out.extend_from_slice(bytes);
    }
    out.extend_from_slice(&rest[taken..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::ntt_verify::tree::TreeShape;

    #[test]
    fn rows_left_out_come_back() {
        // 64 rows of 40 bytes: rows straddle chunk boundaries, and rows 25 and 26 share a chunk.
        let row_bytes = 40;
        let all: Vec<u8> = (0..64 * row_bytes as u32).map(|k| (k * 31 + 7) as u8).collect();
        let shape = TreeShape::new(all.len() as u64).unwrap();
        let rows = [3u64, 25, 26, 63];
        let chunks = ChunkSet::of_rows(row_bytes, rows).unwrap();
        let chunk_bytes: Vec<u8> = chunks
            .iter()
            .flat_map(|c| {
                let (start, end) = shape.node_bytes(0, c).unwrap();
                all[start as usize..end as usize].to_vec()
            })
            .collect();
        let rest = leave_out_rows(&chunk_bytes, &chunks, row_bytes, &rows);
        assert_eq!(rest.len(), chunk_bytes.len() - 4 * row_bytes as usize);
        let claimed: Vec<(u64, &[u8])> = rows
            .iter()
            .map(|&r| (r, &all[(r * row_bytes) as usize..((r + 1) * row_bytes) as usize]))
            .collect();
        let total = chunks.byte_len(&shape).unwrap();
        assert_eq!(
            put_back_rows(&rest, total, &chunks, row_bytes, &claimed),
            Some(chunk_bytes)
        );
        assert_eq!(
            put_back_rows(&rest[1..], total, &chunks, row_bytes, &claimed),
            None
        );
        assert_eq!(put_back_rows(&[], 8, &chunks, row_bytes, &claimed), None);
    }
}
