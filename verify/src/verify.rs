//! Checking an opening against a commitment.

use crate::commitment::Commitment;
use crate::error::VerifyError;
use crate::header::OpeningHeader;
use crate::node::subtree_cv;
use crate::opening::{ChunkSet, Opening, fold_root};
use crate::proof::ProofRef;
use crate::tree::{CHUNK_BYTES, TreeShape};

#[cfg(doc)]
use crate::{Proof, RowOpening};

/// Checks that `proof` proves `rows` (any order, repeats allowed) of the codeword committed to by
/// `commitment`, and returns those rows, each as `lanes` words, in the order asked. `proof` is
/// a [`Proof`] of either tree, or a chunk-tree [`Opening`] or a [`RowOpening`] itself
/// ([`ProofRef`]); it must have been made for the same rows, in any order.
///
/// # Errors
/// A [`VerifyError`] saying what does not hold: no rows, a row out of range, a proof made for
/// another scheme, shape or rows, the wrong amount of proof data, or a root (or cap) that does
/// not match. The commitment's shape is valid by construction ([`CodewordShape`]).
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
/// assert_eq!(verify(&commitment, &[1, 3, 1], &opening)?.len(), 3);
///
/// let mut forged = bytes;
/// forged[9] ^= 1;
/// assert!(verify(&commitment, &[3, 1], &Opening::new(2, 2, vec![3, 1], forged, vec![])).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`CodewordShape`]: crate::CodewordShape
pub fn verify<'a>(
    commitment: &Commitment,
    rows: &[usize],
    proof: impl Into<ProofRef<'a>>,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    #[cfg(feature = "tracing")]
    let _span = {
        let codeword = commitment.shape();
        let (log_rows, lanes) = (codeword.log_rows(), codeword.lanes());
        let tree = commitment.scheme().tree().to_string();
        tracing::info_span!("verify", rows = rows.len(), log_rows, lanes, tree).entered()
    };
    match proof.into() {
        ProofRef::Chunks(opening) => verify_chunks(commitment, rows, opening),
        ProofRef::Rows(opening) => crate::row_verify::verify_row_tree(commitment, rows, opening),
    }
}

/// [`verify`] of a chunk-tree opening.
fn verify_chunks(
    commitment: &Commitment,
    rows: &[usize],
    opening: &Opening,
) -> Result<Vec<Vec<u64>>, VerifyError> {
    OpeningHeader::chunks(opening.log_rows, opening.lanes, &opening.rows).check(commitment, rows)?;
    let codeword = commitment.shape();
    let (row_bytes, len) = (codeword.row_bytes(), codeword.bytes());
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
    if chunk_root(&shape, &chunks, opening)? != commitment.root() {
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

/// The root the opening's chunks (as many bytes as `chunks` spans) and siblings fold to.
///
/// # Errors
/// [`VerifyError::SiblingCount`] when the walk uses another number of siblings than it has.
fn chunk_root(shape: &TreeShape, chunks: &ChunkSet, opening: &Opening) -> Result<[u8; 32], VerifyError> {
    if shape.top() == 0 {
        if !opening.siblings.is_empty() {
            return Err(VerifyError::SiblingCount {
                expected: 0,
                found: opening.siblings.len() as u64,
            });
        }
        return Ok(*blake3::hash(&opening.chunks).as_bytes());
    }
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
    let root = fold_root(shape, leaves, |_, _| {
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
            Ok(root.expect("distinct chunks in range of a tree of two or more chunks fold to its root"))
        }
        Err(never) => match never {},
    }
}
