//! Runs started from inside tasks: the waiting worker keeps executing other tasks.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{pool, watchdog};
use ntt_runtime::{PinPolicy, ThreadPool};

fn nested_sum(pool: &ThreadPool, depth: u32, fanout: usize, count: &AtomicUsize) {
    if depth == 0 {
        count.fetch_add(1, Ordering::Relaxed);
        return;
    }
    pool.run(|g| {
        for _ in 0..fanout {
            g.add(move |ctx| nested_sum(ctx.pool(), depth - 1, fanout, count));
        }
    });
}

#[test]
fn nested_runs_complete_on_every_pool_size() {
    watchdog(60, || {
        for workers in [1, 2, 8] {
            let pool = pool(workers, PinPolicy::None);
            let count = AtomicUsize::new(0);
            nested_sum(&pool, 5, 4, &count);
            assert_eq!(count.load(Ordering::Relaxed), 4usize.pow(5), "{workers} workers");
        }
    });
}

#[test]
fn a_single_worker_runs_a_nested_graph_while_it_waits() {
    // With one worker, the only way the inner graph can run is on the worker that waits for it.
    watchdog(30, || {
        let pool = pool(1, PinPolicy::None);
        let inner_ran = AtomicUsize::new(0);
        pool.run(|g| {
            g.add(|ctx| {
                ctx.pool().for_each(0..64, 1, |_, inner_ctx| {
                    assert_eq!(inner_ctx.worker_index(), 0);
                    inner_ran.fetch_add(1, Ordering::Relaxed);
                });
            });
        });
        assert_eq!(inner_ran.load(Ordering::Relaxed), 64);
    });
}

#[test]
fn nested_scratch_borrows_do_not_alias() {
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        pool.for_each(0..16, 1, |r, ctx| {
            ctx.with_scratch(1000, |outer| {
                assert_eq!(outer.as_ptr() as usize % 64, 0);
                outer.fill(r.start as u64);
                // While `outer` is held, a nested run may execute tasks on this same worker.
                ctx.pool().for_each(0..8, 1, |_, inner_ctx| {
                    inner_ctx.with_scratch(2000, |inner| {
                        assert_eq!(inner.len(), 2000);
                        assert_eq!(inner.as_ptr() as usize % 64, 0);
                        inner.fill(u64::MAX);
                    });
                });
                assert!(outer.iter().all(|&x| x == r.start as u64), "scratch was aliased");
            });
        });
    });
}

#[test]
fn the_pool_can_be_shared_between_threads() {
    watchdog(60, || {
        let pool = std::sync::Arc::new(pool(2, PinPolicy::None));
        let total = std::sync::Arc::new(AtomicUsize::new(0));
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let (pool, total) = (pool.clone(), total.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        pool.for_each(0..10, 1, |_, _| {
                            total.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().expect("caller");
        }
        assert_eq!(total.load(Ordering::Relaxed), 4 * 200 * 10);
    });
}
