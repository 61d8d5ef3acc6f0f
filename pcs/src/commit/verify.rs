//! Checking an opening against a commitment.

use super::commitment::Commitment;
use super::error::VerifyError;
use super::node::subtree_cv;
use super::opening::{ChunkSet, Opening, fold_root};
use super::shape::{CHUNK_BYTES, TreeShape};
use crate::shape::CodewordShape;

/// Checks that `opening` proves `rows` (in this order, repeats allowed) of the codeword committed
/// to by `commitment`, and returns those rows, each as `lanes` words, in the order asked.
///
/// # Errors
/// A [`VerifyError`] saying what does not hold: a bad shape, no rows, a row out of range, an
/// opening made for another shape or other rows, the wrong amount of proof data, or a root that
/// does not match.
///
/// ```
/// use ntt_pcs::commit::{Opening, commit_codeword, verify};
///
/// let codeword: Vec<u64> = (0..3 << 10).map(|w: u64| w.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
/// let (commitment, prover) = commit_codeword(codeword, 3)?;
/// let opening = prover.open(&[700, 3, 700])?;
/// let rows = verify(&commitment, &[700, 3, 700], &opening)?;
/// assert_eq!(rows[1], prover.codeword()[9..12]);
///
/// let mut forged = opening.to_bytes();
/// let last = forged.len() - 1;
/// forged[last] ^= 1; // a bit of the last sibling chaining value
/// assert!(verify(&commitment, &[700, 3, 700], &Opening::from_bytes(&forged)?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify(
    commitment: &Commitment,
    rows: &[usize],
    opening: &Opening,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    let _span = tracing::debug_span!("verify", rows = rows.len()).entered();
    let (log_rows, lanes) = (commitment.log_rows, commitment.lanes);
    let codeword = CodewordShape::new(log_rows, lanes)?;
    let (n_rows, row_bytes, len) = (codeword.rows(), codeword.row_bytes(), codeword.bytes());
    if rows.is_empty() {
        return Err(VerifyError::NoRows);
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

    let shape = TreeShape::new(len);
    let chunks = ChunkSet::of_rows(row_bytes, rows.iter().map(|&r| r as u64));
    let expected = chunks.byte_len(&shape);
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
            .map(|(c, bytes)| (c, subtree_cv(c * CHUNK_BYTES, bytes)))
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
            Ok(root) => root,
            Err(never) => match never {},
        }
    };
    if root != commitment.root {
        return Err(VerifyError::RootMismatch);
    }

    Ok(rows
        .iter()
        .map(|&row| {
            let start = row as u64 * row_bytes;
            let first_chunk = start / CHUNK_BYTES;
            let position = chunks.position(first_chunk);
            let at = (position * CHUNK_BYTES + start % CHUNK_BYTES) as usize;
            opening.chunks[at..at + row_bytes as usize]
                .chunks_exact(8)
                .map(|word| u64::from_le_bytes(word.try_into().expect("8 bytes")))
                .collect()
        })
        .collect())
}
