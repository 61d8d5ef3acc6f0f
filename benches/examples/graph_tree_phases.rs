//! Times the reduction-tree graph of the runtime bench (`runtime/fork_join`, `ntt_graph_tree`)
//! in its two phases, which criterion sees only together: the build on the calling thread, and
//! the run on the pool; beside it, `TaskContext::join` over the same leaves.
//!
//! `cargo run --release -p ntt-benches --example graph_tree_phases -- [LOG_LEAVES] [RUNS]`
//! (default 20 and 15; `NTT_BENCH_THREADS` sets the workers, as in the bench). Prints the
//! medians of the build, of the run and of the whole, and the whole over `join`.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use ntt_benches::Samples;
use ntt_benches::trees::{graph_tree, join_tree, tree_sum};
use ntt_runtime::ThreadPoolBuilder;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u32>());
    let log_leaves = args
        .next()
        .transpose()
        .expect("LOG_LEAVES: a number")
        .unwrap_or(20);
    let runs = args
        .next()
        .transpose()
        .expect("RUNS: a number")
        .unwrap_or(15)
        .max(1);
    let threads = std::env::var("NTT_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let leaves = 1u64 << log_leaves;
    let sums: Vec<AtomicU64> = (0..2 * leaves).map(|_| AtomicU64::new(0)).collect();
    let (mut build, mut run, mut whole, mut join) = (
        Samples::default(),
        Samples::default(),
        Samples::default(),
        Samples::default(),
    );
    // One more run than counted: the first faults in the graph's arrays.
    for r in 0..=runs {
        let start = Instant::now();
        let mut built = start;
        assert_eq!(
            graph_tree(&pool, log_leaves, &sums, || built = Instant::now()),
            tree_sum(leaves)
        );
        let end = Instant::now();
        let joined = pool.join(|c| join_tree(c, 0, leaves), |_| 0).0;
        let join_end = Instant::now();
        assert_eq!(joined, tree_sum(leaves));
        if r > 0 {
            build.secs.push((built - start).as_secs_f64());
            run.secs.push((end - built).as_secs_f64());
            whole.secs.push((end - start).as_secs_f64());
            join.secs.push((join_end - end).as_secs_f64());
        }
    }
    let ms = |s: &Samples| s.median() * 1e3;
    let (whole, join) = (ms(&whole), ms(&join));
    println!(
        "2^{log_leaves} leaves, {} workers, medians of {runs}: graph tree {whole:.2} ms \
         (build {:.2}, run {:.2}), join {join:.2} ms, graph / join {:.2}",
        pool.num_workers(),
        ms(&build),
        ms(&run),
        whole / join
    );
}
