//! Pieces of the BLAKE3 chunk tree: aligned subtrees of up to 2^[`DEFAULT_PIECE_LEVEL`] chunks,
//! each hashed in one `blake3::hazmat` call (`set_input_offset`, `finalize_non_root`) so that
//! BLAKE3's SIMD path batches its chunks and most of its parents, then merged upwards with
//! `parent_cv`.
//!
//! Every prover-side builder of the chunk tree hashes through here: the streaming hasher (its
//! pure byte ranges), a Plonky3 matrix's tree ([`hash_level`] on a pool, then
//! [`ChainingTree::from_level`]) and a rank's share of a distributed commit
//! ([`node_cv_from_pieces`]). The geometry is `ntt_verify::tree`'s. The root does not depend on
//! the piece level, and neither do openings: an opened sibling is a node's chaining value, the
//! same whichever level its bytes were hashed from.

use std::time::Duration;

use blake3::hazmat::ChainingValue;
use ntt_runtime::ThreadPool;
use ntt_verify::tree::{CHUNK_BYTES, TreeShape, parent_cv};

pub use super::tree::ChainingTree;

/// Default largest level hashed in one call, and the finest level whose chaining values are
/// stored: 2^6 chunks = 64 KiB. A 16 KiB piece (the width of BLAKE3's AVX-512 path) leaves its 15
/// parents to unbatched compressions; larger pieces let BLAKE3 batch most of them. Thread CPU time
/// for 64 MiB in 512 KiB blocks, relative to `blake3::hash` of the same bytes
/// (`benches/examples/hash_cpu_time.rs`, medians of 9): level 4 +11%, level 6 +3%, level 9 +3%.
/// An opening rehashes the nodes below it: at most 63 KiB per opened chunk.
pub const DEFAULT_PIECE_LEVEL: u32 = 6;

/// Bytes BLAKE3 hashes per nanosecond on one core, about: AVX2 reaches 2–3 GB/s. Only used to
/// tell the pool how much work a level is, so it decides whether to wake its workers at all.
const HASH_BYTES_PER_NS: u64 = 2;

/// The chaining value of one node of the tree (or the clipped last node of a level) whose bytes
/// start at `offset`, hashed in one call.
///
/// # Panics
/// When `bytes` cannot be such a node: empty, `offset` not a multiple of 1 KiB, or more bytes
/// than a node starting there holds.
pub fn node_cv(offset: u64, bytes: &[u8]) -> ChainingValue {
    ntt_verify::tree::subtree_cv(offset, bytes).expect("the bytes of a node of the tree")
}

/// The chaining value of node `(h, i)` of `shape`, whose bytes lie in `bytes` (codeword bytes from
/// `offset` on): a node above [`DEFAULT_PIECE_LEVEL`] is merged from its pieces, each hashed in
/// one call; one at or below it is hashed in one call.
///
/// # Panics
/// When `(h, i)` is not a node of `shape` or `bytes` does not hold all of it.
pub fn node_cv_from_pieces(shape: &TreeShape, h: u32, i: u64, offset: u64, bytes: &[u8]) -> ChainingValue {
    if h > DEFAULT_PIECE_LEVEL {
        let left = node_cv_from_pieces(shape, h - 1, 2 * i, offset, bytes);
        if shape.is_promoted(h, i).expect("a node of the tree") {
            return left;
        }
        let right = node_cv_from_pieces(shape, h - 1, 2 * i + 1, offset, bytes);
        return parent_cv(&left, &right);
    }
    let (start, end) = shape.node_bytes(h, i).expect("a node of the tree");
    node_cv(start, &bytes[(start - offset) as usize..(end - offset) as usize])
}

/// The pieces `(h, i)` that tile chunks `[start, end)` of `shape`, left to right: from each
/// chunk on, the largest aligned node of at most 2^`piece_level` chunks (and below the root)
/// that ends within the range and has a right child (a promoted node is hashed as the node
/// below it).
pub fn pieces(shape: &TreeShape, piece_level: u32, start: u64, end: u64) -> impl Iterator<Item = (u32, u64)> {
    let chunks = shape.chunks();
    let piece_level = piece_level.min(shape.top().saturating_sub(1));
    let mut c = start;
    std::iter::from_fn(move || {
        if c >= end {
            return None;
        }
        let mut h = piece_level.min(c.trailing_zeros());
        while h > 0 && ((c + (1 << h)).min(chunks) > end || c + (1 << (h - 1)) >= chunks) {
            h -= 1;
        }
        let piece = (h, c >> h);
        c += 1 << h;
        Some(piece)
    })
}

