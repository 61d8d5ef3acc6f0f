//! Runs that cross pools (a worker of one pool running a graph on another), graphs run inline
//! on the calling thread, and pools far larger than the machine.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::ThreadId;
use std::time::Duration;

use common::{pool, random_dag_with_panics, watchdog};
use ntt_runtime::{PinPolicy, RunError, TaskId, ThreadPool};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// A task on `outer` runs a graph on `inner` whose tasks run graphs on `outer` again.
fn ping_pong(outer: &ThreadPool, inner: &ThreadPool, width: usize) -> usize {
    let count = AtomicUsize::new(0);
    outer.run(|g| {
        for _ in 0..width {
            let count = &count;
            g.add(move |_| {
                inner.run(|g| {
                    for _ in 0..width {
                        g.add(move |_| {
                            outer.for_each(0..width, 1, |_, _| {
                                count.fetch_add(1, Ordering::Relaxed);
                            });
                        });
                    }
                });
            });
        }
    });
    count.into_inner()
}

#[test]
fn a_to_b_to_a_completes_with_single_worker_pools() {
    // A's only worker waits for B, whose only worker waits for A: it must keep running A's
    // jobs while it waits, or this deadlocks.
    watchdog(60, || {
        let a = pool(1, PinPolicy::None);
        let b = pool(1, PinPolicy::None);
        assert_eq!(ping_pong(&a, &b, 3), 27);
    });
}

#[test]
fn a_to_b_to_a_completes_on_every_size() {
    watchdog(60, || {
        for (na, nb) in [(1, 2), (2, 1), (2, 2), (3, 4)] {
            let a = pool(na, PinPolicy::None);
            let b = pool(nb, PinPolicy::None);
            assert_eq!(ping_pong(&a, &b, 4), 64, "{na} and {nb} workers");
        }
    });
}

#[test]
fn joins_and_panics_cross_pools() {
    std::panic::set_hook(Box::new(|_| {}));
    watchdog(60, || {
        let a = pool(1, PinPolicy::None);
        let b = pool(2, PinPolicy::None);
        let (x, y) = a.join(|_| b.join(|_| a.join(|_| 1, |_| 2), |_| 3), |_| 4);
        assert_eq!((x, y), (((1, 2), 3), 4));
        let err = a
            .try_run(|g| {
                g.add(|_| {
                    b.run(|g| {
                        g.add(|_| panic!("in b"));
                    })
                });
            })
            .expect_err("panic crosses back");
        assert_eq!(err.message(), Some("in b"));
        // Both pools are still usable.
        assert_eq!(ping_pong(&a, &b, 2), 8);
    });
}

#[test]
fn a_single_worker_pool_nests_in_itself() {
    fn depth(pool: &ThreadPool, d: u32, count: &AtomicUsize) {
        count.fetch_add(1, Ordering::Relaxed);
        if d > 0 {
            pool.run(|g| {
                g.add(move |ctx| depth(ctx.pool(), d - 1, count));
                g.add(move |ctx| {
                    ctx.join(|c| depth(c.pool(), d - 1, count), |_| ());
                });
            });
        }
    }
    watchdog(30, || {
        let pool = pool(1, PinPolicy::None);
        let count = AtomicUsize::new(0);
        pool.run(|g| {
            g.add(|ctx| depth(ctx.pool(), 6, &count));
        });
        assert_eq!(count.into_inner(), (1 << 7) - 1);
    });
}

fn tasks_ran_on(pool: &ThreadPool, work: Duration) -> Vec<ThreadId> {
    let ids = std::sync::Mutex::new(Vec::new());
    let log = || ids.lock().expect("ids").push(std::thread::current().id());
    pool.try_run_sized(work, |g| {
        let a = g.add(|_| log());
        let b = g.add(|ctx| {
            log();
            ctx.join(|_| log(), |_| log());
            ctx.pool().for_each(0..8, 1, |_, _| log());
        });
        g.depend(a, b);
    })
    .expect("run");
    ids.into_inner().expect("ids")
}

#[test]
fn small_graphs_run_inline_on_the_caller_and_large_ones_on_the_workers() {
    watchdog(30, || {
        let me = std::thread::current().id();
        let pool = pool(2, PinPolicy::None);
        assert!(pool.runs_inline(Duration::from_micros(1)));
        assert!(!pool.runs_inline(Duration::from_secs(1)));
        let inline = tasks_ran_on(&pool, Duration::from_micros(1));
        assert_eq!(inline.len(), 12);
        assert!(inline.iter().all(|&id| id == me), "a small graph left the caller");
        let handed_off = tasks_ran_on(&pool, Duration::from_secs(1));
        assert_eq!(handed_off.len(), 12);
        assert!(
            handed_off.iter().all(|&id| id != me),
            "a large graph ran on the caller"
        );
        // One worker: handing off never saves time, so everything runs inline.
        let single = ntt_runtime::ThreadPoolBuilder::new()
            .num_threads(1)
            .pin(PinPolicy::None)
            .build()
            .expect("pool");
        assert!(single.runs_inline(Duration::from_secs(1)));
    });
}

