//! Times the reduction-tree graphs of the runtime bench (`runtime/fork_join`, `ntt_graph_tree`
//! and `ntt_graph_tree_depth_first`) in their two phases, which criterion sees only together:
//! the build on the calling thread, and the run on the pool; beside them, `TaskContext::join`
//! over the same leaves. The three are interleaved, run by run.
//!
//! `cargo run --release -p ntt-benches --example graph_tree_phases -- [LOG_LEAVES] [RUNS]`
//! (default 20 and 15; `NTT_BENCH_THREADS` sets the workers, as in the bench). Prints, for
//! each build order, the medians of the build, of the run and of the whole, and the whole
//! over `join`.

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use ntt_benches::Samples;
use ntt_benches::trees::{graph_tree, graph_tree_depth_first, join_tree, tree_sum};
use ntt_runtime::{ThreadPool, ThreadPoolBuilder};

/// The build, run and whole times of one build order.
#[derive(Default)]
struct Phases {
    build: Samples,
    run: Samples,
    whole: Samples,
}

impl Phases {
    /// Times one tree: `tree(built)` must call `built` as its build ends.
    fn time(&mut self, record: bool, tree: impl FnOnce(&mut dyn FnMut()) -> u64, expect: u64) {
        let start = Instant::now();
        let mut built = start;
        assert_eq!(tree(&mut || built = Instant::now()), expect);
        let end = Instant::now();
        if record {
            self.build.secs.push((built - start).as_secs_f64());
            self.run.secs.push((end - built).as_secs_f64());
            self.whole.secs.push((end - start).as_secs_f64());
        }
    }
}

fn ms(s: &Samples) -> f64 {
    s.median() * 1e3
}

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
    let expect = tree_sum(leaves);
    let heap_sums: Vec<AtomicU64> = (0..2 * leaves).map(|_| AtomicU64::new(0)).collect();
    let post_sums: Vec<AtomicU64> = (0..2 * leaves - 1).map(|_| AtomicU64::new(0)).collect();
    let (mut heap, mut depth_first, mut join) = (Phases::default(), Phases::default(), Samples::default());
    // One more run than counted: the first faults in the graphs' arrays.
    for r in 0..=runs {
        let record = r > 0;
        heap.time(
            record,
            |built| graph_tree(&pool, log_leaves, &heap_sums, built),
            expect,
        );
        depth_first.time(
            record,
            |built| graph_tree_depth_first(&pool, log_leaves, &post_sums, built),
            expect,
        );
        let start = Instant::now();
        assert_eq!(pool.join(|c| join_tree(c, 0, leaves), |_| 0).0, expect);
        if record {
            join.secs.push(start.elapsed().as_secs_f64());
        }
    }
    report(&pool, log_leaves, runs, "heap order", &heap, &join);
    report(&pool, log_leaves, runs, "depth-first", &depth_first, &join);
}

fn report(pool: &ThreadPool, log_leaves: u32, runs: u32, order: &str, p: &Phases, join: &Samples) {
    let (whole, join) = (ms(&p.whole), ms(join));
    println!(
        "2^{log_leaves} leaves, {} workers, medians of {runs}, {order}: graph tree {whole:.2} ms \
         (build {:.2}, run {:.2}), join {join:.2} ms, graph / join {:.2}",
        pool.num_workers(),
        ms(&p.build),
        ms(&p.run),
        whole / join
    );
}
