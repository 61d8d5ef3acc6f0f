//! A panicking task poisons its graph: unstarted tasks are skipped, running ones finish, the
//! first panic reaches the caller, and the pool stays usable.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{pool, watchdog};
use ntt_runtime::{PinPolicy, TaskId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn quiet_panics() {
    // Keep the expected panics out of the test output.
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn run_reraises_the_task_panic_and_the_pool_stays_usable() {
    quiet_panics();
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(|g| {
                g.add(|_| panic!("boom"));
            });
        }))
        .expect_err("run must re-raise");
        assert_eq!(caught.downcast_ref::<&str>(), Some(&"boom"));
        let ran = AtomicUsize::new(0);
        pool.for_each(0..100, 1, |_, _| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 100);
    });
}

#[test]
fn successors_of_a_panicking_task_are_skipped() {
    quiet_panics();
    watchdog(30, || {
        let pool = pool(4, PinPolicy::None);
        let after = AtomicUsize::new(0);
        let err = pool
            .try_run(|g| {
                let bad = g.add(|_| panic!("first"));
                for _ in 0..100 {
                    let t = g.add(|_| {
                        after.fetch_add(1, Ordering::Relaxed);
                    });
                    g.depend(bad, t);
                }
            })
            .expect_err("panicked");
        assert_eq!(err.message(), Some("first"));
        assert_eq!(after.load(Ordering::Relaxed), 0);
    });
}

#[test]
fn panics_at_random_places_never_hang_and_report_one_of_them() {
    quiet_panics();
    watchdog(60, || {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for workers in [1, 2, 8] {
            let pool = pool(workers, PinPolicy::None);
            for _ in 0..300 {
                let n = rng.random_range(1..300);
                let panicking: Vec<bool> = (0..n).map(|_| rng.random_ratio(1, 40)).collect();
                let edges: Vec<(usize, usize)> = (0..n)
                    .flat_map(|j| {
                        let k = if j == 0 { 0 } else { rng.random_range(0..3) };
                        (0..k).map(|_| (rng.random_range(0..j), j)).collect::<Vec<_>>()
                    })
                    .collect();
                let ran: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                let result = pool.try_run(|g| {
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
        }
    });
}

#[test]
fn a_panic_inside_a_nested_run_reaches_the_outer_caller() {
    quiet_panics();
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let err = pool
            .try_run(|g| {
                g.add(|ctx| {
                    ctx.pool().run(|inner| {
                        inner.add(|_| panic!("inner"));
                    });
                });
            })
            .expect_err("nested panic");
        assert_eq!(err.message(), Some("inner"));
    });
}
