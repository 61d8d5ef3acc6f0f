//! A panicking task poisons its graph: unstarted tasks are skipped, running ones finish, the
//! first panic reaches the caller, and the pool stays usable.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{pool, random_dag_with_panics, watchdog};
use ntt_runtime::PinPolicy;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

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
                random_dag_with_panics(&mut rng, 300, 40, |build| pool.try_run(|g| build(g)));
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
