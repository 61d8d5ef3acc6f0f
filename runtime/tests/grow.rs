//! Graphs that grow while they run: every grown task runs once, after the tasks it was added
//! after, the run waits for all of them, and panics in grown tasks reach the caller.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use common::{grow_tree, pool, watchdog};
use ntt_runtime::{Grower, PinPolicy, TaskContext, TaskId, ThreadPool};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn a_tree_grown_by_its_own_tasks_runs_every_node_once() {
    watchdog(60, || {
        for workers in [1, 2, 4] {
            let pool = pool(workers, PinPolicy::None);
            for depth in [0, 1, 5, 12] {
                let ran: Vec<AtomicBool> = (0..(2usize << depth) - 1)
                    .map(|_| AtomicBool::new(false))
                    .collect();
                let joins = AtomicUsize::new(0);
                pool.run(|g| {
                    g.add_growing(|_, grow| grow_tree(0, depth, &ran, &joins, grow));
                });
                assert!(
                    ran.iter().all(|r| r.load(Ordering::Relaxed)),
                    "{workers} workers, depth {depth}"
                );
                assert_eq!(joins.into_inner(), (1 << depth) - 1, "{workers} workers");
            }
        }
    });
}

#[test]
fn successors_of_finished_and_unfinished_tasks_wait_for_them() {
    watchdog(60, || {
        for workers in [1, 2, 3] {
            let pool = pool(workers, PinPolicy::None);
            for _ in 0..200 {
                let a_done = AtomicBool::new(false);
                let c_done = AtomicBool::new(false);
                let g_done = AtomicBool::new(false);
                let order = Mutex::new(Vec::new());
                let (a_done, c_done, g_done, order) = (&a_done, &c_done, &g_done, &order);
                pool.run(|g| {
                    let a = g.add(move |_| a_done.store(true, Ordering::Relaxed));
                    let c = g.add(move |_| c_done.store(true, Ordering::Relaxed));
                    let grower = g.add_growing(move |_, grow| {
                        // `a` is a predecessor of this task: finished.
                        assert!(a_done.load(Ordering::Relaxed));
                        let x = grow.add_after(&[a], move |_, _| order.lock().expect("order").push("x"));
                        // This task is unfinished until it returns.
                        let me = grow.current();
                        grow.add_after(&[me], move |_, _| {
                            assert!(g_done.load(Ordering::Relaxed), "ran before the task it follows");
                            order.lock().expect("order").push("after-me");
                        });
                        // `c` waits for this task (a static edge), so it has not started; `x`
                        // may or may not have finished.
                        grow.add_after(&[c, x], move |_, _| {
                            assert!(c_done.load(Ordering::Relaxed), "ran before the static task");
                            order.lock().expect("order").push("after-c");
                        });
                        g_done.store(true, Ordering::Relaxed);
                    });
                    g.depend(a, grower);
                    g.depend(grower, c);
                });
                let order = order.lock().expect("order");
                assert_eq!(order.len(), 3, "every grown task ran once: {order:?}");
                let at = |s| order.iter().position(|o| *o == s).expect("ran");
                assert!(at("x") < at("after-c"), "{order:?}");
            }
        }
    });
}

/// What every task of a random growing run shares: which logical tasks exist, ran, finished.
struct Shared {
    /// Logical tasks (in the order they were added) and their ids, for later tasks to depend on.
    known: Mutex<Vec<(usize, TaskId)>>,
    preds: Mutex<Vec<Vec<usize>>>,
    finished: Vec<AtomicBool>,
    runs: Vec<AtomicU32>,
    /// Closures consumed (run or dropped): must equal the tasks added once the run returns.
    consumed: AtomicUsize,
    /// Logical tasks not yet handed out.
    budget: AtomicUsize,
    early: AtomicUsize,
    panic_per_mille: u32,
}

/// Counts its closure as consumed when dropped (after running, or skipped).
struct Consumed<'s>(&'s AtomicUsize);

impl Drop for Consumed<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl Shared {
    fn new(capacity: usize, panic_per_mille: u32) -> Self {
        Self {
            known: Mutex::new(Vec::new()),
            preds: Mutex::new(Vec::new()),
            finished: (0..capacity).map(|_| AtomicBool::new(false)).collect(),
            runs: (0..capacity).map(|_| AtomicU32::new(0)).collect(),
            consumed: AtomicUsize::new(0),
            budget: AtomicUsize::new(capacity),
            early: AtomicUsize::new(0),
            panic_per_mille,
        }
    }