#[test]
fn the_pool_scales_estimates_by_what_its_inline_runs_took() {
    watchdog(30, || {
        let pool = ntt_runtime::ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .handoff_cost(Duration::from_millis(1))
            .build()
            .expect("pool");
        // Two workers save half the work: inline below 2 ms of it.
        assert_eq!(pool.estimate_scale(), 1.0);
        assert!(pool.runs_inline(Duration::from_micros(1500)));
        assert!(!pool.runs_inline(Duration::from_millis(10)));
        // Estimated at 1.5 ms, done at once: the estimates are far too high. (A thread times
        // one inline run in eight.)
        for _ in 0..480 {
            pool.with_work_estimate(Duration::from_micros(1500), || {});
        }
        assert!(pool.estimate_scale() < 0.2, "{}", pool.estimate_scale());
        assert!(pool.runs_inline(Duration::from_millis(10)));
        // Estimated at 20 µs, taking at least 200 µs: far too low.
        for _ in 0..480 {
            pool.with_work_estimate(Duration::from_micros(20), || {
                std::thread::sleep(Duration::from_micros(200));
            });
        }
        assert!(pool.estimate_scale() > 4.0, "{}", pool.estimate_scale());
        assert!(!pool.runs_inline(Duration::from_micros(1500)));
        // Runs estimated too small to time leave the scale alone.
        let before = pool.estimate_scale();
        pool.with_work_estimate(Duration::from_nanos(100), || {
            std::thread::sleep(Duration::from_millis(5));
        });
        assert_eq!(pool.estimate_scale(), before);
    });
}

#[test]
fn inline_runs_report_panics_cycles_and_scratch_like_pool_runs() {
    std::panic::set_hook(Box::new(|_| {}));
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let small = Duration::from_micros(1);
        let err = pool
            .try_run_sized(small, |g| {
                let bad = g.add(|_| panic!("inline"));
                let after = g.add(|_| unreachable!("successor of a panicked task"));
                g.depend(bad, after);
            })
            .expect_err("panic");
        assert_eq!(err.message(), Some("inline"));
        let err = pool
            .try_run_sized(small, |g| {
                let a = g.add(|_| ());
                let b = g.add(|_| ());
                g.depend(a, b);
                g.depend(b, a);
            })
            .expect_err("cycle");
        assert!(matches!(err, RunError::Cycle(c) if c.stuck == 2 && c.tasks == 2));
        // Scratch lent inline is aligned, sized and not aliased by a nested loop.
        pool.with_work_estimate(small, || {
            pool.for_each(0..4, 1, |r, ctx| {
                ctx.with_scratch(100, |outer| {
                    assert_eq!(outer.as_ptr() as usize % 64, 0);
                    outer.fill(r.start as u64);
                    ctx.pool()
                        .for_each(0..4, 1, |_, c| c.with_scratch(200, |s| s.fill(9)));
                    assert!(outer.iter().all(|&x| x == r.start as u64));
                });
            });
        });
    });
}

#[test]
fn a_cycle_is_a_typed_error_and_no_task_runs() {
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let ran = AtomicUsize::new(0);
        let err = pool
            .try_run(|g| {
                let ids: Vec<TaskId> = (0..5)
                    .map(|_| {
                        g.add(|_| {
                            ran.fetch_add(1, Ordering::Relaxed);
                        })
                    })
                    .collect();
                g.depend(ids[0], ids[1]);
                g.depend(ids[2], ids[3]);
                g.depend(ids[3], ids[4]);
                g.depend(ids[4], ids[2]);
            })
            .expect_err("cycle");
        let RunError::Cycle(cycle) = err else {
            panic!("not a cycle: {err}")
        };
        assert_eq!((cycle.stuck, cycle.tasks), (3, 5));
        assert!((2..5).contains(&cycle.example.index()));
        assert!(cycle.to_string().contains("cycle"));
        assert_eq!(ran.into_inner(), 0);
    });
}

#[test]
fn hundreds_of_idle_workers_run_small_graphs() {
    // Far more workers than CPUs: every run still finishes, and the idle ones stay parked.
    watchdog(120, || {
        let pool = pool(512, PinPolicy::None);
        for tasks in [1, 7, 64, 1000] {
            let count = AtomicUsize::new(0);
            for _ in 0..20 {
                pool.for_each(0..tasks, 1, |_, _| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
            assert_eq!(count.into_inner(), 20 * tasks);
        }
    });
}

#[test]
fn random_dags_with_panics_never_hang_inline_or_across_pools() {
    std::panic::set_hook(Box::new(|_| {}));
    watchdog(120, || {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let a = pool(2, PinPolicy::None);
        let b = pool(1, PinPolicy::None);
        for _ in 0..100 {
            // Inline on the caller.
            random_dag_with_panics(&mut rng, 120, 30, |build| {
                a.try_run_sized(Duration::ZERO, |g| build(g))
            });
            // From a worker of A onto B, and back.
            random_dag_with_panics(&mut rng, 120, 30, |build| {
                let mut out = None;
                a.run(|g| {
                    g.add(|_| out = Some(b.try_run(|g| build(g))));
                });
                out.expect("ran")
            });
        }
    });
}
