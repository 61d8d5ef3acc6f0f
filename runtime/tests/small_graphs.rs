//! A reduced set of scheduler checks small enough for Miri (`scripts/miri.sh`): a few small
//! graphs, a panic, a nested run, scratch nesting and non-trivially-sized closures. The pools
//! use the default topology, so nothing here calls into hwloc or sysfs.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::default_topology_pool as pool;
use ntt_runtime::TaskId;

#[test]
fn diamond_and_fan_out_run_in_order() {
    let pool = pool(3);
    let order = std::sync::Mutex::new(Vec::new());
    let log = |i: usize| order.lock().expect("log").push(i);
    pool.run(|g| {
        let a = g.add(move |_| log(0));
        let b = g.add(move |_| log(1));
        let c = g.add(move |_| log(2));
        let d = g.add(move |_| log(3));
        g.depend(a, b);
        g.depend(a, c);
        g.depend(b, d);
        g.depend(c, d);
    });
    let order = order.into_inner().expect("log");
    assert_eq!(order.len(), 4);
    assert_eq!(order[0], 0);
    assert_eq!(order[3], 3);

    // The same diamond with `add_after`, plus a task after all four (one listed twice), and
    // more tasks than a word of root bits.
    let order = std::sync::Mutex::new(Vec::new());
    let log = |i: usize| order.lock().expect("log").push(i);
    pool.run(|g| {
        let roots: Vec<TaskId> = (0..70).map(|i| g.add(move |_| log(100 + i))).collect();
        let a = g.add_after([roots[69]], move |_| log(0));
        let b = g.add_after([a], move |_| log(1));
        let c = g.add_after([a], move |_| log(2));
        let d = g.add_after([b, c], move |_| log(3));
        g.add_after([a, b, c, d, d], move |_| log(4));
        assert_eq!(g.dependency_count(), 10);
    });
    let order = order.into_inner().expect("log");
    assert_eq!(order.len(), 75);
    let at = |i: usize| order.iter().position(|&x| x == i).expect("ran");
    assert!(at(169) < at(0) && at(0) < at(1) && at(0) < at(2));
    assert!(at(1) < at(3) && at(2) < at(3) && at(3) < at(4));

    let hits: Vec<AtomicUsize> = (0..20).map(|_| AtomicUsize::new(0)).collect();
    pool.for_each(0..20, 3, |r, _| {
        for i in r {
            hits[i].fetch_add(1, Ordering::Relaxed);
        }
    });
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
}

#[test]
fn closures_of_every_size_and_alignment_are_moved_and_dropped_once() {
    #[repr(align(128))]
    struct Big([u8; 300]);
    let pool = pool(2);
    let dropped = AtomicUsize::new(0);
    struct CountDrop<'a>(&'a AtomicUsize);
    impl Drop for CountDrop<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let sum = AtomicUsize::new(0);
    pool.run(|g| {
        for i in 0..40 {
            let big = Big([i as u8; 300]);
            let guard = CountDrop(&dropped);
            let sum = &sum;
            g.add(move |_| {
                let _guard = guard;
                sum.fetch_add(big.0[299] as usize, Ordering::Relaxed);
            });
            g.add(move |_| {
                sum.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(sum.load(Ordering::Relaxed), (0..40).sum::<usize>() + 40);
    assert_eq!(dropped.load(Ordering::Relaxed), 40);

    // A graph that never runs (cycle) drops its closures without calling them.
    let result = pool.try_run(|g| {
        let a = g.add({
            let guard = CountDrop(&dropped);
            move |_| drop(guard)
        });
        g.depend(a, a);
    });
    assert!(result.is_err());
    assert_eq!(dropped.load(Ordering::Relaxed), 41);
}

#[test]
fn a_panic_skips_successors_and_the_pool_survives() {
    let pool = pool(2);
    let ran = AtomicUsize::new(0);
    let err = pool
        .try_run(|g| {
            let bad = g.add(|_| panic!("expected"));
            let after = g.add(|_| {
                ran.fetch_add(1, Ordering::Relaxed);
            });
            g.depend(bad, after);
        })
        .expect_err("panic");
    assert_eq!(err.message(), Some("expected"));
    assert_eq!(ran.load(Ordering::Relaxed), 0);
    pool.run(|g| {
        g.add(|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
    });
    assert_eq!(ran.load(Ordering::Relaxed), 1);
}

#[test]
fn nested_runs_and_scratch_do_not_alias() {
    let pool = pool(2);
    let total = AtomicUsize::new(0);
    pool.run(|g| {
        let ids: Vec<TaskId> = (0..4)
            .map(|i| {
                let total = &total;
                g.add(move |ctx| {
                    ctx.with_scratch(16, |outer| {
                        outer.fill(i);
                        ctx.pool().for_each(0..3, 1, |_, inner_ctx| {
                            inner_ctx.with_scratch(32, |inner| inner.fill(99));
                            total.fetch_add(1, Ordering::Relaxed);
                        });
                        assert!(outer.iter().all(|&x| x == i));
                    });
                })
            })
            .collect();
        g.depend(ids[0], ids[3]);
    });
    assert_eq!(total.load(Ordering::Relaxed), 12);
}

/// An installed job runs on a worker: its loops and graphs run nested there (both workers
/// take part), its value comes back, and its panic reaches the caller with the pool intact.
#[test]
fn an_installed_job_runs_its_loops_nested_and_returns_or_panics() {
    let pool = pool(2);
    let caller = std::thread::current().id();
    let total = AtomicUsize::new(0);
    let (on, sum) = pool.install(|| {
        pool.for_each(0..8, 1, |r, _| {
            total.fetch_add(r.len(), Ordering::Relaxed);
        });
        let mut pair = (0, 0);
        pool.run(|g| {
            let a = g.add(|_| pair.0 = 1);
            let b = g.add(|ctx| ctx.pool().for_each(0..4, 1, |_, _| {}));
            g.depend(a, b);
        });
        (std::thread::current().id(), pair.0 + pool.join(|_| 2, |_| 3).1)
    });
    assert_ne!(on, caller, "the job ran on the calling thread");
    assert_eq!((total.load(Ordering::Relaxed), sum), (8, 4));
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| -> u32 { panic!("installed job failed") })
    }));
    let payload = caught.expect_err("the panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"installed job failed"));
    assert_eq!(pool.install(|| 7), 7, "the pool still runs jobs");
}

#[test]
fn pools_start_and_stop_cleanly() {
    for n in [1, 2, 4] {
        let pool = pool(n);
        assert_eq!(pool.num_workers(), n);
        pool.run(|g| {
            g.add(|ctx| assert!(ctx.worker_index() < n));
        });
    }
}
