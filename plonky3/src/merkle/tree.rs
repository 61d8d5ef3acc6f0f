//! The digest layers of one commitment, laid out exactly as Plonky3's binary `MerkleTree`:
//!
//! ```text
//!  layer 0      H(row i of every tallest matrix, concatenated)      padded to even with 0
//!  layer l > 0  C(C(k_2i, k_2i+1), H(row i of the matrices injected here))   i < their height
//!               C(C(k_2i, k_2i+1), 0)                                         i ≥ their height
//!               C(k_2i, k_2i+1)                           (no matrix injected at this layer)
//! ```
//!
//! `H` hashes bytes (each value's `u64` little-endian), `C(a, b)` is `H(a ‖ b)`, `0` is the
//! all-zero digest, every layer above one node is padded to an even length with `0`, and the
//! matrices injected at layer `l` are those whose height rounds up to the power of two that
//! layer's node count rounds up to (heights must sit on the `⌈max / 2^k⌉` ladder).
//!
//! Leaves and nodes are hashed in parallel on the engine's pool: each task hands one
//! `hash_many` call a run of equal-length messages already back to back in memory (a run of rows
//! of a dense matrix, or a run of child pairs of the layer below), so the hasher fills its vector
//! slots.

use super::fused::{FusedLeaves, hash_id};
use crate::words::as_le_bytes;
use ntt_pcs::RowHash;
use ntt_pcs::row_hash::{compress_many, hash_many};
use ntt_runtime::ThreadPool;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;
use std::cmp::Reverse;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where a Mmcs's commits spent their time, cumulative: nanoseconds on leaf layers (with the
/// fingerprint checks of the fused path) and on the layers above.
#[derive(Debug, Default)]
pub(crate) struct Times {
    pub(crate) leaves: AtomicU64,
    pub(crate) nodes: AtomicU64,
}

/// One digest.
pub(crate) type Digest = [u8; 32];

/// The all-zero digest, Plonky3's padding (`[u8; 32]::default()`).
pub(crate) const ZERO: Digest = [0; 32];

/// Nodes one task compresses: 64 KiB of child digests.
const NODES_PER_TASK: usize = 1024;

/// Bytes of rows one leaf task hashes, about: large enough that a task's hand-off is small
/// beside it, small enough that its staged copy (for matrices without adjacent rows) stays in L2.
const LEAF_TASK_BYTES: usize = 64 << 10;

/// Rows of a leaf task are a multiple of this: the widest many-message batch (`p3_blake3` runs 32
/// messages side by side on x86-64, `p3_keccak` 8).
const LEAF_BATCH: usize = 32;

/// Picoseconds of hashing per byte, about (Keccak-256 on 8 AVX-512 lanes runs near 1 GB/s per
/// core): only to decide whether a tree is worth handing to the pool's workers at all.
const HASH_PS_PER_BYTE: u64 = 1_000;

/// Where each matrix of a batch goes, fixed by the heights alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The matrices (indices into the batch, in batch order within a layer) whose rows are
    /// hashed into each layer; layer 0 holds the tallest.
    pub(crate) groups: Vec<Vec<usize>>,
    /// Nodes hashed at each layer; the layer is [`padded_len`] long.
    pub(crate) computed: Vec<usize>,
}

/// A layer of `raw` nodes as stored: padded to an even length unless it is the root.
pub(crate) const fn padded_len(raw: usize) -> usize {
    if raw <= 1 { raw } else { raw.div_ceil(2) * 2 }
}

/// `⌈log2 n⌉` (0 for n ≤ 1).
pub(crate) const fn log2_ceil(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Why a batch of heights makes no tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeightError {
    /// No matrix, or every matrix has no rows.
    Empty,
    /// `height` is not `⌈max_height / 2^k⌉` for any `k`.
    OffLadder { height: usize, max_height: usize },
}

impl std::fmt::Display for HeightError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "all matrices have height 0"),
            Self::OffLadder { height, max_height } => write!(
                f,
                "matrix height {height} is not ⌈{max_height} / 2^k⌉ for any k (the tallest \
                 matrix has {max_height} rows)"
            ),
        }
    }
}

/// Plonky3's geometry gate: the tallest height, if every height sits on its ladder.
pub(crate) fn check_heights(heights: &[usize]) -> Result<usize, HeightError> {
    let max_height = heights
        .iter()
        .copied()
        .max()
        .filter(|&h| h > 0)
        .ok_or(HeightError::Empty)?;
    let log_max = log2_ceil(max_height);
    for &height in heights {
        let bits = log_max - log2_ceil(height);
        if height != ((max_height - 1) >> bits) + 1 {
            return Err(HeightError::OffLadder { height, max_height });
        }
    }
    Ok(max_height)
}

