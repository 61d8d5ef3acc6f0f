//! Every task runs exactly once, after all of its predecessors, on thousands of random DAGs.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

use common::{pool, watchdog};
use ntt_runtime::{PinPolicy, TaskContext, TaskId, ThreadPool};
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// A random DAG: `n` tasks, each with up to `max_preds` predecessors chosen among the `window`
/// tasks before it in a hidden topological order; ids are shuffled so the order in which tasks
/// are added says nothing about the dependencies.
struct Dag {
    n: usize,
    preds: Vec<Vec<usize>>,
    /// Position of each task in the order it is added to the graph.
    add_order: Vec<usize>,
}

fn random_dag(rng: &mut ChaCha8Rng) -> Dag {
    let n = match rng.random_range(0..10) {
        0 => rng.random_range(0..4),
        1..=7 => rng.random_range(1..200),
        _ => rng.random_range(200..2000),
    };
    // Window and fan-in set the shape: small window = deep chains, large = wide layers.
    let window = rng.random_range(1..=n.max(1));
    let max_preds = rng.random_range(0..=4);
    let preds = (0..n)
        .map(|j| {
            let k = if j == 0 {
                0
            } else {
                rng.random_range(0..=max_preds)
            };
            (0..k)
                .map(|_| j - 1 - rng.random_range(0..window.min(j)))
                .collect()
        })
        .collect();
    let mut add_order: Vec<usize> = (0..n).collect();
    add_order.shuffle(rng);
    Dag { n, preds, add_order }
}

/// What the tasks of a DAG saw as they ran: how often each ran, and how many started before
/// one of their predecessors had finished.
struct Watch {
    finished: Vec<AtomicBool>,
    runs: Vec<AtomicU32>,
    early: AtomicUsize,
}

impl Watch {
    fn new(n: usize) -> Self {
        Self {
            finished: (0..n).map(|_| AtomicBool::new(false)).collect(),
            runs: (0..n).map(|_| AtomicU32::new(0)).collect(),
            early: AtomicUsize::new(0),
        }
    }

    /// Task `t`'s body: checks its predecessors finished, then counts itself.
    fn task<'a>(&'a self, t: usize, preds: &'a [usize]) -> impl FnOnce(&TaskContext<'_>) + Send + 'a {
        move |_| {
            for &p in preds {
                if !self.finished[p].load(Ordering::Relaxed) {
                    self.early.fetch_add(1, Ordering::Relaxed);
                }
            }
            self.runs[t].fetch_add(1, Ordering::Relaxed);
            self.finished[t].store(true, Ordering::Relaxed);
        }
    }

    /// Every task ran once, after all its predecessors.
    fn check(&self) {
        assert_eq!(
            self.early.load(Ordering::Relaxed),
            0,
            "a task started before a predecessor finished"
        );
        for (t, r) in self.runs.iter().enumerate() {
            assert_eq!(r.load(Ordering::Relaxed), 1, "task {t} ran {r:?} times");
        }
    }
}

fn check_dag(pool: &ThreadPool, dag: &Dag) {
    let watch = Watch::new(dag.n);
    pool.run(|g| {
        let mut ids: Vec<Option<TaskId>> = vec![None; dag.n];
        for &t in &dag.add_order {
            ids[t] = Some(g.add(watch.task(t, &dag.preds[t])));
        }
        for (t, preds) in dag.preds.iter().enumerate() {
            for &p in preds {
                g.depend(ids[p].expect("added"), ids[t].expect("added"));
            }
        }
    });
    watch.check();
}

fn random_dags_on(workers: usize, pin: PinPolicy, dags: usize, seed: u64) {
    watchdog(60, move || {
        let pool = pool(workers, pin);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..dags {
            let dag = random_dag(&mut rng);
            check_dag(&pool, &dag);
            check_dag_built_with_add_after(&pool, &dag);
        }
    });
}

/// As [`check_dag`], the tasks added in the DAG's topological order, each with
/// `Graph::add_after` over its predecessors (duplicates included).
fn check_dag_built_with_add_after(pool: &ThreadPool, dag: &Dag) {
    let watch = Watch::new(dag.n);
    pool.run(|g| {
        let mut ids: Vec<TaskId> = Vec::with_capacity(dag.n);
        for (t, preds) in dag.preds.iter().enumerate() {
            let before: Vec<TaskId> = preds.iter().map(|&p| ids[p]).collect();
            ids.push(g.add_after(before, watch.task(t, preds)));
        }
        let edges: usize = dag.preds.iter().map(Vec::len).sum();
        assert_eq!(g.dependency_count(), edges);
    });
    watch.check();
}

#[test]
fn add_after_refuses_a_task_not_added_before_and_leaves_the_graph_runnable() {
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        // An id past the end of the next graph: the third task of this one.
        let mut foreign = None;
        pool.run(|g| {
            g.add(|_| {});
            g.add(|_| {});
            foreign = Some(g.add(|_| {}));
        });
        let foreign = foreign.expect("added");
        let (first, second) = (AtomicU32::new(0), AtomicU32::new(0));
        let second_saw_first = AtomicBool::new(false);
        pool.run(|g| {
            let a = g.add(|_| {
                first.fetch_add(1, Ordering::Relaxed);
            });
            // `a` is linked, then the foreign id panics: the task keeps its one edge.
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                g.add_after([a, foreign], |_| {
                    second_saw_first.store(first.load(Ordering::Relaxed) == 1, Ordering::Relaxed);
                    second.fetch_add(1, Ordering::Relaxed);
                });
            }));
            let message = caught.expect_err("a foreign id panics");
            let message = message
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or_default();
            assert!(
                message.contains("not a task added to this graph before"),
                "{message}"
            );
            assert_eq!(g.len(), 2);
            assert_eq!(g.dependency_count(), 1);
        });
        assert_eq!(first.load(Ordering::Relaxed), 1);
        assert_eq!(second.load(Ordering::Relaxed), 1);
        assert!(
            second_saw_first.load(Ordering::Relaxed),
            "the kept edge was not honoured"
        );
    });
}

