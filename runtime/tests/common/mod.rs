//! Helpers shared by the runtime's integration tests.
#![allow(
    dead_code,
    reason = "each test binary uses a different part (so not `expect`)"
)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use ntt_runtime::{
    Graph, Grower, PinPolicy, RunError, TaskContext, TaskId, ThreadPool, ThreadPoolBuilder, Topology,
};
use rand::RngExt;
use rand::rngs::ChaCha8Rng;

/// Runs `f` on its own thread and fails the test if it has not finished within `secs` seconds,
/// so a scheduler hang shows up as a failure instead of a stalled test run.
pub(crate) fn watchdog<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(r) => {
            handle.join().expect("watched thread");
            r
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // `f` panicked: re-raise its panic here.
            match handle.join() {
                Err(p) => std::panic::resume_unwind(p),
                Ok(()) => unreachable!("sender dropped without sending"),
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("watchdog: not finished after {secs} s (hang or deadlock)")
        }
    }
}

/// A pool of `n` workers on the documented default topology of `n` PUs (independent of the
/// machine, so placement is deterministic), unpinned unless `pin` says otherwise.
pub(crate) fn pool(n: usize, pin: PinPolicy) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .pin(pin)
        .topology(Topology::detect())
        .build()
        .expect("pool")
}

/// A pool of `n` unpinned workers on the default topology: nothing calls into hwloc or sysfs,
/// so Miri can run it.
pub(crate) fn default_topology_pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .pin(PinPolicy::None)
        .topology(Topology::with_defaults(n))
        .build()
        .expect("pool")
}

/// A binary tree grown one task per node (node `i`'s children are `2i + 1` and `2i + 2`):
/// each node adds its two children and a task that runs after both and checks they ran.
pub(crate) fn grow_tree<'s>(
    i: usize,
    depth: u32,
    ran: &'s [AtomicBool],
    joins: &'s AtomicUsize,
    grow: &Grower<'_, 's>,
) {
    if depth > 0 {
        let children: Vec<TaskId> = (1..=2)
            .map(|c| {
                grow.add(move |_: &TaskContext<'_>, grow: &Grower<'_, 's>| {
                    grow_tree(2 * i + c, depth - 1, ran, joins, grow)
                })
            })
            .collect();
        grow.add_after(&children, move |_, _| {
            assert!(
                ran[2 * i + 1].load(Ordering::Relaxed) && ran[2 * i + 2].load(Ordering::Relaxed),
                "a join ran before its children"
            );
            joins.fetch_add(1, Ordering::Relaxed);
        });
    }
    assert!(!ran[i].swap(true, Ordering::Relaxed), "node {i} ran twice");
}

/// A random DAG of fewer than `max_tasks` tasks where about one task in `panic_one_in` panics;
/// runs it through `run_on` and checks that every task ran at most once, that the reported panic
/// is one that happened, and that no successor of a task that panicked ran.
pub(crate) fn random_dag_with_panics(
    rng: &mut ChaCha8Rng,
    max_tasks: usize,
    panic_one_in: u32,
    run_on: impl for<'t> Fn(&mut (dyn FnMut(&mut Graph<'t>) + Send + 't)) -> Result<(), RunError>,
) {
    let n = rng.random_range(1..max_tasks);
    let panicking: Vec<bool> = (0..n).map(|_| rng.random_ratio(1, panic_one_in)).collect();
    let edges: Vec<(usize, usize)> = (1..n)
        .flat_map(|j| {
            let k = rng.random_range(0..3);
            (0..k).map(|_| (rng.random_range(0..j), j)).collect::<Vec<_>>()
        })
        .collect();
    let ran: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    let result = run_on(&mut |g: &mut Graph<'_>| {
        let ids: Vec<TaskId> = (0..n)
            .map(|t| {
                let (ran, bad) = (&ran, panicking[t]);
                g.add(move |_| {
                    ran[t].fetch_add(1, Ordering::Relaxed);
                    if bad {
                        panic!("task {t}");
                    }
                })
            })
            .collect();
        for &(a, b) in &edges {
            g.depend(ids[a], ids[b]);
        }
    });
    let ran: Vec<usize> = ran.iter().map(|r| r.load(Ordering::Relaxed)).collect();
    assert!(ran.iter().all(|&r| r <= 1), "a task ran twice");
    let panicked: Vec<usize> = (0..n).filter(|&t| panicking[t] && ran[t] == 1).collect();
    match result {
        Ok(()) => assert!(panicked.is_empty()),
        Err(e) => {
            let msg = e.message().expect("string payload").to_owned();
            assert!(panicked.iter().any(|t| msg == format!("task {t}")), "{msg}");
        }
    }
    // A task whose predecessor panicked never runs.
    for &(a, b) in &edges {
        if panicking[a] && ran[a] == 1 {
            assert_eq!(ran[b], 0, "successor {b} of panicked {a} ran");
        }
    }
}