    /// Reserves a logical task number with these predecessors, if the budget allows.
    fn reserve(&self, preds: Vec<usize>) -> Option<usize> {
        self.budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1))
            .ok()?;
        let mut all = self.preds.lock().expect("preds");
        all.push(preds);
        Some(all.len() - 1)
    }

    /// The body of logical task `t`: checks its predecessors finished, maybe grows, maybe
    /// panics.
    fn body<'s>(&'s self, t: usize, grow: &Grower<'_, 's>) {
        let preds = self.preds.lock().expect("preds")[t].clone();
        for p in preds {
            if !self.finished[p].load(Ordering::Relaxed) {
                self.early.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.runs[t].fetch_add(1, Ordering::Relaxed);
        let mut rng = ChaCha8Rng::seed_from_u64(t as u64 * 7919 + 1);
        for _ in 0..rng.random_range(0..=3) {
            // Predecessors: this task (unfinished), and a few known tasks, finished or not.
            let (ids, logical): (Vec<TaskId>, Vec<usize>) = {
                let known = self.known.lock().expect("known");
                let mut picks: Vec<(usize, TaskId)> = (0..rng.random_range(0..=3))
                    .filter(|_| !known.is_empty())
                    .map(|_| known[rng.random_range(0..known.len())])
                    .collect();
                if rng.random_bool(0.5) {
                    picks.push((t, grow.current()));
                }
                picks.into_iter().map(|(l, id)| (id, l)).unzip()
            };
            let Some(child) = self.reserve(logical) else {
                break;
            };
            let consumed = Consumed(&self.consumed);
            let id = grow.add_after(&ids, move |_: &TaskContext<'_>, grow: &Grower<'_, 's>| {
                let _consumed = consumed;
                self.body(child, grow);
            });
            self.known.lock().expect("known").push((child, id));
        }
        if rng.random_range(0..1000) < self.panic_per_mille {
            panic!("task {t}");
        }
        self.finished[t].store(true, Ordering::Relaxed);
    }
}

/// One random growing run: a few static tasks (some growing, with random static edges), each
/// growing task adding random successors of random known tasks, up to `capacity` tasks.
fn random_growing_run(pool: &ThreadPool, rng: &mut ChaCha8Rng, panic_per_mille: u32) -> (usize, usize) {
    let capacity = rng.random_range(1..400);
    let shared = Shared::new(capacity, panic_per_mille);
    let roots = rng.random_range(1..=capacity.min(8));
    let result = pool.try_run(|g| {
        let shared = &shared;
        let mut ids = Vec::new();
        for _ in 0..roots {
            let preds: Vec<usize> = (0..ids.len()).filter(|_| rng.random_bool(0.3)).collect();
            let t = shared.reserve(preds.clone()).expect("within budget");
            let consumed = Consumed(&shared.consumed);
            let id = g.add_growing(move |_, grow| {
                let _consumed = consumed;
                shared.body(t, grow);
            });
            for &p in &preds {
                g.depend(ids[p], id);
            }
            shared.known.lock().expect("known").push((t, id));
            ids.push(id);
        }
    });
    let added = capacity - shared.budget.load(Ordering::Relaxed);
    assert_eq!(
        shared.consumed.load(Ordering::Relaxed),
        added,
        "a grown closure was leaked"
    );
    assert_eq!(
        shared.early.load(Ordering::Relaxed),
        0,
        "a task started before a predecessor finished"
    );
    for (t, r) in shared.runs.iter().take(added).enumerate() {
        assert!(r.load(Ordering::Relaxed) <= 1, "task {t} ran {r:?} times");
    }
    match result {
        Ok(()) => {
            assert!(
                shared
                    .runs
                    .iter()
                    .take(added)
                    .all(|r| r.load(Ordering::Relaxed) == 1)
            );
            (added - roots, 0)
        }
        Err(e) => {
            assert!(panic_per_mille > 0);
            assert!(e.message().is_some_and(|m| m.starts_with("task ")), "{e}");
            (added - roots, 1)
        }
    }
}

fn random_growing_runs_on(workers: usize, runs: usize, panic_per_mille: u32, seed: u64) {
    watchdog(60, move || {
        let pool = pool(workers, PinPolicy::None);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut grown, mut panicked) = (0, 0);
        for _ in 0..runs {
            let (g, p) = random_growing_run(&pool, &mut rng, panic_per_mille);
            grown += g;
            panicked += p;
        }
        // The runs exercise what they claim to: many grown tasks, and some panics when asked.
        assert!(grown > 20 * runs, "only {grown} grown tasks in {runs} runs");
        assert_eq!(
            panicked > 0,
            panic_per_mille > 0,
            "{panicked} of {runs} runs panicked"
        );
    });
}

