//! Openings of a committed tree: Plonky3's `open_batch` (one index, every sibling up to the cap)
//! and its pruned multi-opening (`open_multi_batch`: the siblings of several indices, each sent
//! once, none that the verifier recomputes), in Plonky3's order, digest for digest.

use ntt_pcs::layers::{effective_cap_height, log2_ceil};
use ntt_verify::row_hash::Digest;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;

/// Layers of siblings a proof holds: every layer below the cap's.
pub(crate) fn proof_levels(layers: &[Vec<Digest>], cap_height: usize) -> usize {
    let below_root = layers.len().saturating_sub(1);
    below_root - effective_cap_height(layers.len(), cap_height)
}

/// Row `index` of the tallest matrix, reduced to each matrix's height, of every matrix.
pub(crate) fn opened_rows<M: Matrix<Poly64>>(matrices: &[M], index: usize) -> Vec<Vec<Poly64>> {
    let log_max = log2_ceil(matrices.iter().map(Matrix::height).max().unwrap_or(0));
    matrices
        .iter()
        .map(|m| {
            let row = index >> (log_max - log2_ceil(m.height()));
            m.row_slice(row)
                .expect("a reduced index is a row of its matrix")
                .to_vec()
        })
        .collect()
}

/// The sibling of `index` at each layer below the cap, leaves first.
pub(crate) fn siblings(layers: &[Vec<Digest>], cap_height: usize, index: usize) -> Vec<Digest> {
    (0..proof_levels(layers, cap_height))
        .map(|layer| layers[layer][(index >> layer) ^ 1])
        .collect()
}

/// The siblings of the distinct `indices` that no queried node covers, layer by layer from the
/// leaves, each layer in increasing node order: Plonky3's `PrunedMerklePaths` of a binary tree.
pub(crate) fn pruned_siblings(layers: &[Vec<Digest>], cap_height: usize, indices: &[usize]) -> Vec<Digest> {
    let mut frontier: Vec<usize> = indices.to_vec();
    frontier.sort_unstable();
    frontier.dedup();
    let mut out = Vec::new();
    for layer in &layers[..proof_levels(layers, cap_height)] {
        let mut parents = Vec::with_capacity(frontier.len());
        let mut i = 0;
        while i < frontier.len() {
            let pair = frontier[i] & !1;
            let has = |node: usize, i: usize| frontier.get(i) == Some(&node);
            // A child the frontier holds is recomputed by the verifier; the other is sent.
            let mut next = i;
            for node in [pair, pair + 1] {
                if has(node, next) {
                    next += 1;
                } else {
                    out.push(layer[node]);
                }
            }
            parents.push(pair / 2);
            i = next;
        }
        frontier = parents;
    }
    out
}
