//! One layer of nodes from the layer below, on the engine's pool: the one place tree levels
//! above the leaves are hashed, for the engine's row trees and for `ntt-plonky3`'s Merkle trees.

use ntt_runtime::ThreadPool;
use ntt_verify::row_hash::Digest;

/// Nodes one task compresses: 64 KiB of child digests.
pub(crate) const NODES_PER_TASK: usize = 1024;

/// A node function over many pairs: each pair of `children` (2 · `out.len()` digests) into its
/// parent, as [`compress_many`](crate::row_hash::compress_many) does.
pub type CompressFn = fn(&[Digest], &mut [Digest]);

/// Compresses the pairs of `below` (2 · `out.len()` digests at least) into `out`, in tasks of
/// 1024 parents on `pool` (on the calling thread without one, or for a layer of one task). Each
/// task then calls `then(first, out)` on its parents `first..first + out.len()`, while they are
/// still in its cache (a tree that injects shorter matrices compresses their row digests in).
pub fn compress_level(
    compress: CompressFn,
    below: &[Digest],
    out: &mut [Digest],
    pool: Option<&ThreadPool>,
    then: impl Fn(usize, &mut [Digest]) + Sync,
) {
    let task = |k: usize, out: &mut [Digest]| {
        let first = k * NODES_PER_TASK;
        compress(&below[2 * first..2 * (first + out.len())], out);
        then(first, out);
    };
    match pool {
        Some(pool) if out.len() > NODES_PER_TASK => {
            pool.chunks_mut(out, NODES_PER_TASK, |k, out, _| task(k, out));
        }
        _ => out
            .chunks_mut(NODES_PER_TASK)
            .enumerate()
            .for_each(|(k, out)| task(k, out)),
    }
}