impl Plan {
    /// The layers of a batch of these heights (checked with [`check_heights`]).
    pub(crate) fn new(heights: &[usize]) -> Self {
        let mut order: Vec<usize> = (0..heights.len()).collect();
        // Tallest first; a stable sort keeps batch order among equal heights, as Plonky3 does.
        order.sort_by_key(|&m| Reverse(heights[m]));
        let max_height = heights[order[0]];
        let mut rest = order.into_iter().peekable();
        let take = |rest: &mut std::iter::Peekable<std::vec::IntoIter<usize>>,
                    keep: &dyn Fn(usize) -> bool| {
            let mut group = Vec::new();
            while let Some(&m) = rest.peek() {
                if !keep(heights[m]) {
                    break;
                }
                group.push(m);
                rest.next();
            }
            group
        };
        let mut groups = vec![take(&mut rest, &|h| h == max_height)];
        let mut computed = vec![max_height];
        let mut len = padded_len(max_height);
        while len > 1 {
            let nodes = len / 2;
            let target = nodes.next_power_of_two();
            groups.push(take(&mut rest, &|h| h.next_power_of_two() == target));
            computed.push(nodes);
            len = padded_len(nodes);
        }
        Self { groups, computed }
    }

    /// Layers in the tree, the leaves and the root included.
    pub(crate) fn layers(&self) -> usize {
        self.computed.len()
    }
}

/// The bytes of rows `first..first + count` of the matrices `group`, each row the matrices' rows
/// concatenated; borrowed when one dense matrix holds them, else staged in `scratch`.
fn rows_bytes<'a, M: Matrix<Poly64>>(
    matrices: &'a [M],
    group: &[usize],
    first: usize,
    count: usize,
    scratch: &'a mut Vec<u8>,
    f: impl FnOnce(&[u8]),
) {
    if let [m] = group
        && let Some(rows) = matrices[*m].contiguous_rows(first..first + count)
    {
        return f(&as_le_bytes(&rows));
    }
    scratch.clear();
    for row in first..first + count {
        for &m in group {
            let values = matrices[m]
                .row_slice(row)
                .expect("a hashed row lies inside its matrix");
            scratch.extend_from_slice(&as_le_bytes(&values));
        }
    }
    f(scratch)
}

/// The row digests of rows `first..first + out.len()` of the matrices `group`.
fn hash_rows<H: RowHash, M: Matrix<Poly64>>(
    matrices: &[M],
    group: &[usize],
    first: usize,
    out: &mut [Digest],
) {
    let mut scratch = Vec::new();
    rows_bytes(matrices, group, first, out.len(), &mut scratch, |bytes| {
        hash_many::<H>(bytes, out);
    });
}

/// Rows per leaf task for rows of `row_bytes` bytes.
fn leaf_rows_per_task(row_bytes: usize) -> usize {
    (LEAF_TASK_BYTES / row_bytes.max(1))
        .max(1)
        .next_multiple_of(LEAF_BATCH)
}

/// Builds every digest layer of `matrices` (their heights checked by [`check_heights`]), leaves
/// first and the root last. A group of one dense matrix that `fused` holds digests for (hashed
/// by the encoder as it finished the rows, and unchanged since) takes them instead of hashing
/// its rows again.
pub(crate) fn build<H: RowHash, M: Matrix<Poly64>>(
    matrices: &[M],
    plan: &Plan,
    pool: &ThreadPool,
    fused: Option<&FusedLeaves>,
    times: &Times,
) -> Vec<Vec<Digest>> {
    let bytes: usize = matrices.iter().map(|m| m.height() * m.width() * 8).sum();
    let node_count = 2 * plan.computed[0];
    let work =
        Duration::from_nanos(((bytes + 64 * node_count) as u64).saturating_mul(HASH_PS_PER_BYTE) / 1000);
    pool.with_work_estimate(work, || {
        pool.install(|| {
            let mut layers: Vec<Vec<Digest>> = Vec::with_capacity(plan.layers());
            let started = Instant::now();
            let mut since = Duration::ZERO;
            for (layer, group) in plan.groups.iter().enumerate() {
                let computed = plan.computed[layer];
                // Row digests of the matrices hashed into this layer, where the encoder kept them.
                let handed = match (group.as_slice(), fused) {
                    ([m], Some(fused)) => fused.take(hash_id::<H>(), &matrices[*m], pool),
                    _ => None,
                };
                let digests = if layer == 0 {
                    leaves::<H, M>(matrices, group, computed, handed, pool)
                } else {
                    let below = layers.last().expect("a layer above the leaves has one below");
                    nodes::<H, M>(matrices, group, below, computed, handed, pool)
                };
                let done = started.elapsed();
                let total = if layer == 0 { &times.leaves } else { &times.nodes };
                total.fetch_add((done - since).as_nanos() as u64, Ordering::Relaxed);
                since = done;
                layers.push(digests);
            }
            layers
        })
    })
}

