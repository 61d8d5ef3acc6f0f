//! Fork-join: results, recursion against a sequential reference, panics, use from outside.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{pool, watchdog};
use ntt_runtime::{PinPolicy, TaskContext};

fn tree_sum(ctx: &TaskContext<'_>, lo: u64, hi: u64) -> u64 {
    if hi - lo <= 1 {
        return if hi > lo { lo * lo } else { 0 };
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = ctx.join(|c| tree_sum(c, lo, mid), |c| tree_sum(c, mid, hi));
    a + b
}

#[test]
fn recursive_join_matches_the_sequential_sum() {
    watchdog(60, || {
        for workers in [1, 2, 8] {
            let pool = pool(workers, PinPolicy::None);
            for n in [0u64, 1, 2, 3, 1000, 1 << 16] {
                let (got, _) = pool.join(|c| tree_sum(c, 0, n), |_| ());
                assert_eq!(
                    got,
                    (0..n).map(|i| i * i).sum::<u64>(),
                    "{workers} workers, n={n}"
                );
            }
        }
    });
}

#[test]
fn join_panics_are_reraised_after_both_halves_finish() {
    std::panic::set_hook(Box::new(|_| {}));
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        for panic_in_a in [true, false] {
            let finished = AtomicUsize::new(0);
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.join(
                    |_| {
                        if panic_in_a {
                            panic!("a");
                        }
                        finished.fetch_add(1, Ordering::Relaxed);
                    },
                    |_| {
                        if !panic_in_a {
                            panic!("b");
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        finished.fetch_add(1, Ordering::Relaxed);
                    },
                )
            }))
            .expect_err("join must re-raise");
            let expect = if panic_in_a { "a" } else { "b" };
            assert_eq!(caught.downcast_ref::<&str>(), Some(&expect));
            assert_eq!(finished.load(Ordering::Relaxed), 1, "the other half finished");
        }
        // The pool still works, and for_each stops leaves after a panic without hanging.
        let ran = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.for_each(0..10_000, 1, |r, _| {
                ran.fetch_add(1, Ordering::Relaxed);
                if r.start == 17 {
                    panic!("leaf");
                }
            })
        }));
        assert!(result.is_err());
        assert!(ran.load(Ordering::Relaxed) >= 1);
    });
}

#[test]
fn join_inside_graph_tasks_and_nested_runs() {
    watchdog(30, || {
        let pool = pool(3, PinPolicy::None);
        let total = AtomicUsize::new(0);
        pool.run(|g| {
            for _ in 0..8 {
                g.add(|ctx| {
                    let (x, y) = ctx.join(
                        |c| {
                            c.pool().for_each(0..100, 7, |r, _| {
                                total.fetch_add(r.len(), Ordering::Relaxed);
                            });
                            1
                        },
                        |c| tree_sum(c, 0, 64),
                    );
                    assert_eq!((x, y), (1, (0..64u64).map(|i| i * i).sum()));
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 800);
    });
}