#[test]
fn random_grown_dags_respect_dependencies() {
    random_growing_runs_on(1, 200, 0, 11);
    random_growing_runs_on(2, 400, 0, 12);
    random_growing_runs_on(8, 400, 0, 13);
}

#[test]
fn random_grown_dags_with_random_panics_never_hang() {
    quiet_panics();
    random_growing_runs_on(1, 200, 10, 21);
    random_growing_runs_on(2, 400, 10, 22);
    random_growing_runs_on(8, 400, 5, 23);
}

#[test]
fn a_panicking_grown_task_skips_its_successors_and_reaches_the_caller() {
    quiet_panics();
    watchdog(30, || {
        let pool = pool(3, PinPolicy::None);
        let after = AtomicUsize::new(0);
        let err = pool
            .try_run(|g| {
                g.add_growing(|_, grow| {
                    let bad = grow.add(|_, _| {
                        std::thread::sleep(Duration::from_millis(5));
                        panic!("grown")
                    });
                    for _ in 0..50 {
                        grow.add_after(&[bad], |_, _| {
                            after.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            })
            .expect_err("panicked");
        assert_eq!(err.message(), Some("grown"));
        assert_eq!(after.load(Ordering::Relaxed), 0);
        // The pool still works, growing included.
        let count = AtomicUsize::new(0);
        pool.run(|g| {
            g.add_growing(|_, grow| {
                for _ in 0..10 {
                    grow.add(|_, _| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        });
        assert_eq!(count.into_inner(), 10);
    });
}

#[test]
#[should_panic(expected = "is not a task of this graph")]
fn an_id_from_another_graph_is_refused() {
    let pool = pool(1, PinPolicy::None);
    let mut foreign = None;
    pool.run(|g| {
        g.add(|_| {});
        foreign = Some(g.add(|_| {}));
    });
    let foreign = foreign.expect("added");
    pool.run(|g| {
        g.add_growing(move |_, grow| {
            grow.add_after(&[foreign], |_, _| {});
        });
    });
}

/// A growing graph on `a` whose grown tasks run graphs on `b` that run growing graphs on `a`.
fn grow_across(a: &ThreadPool, b: &ThreadPool, width: usize) -> usize {
    let count = AtomicUsize::new(0);
    let count = &count;
    a.run(|g| {
        g.add_growing(move |_, grow| {
            for _ in 0..width {
                grow.add(move |_, _| {
                    b.run(|g| {
                        for _ in 0..width {
                            g.add(move |_| {
                                a.run(|g| {
                                    g.add_growing(move |_, grow| {
                                        for _ in 0..width {
                                            grow.add(move |_, _| {
                                                count.fetch_add(1, Ordering::Relaxed);
                                            });
                                        }
                                    });
                                });
                            });
                        }
                    });
                });
            }
        });
    });
    count.load(Ordering::Relaxed)
}

#[test]
fn growing_graphs_nest_across_pools() {
    watchdog(60, || {
        for (na, nb) in [(1, 1), (1, 2), (2, 1), (3, 2)] {
            let a = pool(na, PinPolicy::None);
            let b = pool(nb, PinPolicy::None);
            assert_eq!(grow_across(&a, &b, 3), 27, "{na} and {nb} workers");
            assert_eq!(grow_across(&b, &a, 4), 64, "{nb} and {na} workers");
        }
    });
}

#[test]
fn a_small_growing_graph_runs_inline_on_the_caller() {
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let caller = std::thread::current().id();
        let elsewhere = AtomicUsize::new(0);
        let ran = AtomicUsize::new(0);
        pool.with_work_estimate(Duration::from_nanos(1), || {
            pool.run(|g| {
                g.add_growing(|_, grow| {
                    for _ in 0..20 {
                        grow.add(|_, grow| {
                            grow.add(|_, _| {
                                if std::thread::current().id() != caller {
                                    elsewhere.fetch_add(1, Ordering::Relaxed);
                                }
                                ran.fetch_add(1, Ordering::Relaxed);
                            });
                        });
                    }
                });
            });
        });
        assert_eq!(ran.into_inner(), 20);
        assert_eq!(elsewhere.into_inner(), 0);
    });
}
