//! Grown graphs and loops split on demand, small enough for Miri (`scripts/miri.sh` runs this
//! file with several seeds): a tree grown by its own tasks, successors added to finished and
//! unfinished tasks, a panicking grown task, and `for_each` covering every index once, alone and
//! nested across pools. Pools use the default topology (Miri cannot call hwloc) and no pinning.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{default_topology_pool as pool, grow_tree};

#[test]
fn grown_trees_and_successors_of_finished_tasks() {
    for workers in [1, 2] {
        let pool = pool(workers);
        for depth in [0, 1, 3] {
            let ran: Vec<AtomicBool> = (0..(2usize << depth) - 1)
                .map(|_| AtomicBool::new(false))
                .collect();
            let joins = AtomicUsize::new(0);
            pool.run(|g| {
                g.add_growing(|_, grow| grow_tree(0, depth, &ran, &joins, grow));
            });
            assert!(ran.iter().all(|r| r.load(Ordering::Relaxed)));
            assert_eq!(joins.into_inner(), (1 << depth) - 1);
        }
        for _ in 0..3 {
            let a_done = AtomicBool::new(false);
            let order = Mutex::new(Vec::new());
            let (a_done, order) = (&a_done, &order);
            pool.run(|g| {
                let a = g.add(move |_| a_done.store(true, Ordering::Relaxed));
                let grower = g.add_growing(move |_, grow| {
                    assert!(a_done.load(Ordering::Relaxed), "ran before its predecessor");
                    // `a` has finished; this task has not.
                    let x = grow.add_after(&[a], move |_, _| order.lock().expect("order").push("x"));
                    let me = grow.current();
                    grow.add_after(&[me, x], move |_, _| order.lock().expect("order").push("after"));
                });
                g.depend(a, grower);
            });
            assert_eq!(*order.lock().expect("order"), ["x", "after"]);
        }
    }
}

#[test]
fn a_panicking_grown_task_reaches_the_caller_and_skips_its_successor() {
    std::panic::set_hook(Box::new(|_| {}));
    let pool = pool(2);
    let after = AtomicBool::new(false);
    let after = &after;
    let result = pool.try_run(|g| {
        g.add_growing(move |_, grow| {
            let p = grow.add(|_, _| panic!("a grown task panics"));
            grow.add_after(&[p], move |_, _| after.store(true, Ordering::Relaxed));
        });
    });
    assert!(result.is_err());
    assert!(
        !after.load(Ordering::Relaxed),
        "a successor of a panicked task ran"
    );
}

#[test]
fn loops_split_on_demand_cover_every_index_once() {
    for workers in [1, 2] {
        let pool = pool(workers);
        for (len, grain) in [(0usize, 1usize), (1, 1), (7, 2), (37, 1), (64, 5)] {
            let seen: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
            pool.for_each(3..3 + len, grain, |r, _| {
                for i in r {
                    seen[i - 3].fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{len} by {grain}"
            );
        }
        let outer = self::pool(1);
        let n = AtomicUsize::new(0);
        outer.for_each(0..3, 1, |_, _| {
            pool.for_each(0..5, 1, |r, _| {
                n.fetch_add(r.len(), Ordering::Relaxed);
            })
        });
        assert_eq!(n.into_inner(), 15);
    }
}
