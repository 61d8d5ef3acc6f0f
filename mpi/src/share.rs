//! One rank's share: encoded by the engine on the share's own coset, hashed into the nodes of
//! the codeword's BLAKE3 tree that cover it, while the rows are still in cache.

use ntt_pcs::ntt_verify::tree::{CHUNK_BYTES, TreeShape};
use ntt_pcs::{CommitParams, EncodeError, Encoder, MessageLayout};

use crate::split::Split;
use crate::tree::{Node, NodeSet, NodeSink, TreeError, hash_chunks};

/// A rank's encoded share and the chaining values it contributes to the root.
#[derive(Debug)]
pub struct Share {
    /// The codeword rows `[first_row, first_row + 2^d)`, row-major.
    pub rows: Vec<u64>,
    /// The maximal aligned nodes of the share's chunks, left to right.
    pub nodes: Vec<Node>,
}

/// Why a share could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShareError {
    /// The allocator refused the share's buffer.
    #[error("cannot allocate the share's {bytes} bytes")]
    Allocation {
        /// The share's size.
        bytes: u64,
    },
    /// The engine refused or failed the encode.
    #[error("encode failed: {0}")]
    Encode(#[from] EncodeError),
    /// The share's row tree could not be committed.
    #[error(transparent)]
    Commit(#[from] ntt_pcs::CommitError),
    /// The share's nodes do not cover it (a bug).
    #[error(transparent)]
    Tree(#[from] TreeError),
}

/// Encodes this rank's share from `msg` (the message [`crate::fold::share_message`] returned,
/// in `layout`) with `encoder`'s pool and backend, on the share's coset of the encoder's domain,
/// and hashes it into nodes of the whole codeword's tree.
///
/// # Errors
/// A [`ShareError`].
pub fn encode_share(
    encoder: &Encoder,
    split: &Split,
    msg: &[u64],
    layout: MessageLayout,
) -> Result<Share, ShareError> {
    let shape = split.shape();
    let lanes = shape.lanes();
    let words = split.share_words();
    let share_encoder = encoder.clone().with_domain(split.share_domain(encoder.domain()));
    let params = CommitParams::lanes(lanes)
        .log_inv_rate(split.share_log_inv_rate())
        .layout(layout);
    let mut rows: Vec<u64> = Vec::new();
    rows.try_reserve_exact(words)
        .map_err(|_| ShareError::Allocation {
            bytes: split.share_bytes(),
        })?;
    let tree = TreeShape::new(shape.codeword_bytes()).expect("a codeword has at least one byte");
    let sink = NodeSink::new(tree, split.share_offset(), lanes as u64 * 8);
    share_encoder.encode(msg, &mut rows.spare_capacity_mut()[..words], params, Some(&sink))?;
    // SAFETY: `encode` returned `Ok`, so it wrote every one of the first `words` words of the
    // spare capacity, which `try_reserve_exact` made at least `words` long.
    unsafe { rows.set_len(words) };

    let first_chunk = split.share_offset() / CHUNK_BYTES;
    let end_chunk = (split.share_offset() + split.share_bytes()).div_ceil(CHUNK_BYTES);
    let mut set = NodeSet::new(shape.codeword_bytes());
    match sink.into_nodes() {
        Some(nodes) => set.extend(nodes),
        None => {
            let bytes: Vec<u8> = rows.iter().flat_map(|w| w.to_le_bytes()).collect();
            set.extend(hash_chunks(&tree, split.share_offset(), &bytes));
        }
    }
    let nodes = set.cover(first_chunk, end_chunk)?;
    Ok(Share { rows, nodes })
}