/// The chaining values of every node at `level` of `shape` (`level` below the root), hashed in
/// parallel on `pool`; `cv_of(start, end)` hashes the node whose bytes are `[start, end)`, with
/// [`node_cv`] on wherever those bytes live.
pub fn hash_level(
    shape: &TreeShape,
    level: u32,
    pool: &ThreadPool,
    cv_of: impl Fn(u64, u64) -> ChainingValue + Sync,
) -> Vec<ChainingValue> {
    let nodes = shape.level_len(level).expect("a level of the tree");
    debug_assert!(level < shape.top(), "the root is merged with its own flag");
    // About 64 KiB of hashing per task: tens of microseconds, beside a hand-off of a few.
    let per_task = (64 * 1024 / (CHUNK_BYTES << level)).max(1) as usize;
    let mut cvs = vec![ChainingValue::default(); nodes as usize];
    let work = Duration::from_nanos(shape.len() / HASH_BYTES_PER_NS);
    pool.with_work_estimate(work, || {
        pool.chunks_mut(&mut cvs, per_task, |task, cvs, _| {
            for (k, cv) in cvs.iter_mut().enumerate() {
                let node = (task * per_task + k) as u64;
                let (start, end) = shape.node_bytes(level, node).expect("a node of the level");
                *cv = cv_of(start, end);
            }
        });
    });
    cvs
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_runtime::{PinPolicy, ThreadPoolBuilder};

    fn bytes(len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 7) as u8)
            .collect()
    }

    fn direct(shape: &TreeShape, data: &[u8], h: u32, i: u64) -> ChainingValue {
        let (start, end) = shape.node_bytes(h, i).expect("a node of the tree");
        node_cv(start, &data[start as usize..end as usize])
    }

    #[test]
    fn pieces_tile_the_range_within_the_piece_level() {
        for chunks in [1u64, 5, 64, 65, 97, 200] {
            let shape = TreeShape::new(chunks * CHUNK_BYTES - 8).expect("not empty");
            for (start, end) in [(0, chunks), (chunks / 3, chunks), (1, chunks.div_ceil(2))] {
                let mut at = start;
                for (h, i) in pieces(&shape, DEFAULT_PIECE_LEVEL, start, end) {
                    assert!(h <= DEFAULT_PIECE_LEVEL);
                    assert_eq!(i << h, at, "{chunks} chunks, [{start}, {end})");
                    assert_ne!(shape.is_promoted(h, i), Some(true));
                    at = (at + (1 << h)).min(chunks);
                }
                assert_eq!(at, end.max(start));
            }
        }
    }

    #[test]
    fn nodes_from_pieces_equal_nodes_hashed_whole() {
        // Clipped and promoted nodes above the piece level: 200 chunks, a short last one.
        let data = bytes((200 << 10) - 24);
        let shape = TreeShape::new(data.len() as u64).expect("not empty");
        for h in 0..shape.top() {
            for i in 0..shape.level_len(h).expect("a level") {
                let (start, _) = shape.node_bytes(h, i).expect("a node");
                let from_pieces = node_cv_from_pieces(&shape, h, i, start, &data[start as usize..]);
                assert_eq!(from_pieces, direct(&shape, &data, h, i), "node ({h}, {i})");
            }
        }
    }

    #[test]
    fn a_level_hashed_on_the_pool_equals_each_node_hashed_alone() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .build()
            .expect("pool");
        let data = bytes((300 << 10) + 5);
        let shape = TreeShape::new(data.len() as u64).expect("not empty");
        for level in [0, 4, DEFAULT_PIECE_LEVEL, shape.top() - 1] {
            let cvs = hash_level(&shape, level, &pool, |start, end| {
                node_cv(start, &data[start as usize..end as usize])
            });
            let expected: Vec<_> = (0..cvs.len() as u64)
                .map(|i| direct(&shape, &data, level, i))
                .collect();
            assert_eq!(cvs, expected, "level {level}");
        }
    }
}
