//! The reduction tree as a task graph and as `join` recursion, shared by the runtime bench and
//! the example that times the graph's build and run apart (`examples/graph_tree_phases.rs`), so
//! both time the same code.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use ntt_runtime::{TaskContext, ThreadPool};

/// Leaf `i`'s value.
pub fn leaf(i: u64) -> u64 {
    black_box(i) * 3 + 1
}

/// The sum of every leaf of a tree with `leaves` leaves.
pub fn tree_sum(leaves: u64) -> u64 {
    (0..leaves).map(|i| i * 3 + 1).sum()
}

/// The reduction tree over leaves `lo..hi` as `TaskContext::join` recursion (the graph tree's
/// baseline): the sum of their values.
pub fn join_tree(ctx: &TaskContext<'_>, lo: u64, hi: u64) -> u64 {
    if hi - lo == 1 {
        return leaf(lo);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = ctx.join(|c| join_tree(c, lo, mid), |c| join_tree(c, mid, hi));
    a + b
}

/// The reduction tree over `2^log_leaves` leaves as one graph of `2^(log_leaves + 1) - 1` tasks:
/// node k (heap order, root 1) stores the sum of its subtree in `sums[k]` once its two children
/// have. `sums` (`2^(log_leaves + 1)` words) is the caller's, so that a loop of runs times the
/// runtime rather than the page faults of a fresh array. Leaves are added first, then internal
/// nodes bottom-up, so every node's children exist when it is added; the ids follow from the
/// heap order and are computed, not stored. `built` is called as the build ends, before any
/// task runs. Returns the root's sum.
///
/// # Panics
/// If `sums` does not have `2^(log_leaves + 1)` words.
pub fn graph_tree(pool: &ThreadPool, log_leaves: u32, sums: &[AtomicU64], built: impl FnOnce()) -> u64 {
    let leaves = 1usize << log_leaves;
    assert_eq!(sums.len(), 2 * leaves, "one sum per heap node");
    sums[1].store(0, Ordering::Relaxed);
    pool.run(|g| {
        for (i, slot) in sums[leaves..].iter().enumerate() {
            g.add(move |_| slot.store(leaf(i as u64), Ordering::Relaxed));
        }
        let id_of = |k: usize| {
            if k >= leaves {
                k - leaves
            } else {
                2 * leaves - 1 - k
            }
        };
        for k in (1..leaves).rev() {
            let id = g.add(move |_| {
                let s = sums[2 * k].load(Ordering::Relaxed) + sums[2 * k + 1].load(Ordering::Relaxed);
                sums[k].store(s, Ordering::Relaxed);
            });
            debug_assert_eq!(id.index(), id_of(k));
            for child in [2 * k, 2 * k + 1] {
                let child = g.task_id(id_of(child)).expect("children are added first");
                g.depend(child, id);
            }
        }
        built();
    });
    sums[1].load(Ordering::Relaxed)
}

/// The same reduction tree built depth-first, as a streaming builder adds it: leaf by leaf,
/// each node as soon as its two children exist (post-order), so a node's children sit just
/// before it and `sums` is indexed by task index (`2^(log_leaves + 1) - 1` words). The run
/// then walks the arrays nearly in order, as `join`'s recursion walks its stack. `built` is
/// called as the build ends. Returns the root's sum.
///
/// # Panics
/// If `sums` does not have `2^(log_leaves + 1) - 1` words.
pub fn graph_tree_depth_first(
    pool: &ThreadPool,
    log_leaves: u32,
    sums: &[AtomicU64],
    built: impl FnOnce(),
) -> u64 {
    let leaves = 1usize << log_leaves;
    assert_eq!(sums.len(), 2 * leaves - 1, "one sum per task");
    let root = sums.len() - 1;
    sums[root].store(0, Ordering::Relaxed);
    pool.run(|g| {
        for i in 0..leaves {
            let slot = &sums[g.len()];
            g.add(move |_| slot.store(leaf(i as u64), Ordering::Relaxed));
            // Leaf `i` completes one subtree per trailing one bit of `i`, the one of 2^h
            // leaves at height h. Its root comes next: its right child's root just before it,
            // its left child's 2^h - 1 tasks (the right subtree) before that.
            for h in 1..=(!i).trailing_zeros().min(log_leaves) {
                let k = g.len();
                let (left, right) = (k - (1 << h), k - 1);
                let (Some(l), Some(r)) = (g.task_id(left), g.task_id(right)) else {
                    unreachable!("both children were added")
                };
                // The subtree's own sums, from its left child's to its root's. One slice keeps
                // the closure small enough to live inline.
                let span = &sums[left..=k];
                g.add_after([l, r], move |_| {
                    let [.., r, k] = span else {
                        unreachable!("a span holds both children and the root")
                    };
                    k.store(
                        span[0].load(Ordering::Relaxed) + r.load(Ordering::Relaxed),
                        Ordering::Relaxed,
                    );
                });
            }
        }
        built();
    });
    sums[root].load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_runtime::ThreadPoolBuilder;

    #[test]
    fn the_graph_tree_sums_every_leaf() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
        for log in [0, 1, 5, 12] {
            let sums: Vec<AtomicU64> = (0..2usize << log).map(|_| AtomicU64::new(0)).collect();
            let mut built = false;
            assert_eq!(graph_tree(&pool, log, &sums, || built = true), tree_sum(1 << log));
            assert!(built);
            let sums: Vec<AtomicU64> = (0..(2usize << log) - 1).map(|_| AtomicU64::new(0)).collect();
            assert_eq!(
                graph_tree_depth_first(&pool, log, &sums, || {}),
                tree_sum(1 << log)
            );
            assert_eq!(
                pool.join(|c| join_tree(c, 0, 1 << log), |_| 0).0,
                tree_sum(1 << log)
            );
        }
    }
}
