//! Openings: the opened rows' chunks plus the sibling chaining values that lead to the root.
//!
//! An opening of rows `R` carries every BLAKE3 chunk that holds a byte of a row in `R` (whole
//! chunks, so the opened rows come with the neighbouring bytes their chunks need), in increasing
//! chunk order, each chunk once. The verifier hashes those chunks and folds them up to the root
//! level by level; whenever a node is known but its sibling is not, the opening supplies the
//! sibling's chaining value. Siblings appear in that fold order (level by level from the chunks
//! up, left to right within a level), so a sibling shared by several rows is sent once.

use blake3::hazmat::ChainingValue;
use serde::{Deserialize, Serialize};

use crate::hex_serde;
use crate::node::{parent_cv, root_hash};
use crate::tree::{CHUNK_BYTES, TreeShape};

/// A proof that some rows belong to a committed codeword. Serializes with serde (bytes as hex)
/// and in the compact binary format of `docs/FORMAT.md` ([`Opening::to_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    pub(crate) log_rows: u32,
    pub(crate) lanes: u64,
    /// The row indices the opening was made for, in the order asked.
    pub(crate) rows: Vec<u64>,
    /// The opened chunks' bytes, concatenated in increasing chunk order.
    #[serde(with = "hex_serde::bytes")]
    pub(crate) chunks: Vec<u8>,
    /// Sibling chaining values in fold order.
    #[serde(with = "hex_serde::digests")]
    pub(crate) siblings: Vec<[u8; 32]>,
}

impl Opening {
    /// An opening from its parts, as a prover makes it (see `ntt_pcs::ProverData::open`):
    /// the codeword's shape, the rows asked, the opened chunks' bytes in increasing chunk order
    /// and the sibling chaining values in fold order. Nothing is checked here; [`verify`] checks
    /// everything.
    ///
    /// [`verify`]: crate::verify
    pub fn new(log_rows: u32, lanes: u64, rows: Vec<u64>, chunks: Vec<u8>, siblings: Vec<[u8; 32]>) -> Self {
        Self {
            log_rows,
            lanes,
            rows,
            chunks,
            siblings,
        }
    }

    /// Base-2 log of the number of rows of the codeword the opening was made for.
    pub fn log_rows(&self) -> u32 {
        self.log_rows
    }

    /// Words per row of the codeword the opening was made for.
    pub fn lanes(&self) -> u64 {
        self.lanes
    }

    /// The row indices the opening was made for, in the order asked.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// The opened chunks' bytes.
    pub fn chunk_bytes(&self) -> &[u8] {
        &self.chunks
    }

    /// The sibling chaining values.
    pub fn siblings(&self) -> &[[u8; 32]] {
        &self.siblings
    }
}

/// The distinct chunks holding the bytes of some rows: sorted, merged runs of chunk indices, so
/// a row of many chunks costs one run (a verifier sizes it before trusting any proof length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkSet {
    /// Disjoint, non-adjacent `[start, end)` runs in increasing order.
    runs: Vec<(u64, u64)>,
    /// Chunks in the runs before each run.
    before: Vec<u64>,
}

