//! Checking a row-tree opening against a commitment, and either kind of proof.

use crate::commitment::Commitment;
use crate::error::VerifyError;
use crate::proof::Proof;
use crate::row_hash::leaf_digest;
use crate::row_opening::{RowOpening, fold_to_cap};

/// Checks a row-tree opening: [`verify`](crate::verify), which takes it as it takes any proof.
///
/// # Errors
/// As for [`verify`](crate::verify).
///
/// ```
/// use ntt_verify::{CodewordShape, Commitment, HashKind, RowOpening, Scheme, verify};
/// use ntt_verify::row_hash::{leaf_digest, node_digest};
///
/// // Two rows of three words, Keccak-256, cap height 0: the root is the hash of the two leaves.
/// let scheme = Scheme::rows(HashKind::Keccak, 0)?;
/// let (a, b) = ([1u64, 2, 3], [4u64, 5, 6]);
/// let (la, lb) = (leaf_digest(HashKind::Keccak, &a), leaf_digest(HashKind::Keccak, &b));
/// let root = node_digest(HashKind::Keccak, &la, &lb);
/// let commitment = Commitment::with_cap(scheme, vec![root], CodewordShape::new(1, 3)?)?;
/// let opening = RowOpening::new(scheme, 1, 3, vec![1], b.to_vec(), vec![la]);
/// assert_eq!(verify(&commitment, &[1], &opening)?, [b.to_vec()]);
/// let forged = RowOpening::new(scheme, 1, 3, vec![1], vec![4, 5, 7], vec![la]);
/// assert!(verify(&commitment, &[1], &forged).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[deprecated(note = "use `verify`, which checks a proof of either tree")]
pub fn verify_rows(
    commitment: &Commitment,
    rows: &[usize],
    opening: &RowOpening,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    crate::verify(commitment, rows, opening)
}

/// [`verify`](crate::verify) of a row-tree opening.
pub(crate) fn verify_row_tree(
    commitment: &Commitment,
    rows: &[usize],
    opening: &RowOpening,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    let distinct = opening.header().check(commitment, rows)?;
    let scheme = commitment.scheme();
    let codeword = commitment.shape();
    let (log_rows, lanes) = (codeword.log_rows(), codeword.lanes());
    let expected = distinct.len() as u64 * codeword.row_bytes();
    if opening.values.len() as u64 * 8 != expected {
        return Err(VerifyError::RowBytes {
            expected,
            found: opening.values.len() as u64 * 8,
        });
    }

    let leaves = distinct
        .iter()
        .zip(opening.values.chunks_exact(lanes))
        .map(|(&row, words)| (row, leaf_digest(scheme.hash(), words)))
        .collect();
    let cap_level = scheme.cap_height().min(log_rows);
    let mut used = 0usize;
    let reached = fold_to_cap(scheme.hash(), log_rows - cap_level, leaves, |_, _| {
        let digest = opening.siblings.get(used).copied().unwrap_or_default();
        used += 1;
        Ok::<_, std::convert::Infallible>(digest)
    });
    // The rows were checked to be in range, so the leaves are a fold; `None` cannot happen,
    // and would be refused like any other mismatch.
    let reached = match reached {
        Ok(nodes) => nodes.ok_or(VerifyError::RootMismatch)?,
        Err(never) => match never {},
    };
    if used != opening.siblings.len() {
        return Err(VerifyError::SiblingCount {
            expected: used as u64,
            found: opening.siblings.len() as u64,
        });
    }
    if reached
        .iter()
        .any(|&(i, digest)| commitment.cap().get(i as usize) != Some(&digest))
    {
        return Err(VerifyError::RootMismatch);
    }

    Ok(rows
        .iter()
        .map(|&row| {
            let position = distinct.partition_point(|&r| r < row as u64);
            opening.values[position * lanes..(position + 1) * lanes].to_vec()
        })
        .collect())
}

/// Checks a [`Proof`] of either kind against `commitment`: [`verify`](crate::verify).
///
/// # Errors
/// As for [`verify`](crate::verify).
#[deprecated(note = "use `verify`, which takes a `Proof`")]
pub fn verify_proof(
    commitment: &Commitment,
    rows: &[usize],
    proof: &Proof,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    crate::verify(commitment, rows, proof)
}