#[test]
fn random_dags_respect_dependencies_on_one_worker() {
    random_dags_on(1, PinPolicy::None, 500, 1);
}

#[test]
fn random_dags_respect_dependencies_on_two_workers() {
    random_dags_on(2, PinPolicy::None, 1500, 2);
}

#[test]
fn random_dags_respect_dependencies_on_eight_workers() {
    random_dags_on(8, PinPolicy::None, 1500, 3);
}

#[test]
fn random_dags_respect_dependencies_on_pinned_workers() {
    random_dags_on(2, PinPolicy::Cores, 300, 4);
    random_dags_on(8, PinPolicy::Pus, 300, 5);
}

#[test]
fn a_long_chain_runs_in_order() {
    watchdog(30, || {
        let pool = pool(4, PinPolicy::None);
        let log = std::sync::Mutex::new(Vec::new());
        pool.run(|g| {
            let ids: Vec<TaskId> = (0..10_000)
                .map(|i| {
                    let log = &log;
                    g.add(move |_| log.lock().expect("log").push(i))
                })
                .collect();
            for w in ids.windows(2) {
                g.depend(w[0], w[1]);
            }
        });
        assert_eq!(log.into_inner().expect("log"), (0..10_000).collect::<Vec<_>>());
    });
}

#[test]
fn a_cycle_is_reported_without_running_anything() {
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        let ran = AtomicUsize::new(0);
        let err = pool
            .try_run(|g| {
                let a = g.add(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                let b = g.add(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                let c = g.add(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                g.depend(a, b);
                g.depend(b, c);
                g.depend(c, b);
            })
            .expect_err("cycle");
        assert!(err.to_string().contains("cycle"), "{err}");
        assert_eq!(ran.load(Ordering::Relaxed), 0);
        // The pool still works.
        pool.run(|g| {
            g.add(|_| {
                ran.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(ran.load(Ordering::Relaxed), 1);
    });
}

#[test]
fn data_parallel_helpers_cover_every_index_once() {
    watchdog(30, || {
        let pool = pool(3, PinPolicy::None);
        for (len, grain) in [(0, 1), (1, 0), (1000, 7), (4096, 4096), (10_000, 1)] {
            let hits: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
            pool.for_each(0..len, grain, |r, _| {
                assert!(r.len() <= grain.max(1) && !r.is_empty());
                for i in r {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));

            let mut data: Vec<usize> = vec![0; len];
            pool.chunks_mut(&mut data, grain, |i, chunk, _| {
                for (k, x) in chunk.iter_mut().enumerate() {
                    *x = i * grain.max(1) + k;
                }
            });
            assert_eq!(data, (0..len).collect::<Vec<_>>());
        }
    });
}

#[test]
fn a_burst_of_ready_successors_wakes_several_sleeping_workers() {
    // 16 blocking tasks become ready at once on one worker's deque; parked workers must be
    // woken to take them. (Blocking tasks, so this holds on a 2-core machine too.)
    watchdog(30, || {
        let pool = pool(8, PinPolicy::None);
        std::thread::sleep(std::time::Duration::from_millis(20)); // let every worker park
        let running = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        pool.run(|g| {
            let root = g.add(|_| {});
            for _ in 0..16 {
                let t = g.add(|_| {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(40));
                    running.fetch_sub(1, Ordering::SeqCst);
                });
                g.depend(root, t);
            }
        });
        assert!(
            peak.load(Ordering::SeqCst) >= 3,
            "peak concurrency {}",
            peak.load(Ordering::SeqCst)
        );
    });
}

#[test]
fn roots_far_apart_in_the_add_order_run_on_different_workers() {
    // Two roots, the first and the last task, with a long chain after the first between them:
    // the worker that owns the roots' span must not keep both. Each root waits (bounded) until
    // the other has started, so they meet only if two workers run them at once.
    watchdog(30, || {
        let pool = pool(2, PinPolicy::None);
        for chain in [0usize, 62, 63, 64, 1000] {
            let started = AtomicUsize::new(0);
            let met = AtomicUsize::new(0);
            let meet = || {
                started.fetch_add(1, Ordering::SeqCst);
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                while started.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
                    std::hint::spin_loop();
                }
                if started.load(Ordering::SeqCst) == 2 {
                    met.fetch_add(1, Ordering::SeqCst);
                }
            };
            let ran = AtomicUsize::new(0);
            pool.run(|g| {
                let mut prev = g.add(|_| meet());
                for _ in 0..chain {
                    let t = g.add(|_| {
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                    g.depend(prev, t);
                    prev = t;
                }
                let last = g.add(|_| meet());
                assert_eq!(g.task_id(last.index()), Some(last));
                assert_eq!(g.task_id(g.len()), None);
            });
            assert_eq!(ran.load(Ordering::Relaxed), chain);
            assert_eq!(
                met.load(Ordering::SeqCst),
                2,
                "chain of {chain}: the roots ran one after the other"
            );
        }
    });
}