impl ChunkSet {
    /// The chunks of `rows`, each row `row_bytes` long; `None` when `row_bytes` is 0 or a row's
    /// bytes would end past `u64::MAX`.
    pub fn of_rows(row_bytes: u64, rows: impl IntoIterator<Item = u64>) -> Option<Self> {
        if row_bytes == 0 {
            return None;
        }
        let mut spans: Vec<(u64, u64)> = rows
            .into_iter()
            .map(|row| {
                let start = row.checked_mul(row_bytes)?;
                let last = start.checked_add(row_bytes - 1)?;
                Some((start / CHUNK_BYTES, last / CHUNK_BYTES + 1))
            })
            .collect::<Option<_>>()?;
        spans.sort_unstable();
        let mut runs: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            match runs.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => runs.push((start, end)),
            }
        }
        // Disjoint runs of chunk indices below 2^54: every sum below stays below 2^54.
        let before = runs
            .iter()
            .scan(0, |sum, &(a, b)| {
                let at = *sum;
                *sum += b - a;
                Some(at)
            })
            .collect();
        Some(Self { runs, before })
    }

    /// Number of chunks.
    pub fn count(&self) -> u64 {
        self.runs.iter().map(|(a, b)| b - a).sum()
    }

    /// Total bytes of the chunks in a tree of this shape (only the last chunk may be short);
    /// `None` when some chunk lies past the tree's end.
    pub fn byte_len(&self, shape: &TreeShape) -> Option<u64> {
        let Some(&(_, end)) = self.runs.last() else {
            return Some(0);
        };
        if end > shape.chunks() {
            return None;
        }
        // Within the tree, so at most `shape.chunks()` ≤ 2^54 chunks: whole chunks before the
        // last one of the tree cannot overflow, and the tree's last chunk adds its own length.
        let count = self.count();
        Some(if end == shape.chunks() {
            let last_start = (shape.chunks() - 1) * CHUNK_BYTES;
            (count - 1) * CHUNK_BYTES + (shape.len() - last_start)
        } else {
            count * CHUNK_BYTES
        })
    }

    /// The chunk indices in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs.iter().flat_map(|&(a, b)| a..b)
    }

    /// Position of chunk `c` in increasing order; `None` when `c` is not in the set.
    pub fn position(&self, c: u64) -> Option<u64> {
        let run = self.runs.partition_point(|&(_, end)| end <= c);
        let &(start, end) = self.runs.get(run)?;
        (start..end).contains(&c).then(|| self.before[run] + (c - start))
    }
}

/// Folds the chaining values of the opened chunks (`nodes`, as `(chunk index, chaining value)`)
/// up to the root of a tree with at least two chunks. `sibling(h, i)` supplies each missing
/// sibling, in proof order.
///
/// Returns `Ok(None)` when the arguments do not describe such a fold: a tree of one chunk (its
/// root is the plain hash of the chunk), no nodes, nodes not in strictly increasing order, or a
/// node past the last chunk.
///
/// # Errors
/// The first error `sibling` returns.
pub fn fold_root<E>(
    shape: &TreeShape,
    mut nodes: Vec<(u64, ChainingValue)>,
    mut sibling: impl FnMut(u32, u64) -> Result<ChainingValue, E>,
) -> Result<Option<[u8; 32]>, E> {
    let top = shape.top();
    let increasing = nodes.windows(2).all(|pair| pair[0].0 < pair[1].0);
    let in_tree = nodes.last().is_some_and(|&(last, _)| last < shape.chunks());
    if top == 0 || !increasing || !in_tree {
        return Ok(None);
    }
    // Every level below keeps the nodes strictly increasing and within the level, so the fold
    // ends at the root's merge.
    for h in 0..top {
        let len = shape.chunks().div_ceil(1u64 << h);
        let mut parents = Vec::with_capacity(nodes.len().div_ceil(2));
        let mut k = 0;
        while k < nodes.len() {
            let (i, cv) = nodes[k];
            k += 1;
            let (left, right) = if i % 2 == 1 {
                (sibling(h, i - 1)?, cv)
            } else if k < nodes.len() && nodes[k].0 == i + 1 {
                k += 1;
                (cv, nodes[k - 1].1)
            } else if i + 1 >= len {
                parents.push((i / 2, cv)); // no right child: promoted
                continue;
            } else {
                (cv, sibling(h, i + 1)?)
            };
            if h + 1 == top {
                return Ok(Some(root_hash(&left, &right)));
            }
            parents.push((i / 2, parent_cv(&left, &right)));
        }
        nodes = parents;
    }
    // Not reached for valid arguments (the root has two children); kept total all the same.
    Ok(None)
}
