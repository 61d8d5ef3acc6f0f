//! Checking an opening against a commitment.

use crate::commitment::Commitment;
use crate::error::VerifyError;
use crate::node::subtree_cv;
use crate::opening::{ChunkSet, Opening, fold_root};
use crate::scheme::Scheme;
use crate::tree::{CHUNK_BYTES, TreeShape};

/// Checks that `opening` proves `rows` (in this order, repeats allowed) of the codeword committed
/// to by `commitment`, and returns those rows, each as `lanes` words, in the order asked.
///
/// # Errors
/// A [`VerifyError`] saying what does not hold: no rows, a row out of range, an opening made
/// for another shape or other rows, the wrong amount of proof data, or a root that does not
/// match. The commitment's shape is valid by construction ([`CodewordShape`]).
///
/// The root does not bind the shape or the row indices' meaning beyond their bytes: take
/// `log_rows` and `lanes` from parameters you trust, not from the prover.
///
/// A codeword of one BLAKE3 chunk (4 rows × 2 lanes = 64 bytes) is opened by its whole bytes:
///
/// ```
/// use ntt_verify::{CodewordShape, Commitment, Opening, verify};
///
/// let codeword: Vec<u64> = (0..8).map(|w: u64| w.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let bytes: Vec<u8> = codeword.iter().flat_map(|w| w.to_le_bytes()).collect();
/// let commitment = Commitment::new(*blake3::hash(&bytes).as_bytes(), CodewordShape::new(2, 2)?);
/// let opening = Opening::new(2, 2, vec![3, 1], bytes.clone(), vec![]);
/// assert_eq!(verify(&commitment, &[3, 1], &opening)?, [&codeword[6..8], &codeword[2..4]]);
///
/// let mut forged = bytes;
/// forged[9] ^= 1;
/// assert!(verify(&commitment, &[3, 1], &Opening::new(2, 2, vec![3, 1], forged, vec![])).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`CodewordShape`]: crate::CodewordShape
pub fn verify(
    commitment: &Commitment,
    rows: &[usize],
    opening: &Opening,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    let codeword = commitment.shape();
    let (log_rows, lanes) = (codeword.log_rows(), codeword.lanes());
    let (n_rows, row_bytes, len) = (codeword.rows(), codeword.row_bytes(), codeword.bytes());
    if rows.is_empty() {
        return Err(VerifyError::NoRows);
    }
    if commitment.scheme() != Scheme::chunks() {
        return Err(VerifyError::SchemeMismatch {
            committed: commitment.scheme().to_string(),
            opened: Scheme::chunks().to_string(),
        });
    }
    if let Some(&row) = rows.iter().find(|&&row| row as u64 >= n_rows) {
        return Err(VerifyError::RowOutOfRange { row, rows: n_rows });
    }
    if opening.log_rows != log_rows || opening.lanes != lanes as u64 {
        return Err(VerifyError::ShapeMismatch {
            log_rows,
            lanes,
            found_log_rows: opening.log_rows,
            found_lanes: opening.lanes,
        });
    }
    if opening.rows.len() != rows.len() || opening.rows.iter().zip(rows).any(|(&a, &b)| a != b as u64) {
        return Err(VerifyError::RowsMismatch {
            found: opening.rows.clone(),
        });
    }

    // A codeword shape has at least one 8-byte word and at most 2^62 bytes, and the rows are in
    // range: the tree and its chunks exist.
    let shape = TreeShape::new(len).expect("a codeword has at least one byte");
    let chunks = ChunkSet::of_rows(row_bytes, rows.iter().map(|&r| r as u64))
        .expect("rows in range end within the codeword");
    let expected = chunks
        .byte_len(&shape)
        .expect("rows in range lie within the tree");
    if opening.chunks.len() as u64 != expected {
        return Err(VerifyError::ChunkBytes {
            expected,
            found: opening.chunks.len() as u64,
        });
    }

    let root = if shape.top() == 0 {
        if !opening.siblings.is_empty() {
            return Err(VerifyError::SiblingCount {
                expected: 0,
                found: opening.siblings.len() as u64,
            });
        }
        *blake3::hash(&opening.chunks).as_bytes()
    } else {
        // The chunk count is now bounded by the proof's size.
        let leaves = chunks
            .iter()
            .zip(opening.chunks.chunks(CHUNK_BYTES as usize))
            .map(|(c, bytes)| {
                let cv = subtree_cv(c * CHUNK_BYTES, bytes).expect("one whole chunk at a chunk's offset");
                (c, cv)
            })
            .collect();
        let mut used = 0usize;
        let root = fold_root(&shape, leaves, |_, _| {
            let cv = opening.siblings.get(used).copied().unwrap_or_default();
            used += 1;
            Ok::<_, std::convert::Infallible>(cv)
        });
        if used != opening.siblings.len() {
            return Err(VerifyError::SiblingCount {
                expected: used as u64,
                found: opening.siblings.len() as u64,
            });
        }
        match root {
            Ok(root) => {
                root.expect("distinct chunks in range of a tree of two or more chunks fold to its root")
            }
            Err(never) => match never {},
        }
    };
    if root != commitment.root() {
        return Err(VerifyError::RootMismatch);
    }

    Ok(rows
        .iter()
        .map(|&row| {
            let start = row as u64 * row_bytes;
            let first_chunk = start / CHUNK_BYTES;
            let position = chunks
                .position(first_chunk)
                .expect("a row's first chunk is in the set");
            let at = (position * CHUNK_BYTES + start % CHUNK_BYTES) as usize;
            opening.chunks[at..at + row_bytes as usize]
                .chunks_exact(8)
                .map(|word| u64::from_le_bytes(word.try_into().expect("8 bytes")))
                .collect()
        })
        .collect())
}