/// The leaf layer: one digest per row of the tallest matrices, padded.
fn leaves<H: RowHash, M: Matrix<Poly64>>(
    matrices: &[M],
    group: &[usize],
    height: usize,
    handed: Option<Vec<Digest>>,
    pool: &ThreadPool,
) -> Vec<Digest> {
    let mut layer = match handed {
        Some(digests) => digests,
        None => {
            let row_bytes = group.iter().map(|&m| matrices[m].width() * 8).sum();
            let per_task = leaf_rows_per_task(row_bytes);
            let mut layer = vec![ZERO; height];
            pool.chunks_mut(&mut layer, per_task, |task, out, _| {
                hash_rows::<H, M>(matrices, group, task * per_task, out);
            });
            layer
        }
    };
    layer.resize(padded_len(height), ZERO);
    layer
}

/// A layer above the leaves: `computed` nodes compressed from `below`'s pairs, each compressed
/// again with its row digest where `group` injects matrices here; padded.
fn nodes<H: RowHash, M: Matrix<Poly64>>(
    matrices: &[M],
    group: &[usize],
    below: &[Digest],
    computed: usize,
    handed: Option<Vec<Digest>>,
    pool: &ThreadPool,
) -> Vec<Digest> {
    let mut layer = vec![ZERO; padded_len(computed)];
    let pairs = &below[..2 * computed];
    let injected_rows = group.first().map_or(0, |&m| matrices[m].height());
    pool.chunks_mut(&mut layer[..computed], NODES_PER_TASK, |task, out, _| {
        let first = task * NODES_PER_TASK;
        compress_many::<H>(&pairs[2 * first..2 * (first + out.len())], out);
        if group.is_empty() {
            return;
        }
        // C(folded, H(row)) below the injected height, C(folded, 0) above it.
        let rows = injected_rows.saturating_sub(first).min(out.len());
        let mut row_digests = vec![ZERO; out.len()];
        match &handed {
            Some(digests) => row_digests[..rows].copy_from_slice(&digests[first..first + rows]),
            None => hash_rows::<H, M>(matrices, group, first, &mut row_digests[..rows]),
        }
        let staged: Vec<Digest> = out.iter().zip(&row_digests).flat_map(|(&f, &r)| [f, r]).collect();
        compress_many::<H>(&staged, out);
    });
    layer
}

/// The commitment: the layer `cap_height` below the root (the root alone for 0; a tree of
/// fewer layers caps at its leaves), `2^cap_height` digests, zero-padded where the layer is
/// shorter, as Plonky3's `MerkleTree::cap`.
pub(crate) fn cap(layers: &[Vec<Digest>], cap_height: usize) -> Vec<Digest> {
    let height = effective_cap_height(layers.len(), cap_height);
    let layer = &layers[layers.len() - 1 - height];
    let len = 1usize << height;
    let mut cap = layer[..len.min(layer.len())].to_vec();
    cap.resize(len, ZERO);
    cap
}

/// The cap height a tree of `layers` layers really has: at most its layers above the leaves.
pub(crate) fn effective_cap_height(layers: usize, cap_height: usize) -> usize {
    cap_height.min(layers.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_on_the_ladder_are_accepted_and_others_refused() {
        assert_eq!(check_heights(&[8, 4, 2, 1]), Ok(8));
        assert_eq!(check_heights(&[17, 9, 5, 3, 2, 1]), Ok(17));
        assert_eq!(check_heights(&[6, 3]), Ok(6));
        assert_eq!(
            check_heights(&[6, 4]),
            Err(HeightError::OffLadder {
                height: 4,
                max_height: 6
            })
        );
        assert_eq!(check_heights(&[]), Err(HeightError::Empty));
        assert_eq!(check_heights(&[0]), Err(HeightError::Empty));
        assert!(check_heights(&[4, 0]).is_err());
    }

    #[test]
    fn plans_inject_shorter_matrices_where_their_height_lands() {
        let plan = Plan::new(&[2, 8, 8, 4]);
        assert_eq!(plan.groups, vec![vec![1, 2], vec![3], vec![0], vec![]]);
        assert_eq!(plan.computed, vec![8, 4, 2, 1]);
        let odd = Plan::new(&[13]);
        assert_eq!(odd.computed, vec![13, 7, 4, 2, 1]);
        assert_eq!(Plan::new(&[1]).computed, vec![1]);
    }
}
