//! Loops whose ranges split on demand: every index is visited exactly once in grain-aligned
//! pieces, on any number of workers, inline, nested and across pools; panics reach the caller.

mod common;

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use common::{pool, watchdog};
use ntt_runtime::{PinPolicy, ThreadPool};

fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// Runs `for_each` over `start..start + len` and checks every index is visited once,
/// in sub-ranges of at most `grain` that start on a grain boundary.
fn check_cover(pool: &ThreadPool, start: usize, len: usize, grain: usize) {
    let g = grain.max(1);
    let hits: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
    pool.for_each(start..start + len, grain, |r, _| {
        assert!(!r.is_empty() && r.len() <= g, "{r:?} with grain {g}");
        assert_eq!((r.start - start) % g, 0, "{r:?} not on a grain boundary");
        assert!(
            r.len() == g || r.end == start + len,
            "a short piece before the end: {r:?}"
        );
        for i in r {
            hits[i - start].fetch_add(1, Ordering::Relaxed);
        }
    });
    for (i, h) in hits.iter().enumerate() {
        assert_eq!(h.load(Ordering::Relaxed), 1, "index {i} of {len}, grain {grain}");
    }
}

#[test]
fn every_index_is_visited_once_for_many_sizes_grains_and_workers() {
    watchdog(120, || {
        for workers in [1, 2, 3, 8] {
            let pool = pool(workers, PinPolicy::None);
            for len in [0, 1, 2, 3, 7, 64, 1000, 4097, 100_000] {
                for grain in [0, 1, 3, 64, 5000] {
                    check_cover(&pool, 0, len, grain);
                    check_cover(&pool, 12_345, len, grain);
                }
            }
        }
    });
}

#[test]
fn idle_workers_take_part() {
    // Grains that block (so this holds on a 2-core machine too): a worker that steals takes
    // half of what is left, so several workers run grains.
    watchdog(60, || {
        let pool = pool(4, PinPolicy::None);
        let workers = Mutex::new(HashSet::new());
        pool.for_each(0..64, 1, |_, ctx| {
            workers.lock().expect("workers").insert(ctx.worker_index());
            std::thread::sleep(Duration::from_millis(2));
        });
        let seen = workers.into_inner().expect("workers").len();
        assert!(seen >= 2, "only {seen} worker(s) ran grains");
    });
}

#[test]
fn a_panic_reaches_the_caller_and_stops_the_loop() {
    quiet_panics();
    watchdog(60, || {
        for workers in [1, 2, 4] {
            let pool = pool(workers, PinPolicy::None);
            let ran = AtomicUsize::new(0);
            let err = pool
                .try_for_each(0..10_000, 1, |r, _| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if r.start == 100 {
                        panic!("grain 100");
                    }
                    std::thread::sleep(Duration::from_micros(20));
                })
                .expect_err("panicked");
            assert_eq!(err.message(), Some("grain 100"));
            // Grains not yet started were skipped.
            assert!(ran.load(Ordering::Relaxed) < 10_000, "{workers} workers");
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.for_each(0..100, 7, |r, _| {
                    if r.contains(&50) {
                        panic!("re-raised");
                    }
                })
            }))
            .expect_err("for_each re-raises");
            assert_eq!(caught.downcast_ref::<&str>(), Some(&"re-raised"));
            // The pool is still usable.
            check_cover(&pool, 0, 1000, 3);
        }
    });
}

#[test]
fn a_one_worker_pool_and_an_inline_run_stay_on_one_thread() {
    watchdog(60, || {
        let one = pool(1, PinPolicy::None);
        let threads = Mutex::new(HashSet::new());
        one.for_each(0..10_000, 1, |_, _| {
            threads
                .lock()
                .expect("threads")
                .insert(std::thread::current().id());
        });
        assert_eq!(threads.lock().expect("threads").len(), 1);

        let two = pool(2, PinPolicy::None);
        let caller = std::thread::current().id();
        let elsewhere = AtomicUsize::new(0);
        let count = AtomicUsize::new(0);
        two.with_work_estimate(Duration::from_nanos(1), || {
            two.for_each(0..5000, 2, |r, _| {
                if std::thread::current().id() != caller {
                    elsewhere.fetch_add(1, Ordering::Relaxed);
                }
                count.fetch_add(r.len(), Ordering::Relaxed);
            });
        });
        assert_eq!(count.into_inner(), 5000);
        assert_eq!(elsewhere.into_inner(), 0);
    });
}

/// Inline on its caller, a loop runs its grains in order; a panic stops it there (the grains
/// after it are skipped) and comes back as the loop's error, and nested loops run inline too.
#[test]
fn an_inline_loop_runs_its_grains_in_order_and_stops_at_a_panic() {
    quiet_panics();
    watchdog(60, || {
        let pool = pool(2, PinPolicy::None);
        let seen = Mutex::new(Vec::new());
        pool.with_work_estimate(Duration::from_nanos(1), || {
            pool.for_each(3..13, 3, |r, ctx| {
                seen.lock().expect("seen").push(r.clone());
                ctx.pool().for_each(0..4, 1, |inner, _| {
                    seen.lock()
                        .expect("seen")
                        .push(100 + inner.start..100 + inner.end);
                });
            });
        });
        let inner: Vec<_> = (100..104).map(|i| i..i + 1).collect();
        let mut want = Vec::new();
        for r in [3..6, 6..9, 9..12, 12..13] {
            want.push(r);
            want.extend(inner.iter().cloned());
        }
        assert_eq!(*seen.lock().expect("seen"), want);

        let ran = Mutex::new(Vec::new());
        let result = pool.with_work_estimate(Duration::from_nanos(1), || {
            pool.try_for_each(0..10, 2, |r, _| {
                ran.lock().expect("ran").push(r.start);
                assert!(r.start != 4, "grain at 4 failed");
            })
        });
        let err = result.expect_err("the panic is the loop's error");
        assert_eq!(err.message(), Some("grain at 4 failed"));
        assert_eq!(*ran.lock().expect("ran"), [0, 2, 4], "grains after the panic ran");
        assert_eq!(pool.join(|_| 1, |_| 2), (1, 2), "the pool still runs");
    });
}

#[test]
fn nested_loops_and_loops_across_pools_complete() {
    watchdog(60, || {
        for (na, nb) in [(1, 1), (2, 1), (1, 2), (3, 2)] {
            let a = pool(na, PinPolicy::None);
            let b = pool(nb, PinPolicy::None);
            let count = AtomicUsize::new(0);
            a.for_each(0..20, 1, |_, _| {
                // Same pool, nested; then the other pool, which comes back to this one.
                a.for_each(0..10, 1, |r, _| {
                    count.fetch_add(r.len(), Ordering::Relaxed);
                });
                b.for_each(0..5, 1, |_, _| {
                    a.for_each(0..4, 1, |r, _| {
                        count.fetch_add(r.len(), Ordering::Relaxed);
                    });
                });
            });
            assert_eq!(count.into_inner(), 20 * (10 + 5 * 4), "{na} and {nb} workers");
        }
    });
}
