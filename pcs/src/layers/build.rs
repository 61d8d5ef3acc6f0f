//! The digest layers of one commitment, leaves to root, hashed in parallel on the engine's pool.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;

use super::level::compress_level;
use super::plan::{LayerPlan, padded_len};
use super::source::RowSource;
use crate::row_hash::{RowHash, compress_many, hash_many};

/// The all-zero digest, Plonky3's padding (`[u8; 32]::default()`).
pub const ZERO: Digest = [0; 32];

/// Bytes of rows one leaf task hashes, about: large enough that a task's hand-off is small
/// beside it, small enough that its staged copy (for matrices without adjacent rows) stays in L2.
const LEAF_TASK_BYTES: usize = 64 << 10;

/// Rows of a leaf task are a multiple of this: the widest many-message batch (`p3_blake3` runs 32
/// messages side by side on x86-64, `p3_keccak` 8).
const LEAF_BATCH: usize = 32;

/// Picoseconds of hashing per byte, about (Keccak-256 on 8 AVX-512 lanes runs near 1 GB/s per
/// core): only to decide whether a tree is worth handing to the pool's workers at all.
const HASH_PS_PER_BYTE: u64 = 1_000;

/// Where commits spent their time, cumulative: nanoseconds on leaf layers (with whatever the
/// caller's hand-over of row digests cost) and on the layers above.
#[derive(Debug, Default)]
pub struct LayerTimes {
    /// Nanoseconds on leaf layers, wall time.
    pub leaves: AtomicU64,
    /// Nanoseconds on the layers above the leaves, wall time.
    pub nodes: AtomicU64,
}

/// The bytes of rows `first..first + count` of the matrices `group`, each row the matrices' rows
/// concatenated, handed to `f`: borrowed when one dense matrix holds them, else staged.
fn with_rows_bytes<S: RowSource>(
    sources: &[S],
    group: &[usize],
    first: usize,
    count: usize,
    f: impl FnOnce(&[u8]),
) {
    let mut f = Some(f);
    if let [m] = group
        && let Some(()) = sources[*m].with_contiguous_rows(first..first + count, |bytes| {
            f.take().expect("called once")(bytes)
        })
    {
        return;
    }
    let mut staged = Vec::new();
    for row in first..first + count {
        for &m in group {
            sources[m].extend_with_row(row, &mut staged);
        }
    }
    f.take().expect("not called yet")(&staged);
}

/// The row digests of rows `first..first + out.len()` of the matrices `group`.
fn hash_rows<H: RowHash, S: RowSource>(sources: &[S], group: &[usize], first: usize, out: &mut [Digest]) {
    with_rows_bytes(sources, group, first, out.len(), |bytes| {
        hash_many::<H>(bytes, out)
    });
}

/// Rows per leaf task for rows of `row_bytes` bytes.
fn leaf_rows_per_task(row_bytes: usize) -> usize {
    (LEAF_TASK_BYTES / row_bytes.max(1))
        .max(1)
        .next_multiple_of(LEAF_BATCH)
}

/// Builds every digest layer of `sources` (their heights checked by
/// [`check_heights`](super::check_heights), laid out by `plan`), leaves first and the root last.
/// A layer whose matrices `handed` returns row digests for (the caller hashed them before, say
/// as an encoder finished the rows) takes them instead of hashing the rows.
pub fn build<H: RowHash, S: RowSource>(
    sources: &[S],
    plan: &LayerPlan,
    pool: &ThreadPool,
    mut handed: impl FnMut(&[usize]) -> Option<Vec<Digest>> + Send,
    times: &LayerTimes,
) -> Vec<Vec<Digest>> {
    let bytes: usize = sources.iter().map(|m| m.height() * m.row_bytes()).sum();
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
                let handed = handed(group);
                let digests = if layer == 0 {
                    leaves::<H, S>(sources, group, computed, handed, pool)
                } else {
                    let below = layers.last().expect("a layer above the leaves has one below");
                    nodes::<H, S>(sources, group, below, computed, handed, pool)
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
fn leaves<H: RowHash, S: RowSource>(
    sources: &[S],
    group: &[usize],
    height: usize,
    handed: Option<Vec<Digest>>,
    pool: &ThreadPool,
) -> Vec<Digest> {
    let mut layer = match handed {
        Some(digests) => digests,
        None => {
            let row_bytes = group.iter().map(|&m| sources[m].row_bytes()).sum();
            let per_task = leaf_rows_per_task(row_bytes);
            let mut layer = vec![ZERO; height];
            pool.chunks_mut(&mut layer, per_task, |task, out, _| {
                hash_rows::<H, S>(sources, group, task * per_task, out);
            });
            layer
        }
    };
    layer.resize(padded_len(height), ZERO);
    layer
}

/// A layer above the leaves: `computed` nodes compressed from `below`'s pairs, each compressed
/// again with its row digest where `group` injects matrices here; padded.
fn nodes<H: RowHash, S: RowSource>(
    sources: &[S],
    group: &[usize],
    below: &[Digest],
    computed: usize,
    handed: Option<Vec<Digest>>,
    pool: &ThreadPool,
) -> Vec<Digest> {
    let mut layer = vec![ZERO; padded_len(computed)];
    let injected_rows = group.first().map_or(0, |&m| sources[m].height());
    let inject = |first: usize, out: &mut [Digest]| {
        if group.is_empty() {
            return;
        }
        // C(folded, H(row)) below the injected height, C(folded, 0) above it.
        let rows = injected_rows.saturating_sub(first).min(out.len());
        let mut row_digests = vec![ZERO; out.len()];
        match &handed {
            Some(digests) => row_digests[..rows].copy_from_slice(&digests[first..first + rows]),
            None => hash_rows::<H, S>(sources, group, first, &mut row_digests[..rows]),
        }
        let staged: Vec<Digest> = out.iter().zip(&row_digests).flat_map(|(&f, &r)| [f, r]).collect();
        compress_many::<H>(&staged, out);
    };
    compress_level(
        compress_many::<H>,
        below,
        &mut layer[..computed],
        Some(pool),
        inject,
    );
    layer
}

/// The commitment: the layer `cap_height` below the root (the root alone for 0; a tree of
/// fewer layers caps at its leaves), `2^cap_height` digests, zero-padded where the layer is
/// shorter, as Plonky3's `MerkleTree::cap`.
pub fn cap(layers: &[Vec<Digest>], cap_height: usize) -> Vec<Digest> {
    let height = effective_cap_height(layers.len(), cap_height);
    let layer = &layers[layers.len() - 1 - height];
    let len = 1usize << height;
    let mut cap = layer[..len.min(layer.len())].to_vec();
    cap.resize(len, ZERO);
    cap
}

/// The cap height a tree of `layers` layers really has: at most its layers above the leaves.
pub fn effective_cap_height(layers: usize, cap_height: usize) -> usize {
    cap_height.min(layers.saturating_sub(1))
}
