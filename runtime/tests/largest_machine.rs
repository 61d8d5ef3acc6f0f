//! The largest machine the engine describes is laid out promptly: reading it, numbering its
//! cores and caches, placing a worker on every PU, their budgets and steal orders. The machine
//! is a synthetic description, built with or without the `hwloc` feature.

use ntt_runtime::{MAX_PUS, Topology, WorkerLayout};
use std::time::{Duration, Instant};

/// Times `f`, printing the step's name and time.
fn timed<T>(what: &str, f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    let took = started.elapsed();
    eprintln!("{what}: {took:?}");
    (out, took)
}

/// Generous for a loaded 2-core CI machine: the point is that the work grows about linearly,
/// where it grew quadratically (4.9 s for the defaults of 16,000 PUs).
const BOUND: Duration = Duration::from_secs(5);

#[test]
fn the_largest_allowed_machine_lays_out_promptly() {
    // 4 packages × 2 NUMA nodes × 4 L3s × 128 cores × 2 PUs.
    let description = "pack:4 numa:2 l3:4(size=32MiB) l2:128(size=1MiB) l1d:1(size=48KiB) core:1 pu:2";
    let (topology, read) = timed("synthetic", || {
        Topology::from_hwloc_synthetic(description, None).expect("builds")
    });
    assert_eq!(topology.pus.len(), MAX_PUS);
    assert_eq!(topology.cores, MAX_PUS / 2);
    let (layout, laid_out) = timed("layout", || WorkerLayout::new(&topology, MAX_PUS, None));
    assert_eq!(layout.placements.len(), MAX_PUS);
    let mut cpus: Vec<usize> = layout.placements.iter().map(|p| p.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    assert_eq!(cpus.len(), MAX_PUS, "one worker per PU");
    let (defaults, made) = timed("defaults", || Topology::with_defaults(MAX_PUS));
    let (flat, flat_laid_out) = timed("defaults layout", || WorkerLayout::new(&defaults, MAX_PUS, None));
    assert_eq!(flat.budgets.len(), MAX_PUS);
    for took in [read, laid_out, made, flat_laid_out] {
        assert!(took < BOUND, "took {took:?}");
    }
}
