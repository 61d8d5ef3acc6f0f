//! ntt-runtime against rayon, in the same run, on the same number of workers.
//!
//! Method: both pools have `NTT_BENCH_THREADS` workers (default: one per allowed core), built
//! once per group; every iteration checks its result. Groups:
//!
//! - `runtime/fan_out/tasks=N`: N empty tasks with no dependencies: a graph of N tasks vs N
//!   `rayon::Scope::spawn`s, and `for_each` (split on demand) and the join-split loop with
//!   grain 1 vs `par_iter().with_max_len(1)`.
//!   Throughput in tasks.
//! - `runtime/fork_join/leaves=2^20`: a binary reduction tree over 2^20 leaves: `rayon::join`
//!   recursion vs `TaskContext::join` recursion, vs a graph with one task per tree node
//!   (2^21 - 1 tasks, each internal node depending on its two children, built and run; its sums
//!   array is allocated once, as the join trees need none), and vs `for_each` over
//!   the leaves with grain 1 (then a sequential sum), and the join-split loop likewise; and the
//!   same tree grown by its own tasks (`ntt_grown_tree`): node k's task adds its two children's
//!   tasks, and the second of two siblings to finish adds their parent's sum task, so the tree is
//!   built in parallel while it runs (2^21 - 1 node tasks and 2^20 - 1 sum tasks).
//!   Throughput in leaves.
//! - `runtime/dag_stages/stages=S,width=W`: S butterfly stages of W tasks, task (s, i) depending
//!   on (s-1, i) and (s-1, i ^ 2^(s mod log W)), each doing ~1 µs of arithmetic: one graph vs
//!   one `par_iter` per stage (a barrier between stages).
//!
//! - `runtime/uneven_loop/items=4096`: 4096 items of ~1 µs, the first eighth 8x heavier:
//!   the join-split loop in four fixed chunks per worker (what the encoder did) and with
//!   grain 1, `for_each` with grain 1, and `par_iter`.
//!
//! The join-split loop (`join_split_for_each`) is what `for_each` was before it split on
//! demand: the range cut into grains up front and halved with `join`, every grain a unit of
//! stealing. It stays here as the baseline.
//!
//! Two figures criterion cannot time (their cost is dominated by sleeping) are measured by hand
//! and printed before the criterion groups:
//!
//! - wake-up latency: the pool is left idle for 5 ms (every worker parked), then one task is
//!   submitted; the time from the submit call to the task's first instruction, and to the
//!   submit call's return (the round trip), 200 samples, median and 90th percentile.
//! - idle CPU: after one graph has run, the process's user+system CPU time (getrusage) over one
//!   second in which the main thread sleeps and the pool has nothing to do.
//! - small commits (only with `NTT_BENCH_SMALL_COMMITS=1`): commits of 2^10, 2^12, 2^14 rows x
//!   1, 3, 8, 24 lanes (rate 1/2) inline on the caller, through a 1-worker and a 2-worker pool
//!   (the encoder's work estimate decides inline or hand-off), and through a 2-worker pool that
//!   always hands off; 41 interleaved samples, medians and ratios to inline.
//! - many workers (only with `NTT_BENCH_MANY_WORKERS=1`): pools of 2, 512 and 4096 workers:
//!   build time, a 64-task `for_each` from outside (50 runs, median and p90), drop time.
//!
//! - noisy neighbour (only with `NTT_BENCH_NOISY=1`, which then skips everything else): a
//!   thread spinning on the first allowed CPU while a 2-worker pool on the first two runs an
//!   even loop (fixed chunks, then split on demand) and a commit, against a 1-worker pool on
//!   the second CPU alone; medians of 21 interleaved samples, and the 1-worker/2-worker ratio.
//!
//! Run: `cargo bench -p ntt-benches --bench runtime`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput};
use ntt_benches::trees::{graph_tree, graph_tree_depth_first, join_tree, leaf};
use ntt_kernels::Backend;
use ntt_pcs::Committer;
use ntt_pcs::{CommitParams, Encoder};
use ntt_runtime::{Grower, TaskContext, TaskId, ThreadPool, ThreadPoolBuilder};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rayon::prelude::*;

fn threads() -> usize {
    std::env::var("NTT_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn ntt_pool() -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads())
        .build()
        .expect("ntt pool")
}

fn rayon_pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("rayon pool")
}

/// The baseline loop: `range` cut into `grain`-sized pieces up front, the piece interval halved
/// with `join` down to one piece (what `for_each` did before it split on demand).
fn join_split_for_each(
    pool: &ThreadPool,
    range: std::ops::Range<usize>,
    grain: usize,
    f: impl Fn(std::ops::Range<usize>) + Sync,
) {
    fn split(
        ctx: &TaskContext<'_>,
        range: &std::ops::Range<usize>,
        (lo, hi): (usize, usize),
        grain: usize,
        f: &(impl Fn(std::ops::Range<usize>) + Sync),
    ) {
        if hi - lo <= 1 {
            let start = range.start + lo * grain;
            f(start..(start + grain).min(range.end));
            return;
        }
        let mid = lo + (hi - lo) / 2;
        ctx.join(
            |c| split(c, range, (lo, mid), grain, f),
            |c| split(c, range, (mid, hi), grain, f),
        );
    }
    let pieces = range.len().div_ceil(grain);
    let (range, f) = (&range, &f);
    pool.run(|g| {
        g.add(move |ctx| split(ctx, range, (0, pieces), grain, f));
    });
}

fn fan_out(c: &mut Criterion) {
    let pool = ntt_pool();
    let rpool = rayon_pool(pool.num_workers());
    let mut group = c.benchmark_group("runtime/fan_out");
    for n in [1_000usize, 10_000, 100_000] {
        group.throughput(Throughput::Elements(n as u64));
        let param = format!("tasks={n}");
        group.bench_function(BenchmarkId::new("ntt", &param), |b| {
            b.iter(|| {
                let count = AtomicU64::new(0);
                pool.run(|g| {
                    for i in 0..n {
                        let count = &count;
                        g.add(move |_| {
                            black_box(i);
                            count.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
                assert_eq!(count.load(Ordering::Relaxed), n as u64);
            });
        });
        group.bench_function(BenchmarkId::new("ntt_for_each_grain1", &param), |b| {
            b.iter(|| {
                let count = AtomicU64::new(0);
                pool.for_each(0..n, 1, |r, _| {
                    black_box(r);
                    count.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(count.load(Ordering::Relaxed), n as u64);
            });
        });
        group.bench_function(BenchmarkId::new("ntt_join_split_grain1", &param), |b| {
            b.iter(|| {
                let count = AtomicU64::new(0);
                join_split_for_each(&pool, 0..n, 1, |r| {
                    black_box(r);
                    count.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(count.load(Ordering::Relaxed), n as u64);
            });
        });
        group.bench_function(BenchmarkId::new("rayon_par_iter_len1", &param), |b| {
            b.iter(|| {
                let count = AtomicU64::new(0);
                rpool.install(|| {
                    (0..n).into_par_iter().with_max_len(1).for_each(|i| {
                        black_box(i);
                        count.fetch_add(1, Ordering::Relaxed);
                    })
                });
                assert_eq!(count.load(Ordering::Relaxed), n as u64);
            });
        });
        group.bench_function(BenchmarkId::new("rayon_scope_spawn", &param), |b| {
            b.iter(|| {
                let count = AtomicU64::new(0);
                rpool.scope(|s| {
                    for i in 0..n {
                        let count = &count;
                        s.spawn(move |_| {
                            black_box(i);
                            count.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
                assert_eq!(count.load(Ordering::Relaxed), n as u64);
            });
        });
    }
    group.finish();
}

const LOG_LEAVES: u32 = 20;

fn rayon_tree(lo: u64, hi: u64) -> u64 {
    if hi - lo == 1 {
        return leaf(lo);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = rayon::join(|| rayon_tree(lo, mid), || rayon_tree(mid, hi));
    a + b
}

/// The reduction tree grown by its own tasks: node k's task adds its children's tasks (a
/// leaf's stores its value), and the second of two siblings to finish adds the task that sums
/// them into their parent.
fn ntt_grown_tree(pool: &ThreadPool, log_leaves: u32) -> u64 {
    let leaves = 1usize << log_leaves;
    let sums: Vec<AtomicU64> = (0..2 * leaves).map(|_| AtomicU64::new(0)).collect();
    let arrived: Vec<AtomicU8> = (0..leaves).map(|_| AtomicU8::new(0)).collect();
    let tree = GrownTree {
        leaves,
        sums: &sums,
        arrived: &arrived,
    };
    pool.run(|g| {
        g.add_growing(move |_, grow| tree.node(1, grow));
    });
    sums[1].load(Ordering::Relaxed)
}

/// What the tasks of [`ntt_grown_tree`] share: node k (heap order, root 1) holds its subtree's
/// sum in `sums[k]`; `arrived[k]` counts k's children whose sums are stored.
#[derive(Clone, Copy)]
struct GrownTree<'s> {
    leaves: usize,
    sums: &'s [AtomicU64],
    arrived: &'s [AtomicU8],
}

impl<'s> GrownTree<'s> {
    fn node(self, k: usize, grow: &Grower<'_, 's>) {
        if k >= self.leaves {
            self.sums[k].store(leaf((k - self.leaves) as u64), Ordering::Relaxed);
            self.stored(k, grow);
        } else {
            for c in [2 * k, 2 * k + 1] {
                grow.add(move |_, grow| self.node(c, grow));
            }
        }
    }

    /// Node k's sum is stored: the second of two siblings adds their parent's sum task.
    fn stored(self, k: usize, grow: &Grower<'_, 's>) {
        let p = k / 2;
        // AcqRel: the second sibling sees the first one's sum.
        if p >= 1 && self.arrived[p].fetch_add(1, Ordering::AcqRel) == 1 {
            grow.add(move |_, grow| {
                let s =
                    self.sums[2 * p].load(Ordering::Relaxed) + self.sums[2 * p + 1].load(Ordering::Relaxed);
                self.sums[p].store(s, Ordering::Relaxed);
                self.stored(p, grow);
            });
        }
    }
}

fn ntt_flat_leaves(pool: &ThreadPool, log_leaves: u32) -> u64 {
    let leaves = 1usize << log_leaves;
    let vals: Vec<AtomicU64> = (0..leaves).map(|_| AtomicU64::new(0)).collect();
    pool.for_each(0..leaves, 1, |r, _| {
        vals[r.start].store(leaf(r.start as u64), Ordering::Relaxed);
    });
    vals.iter().map(|v| v.load(Ordering::Relaxed)).sum()
}

fn ntt_join_split_leaves(pool: &ThreadPool, log_leaves: u32) -> u64 {
    let leaves = 1usize << log_leaves;
    let vals: Vec<AtomicU64> = (0..leaves).map(|_| AtomicU64::new(0)).collect();
    join_split_for_each(pool, 0..leaves, 1, |r| {
        vals[r.start].store(leaf(r.start as u64), Ordering::Relaxed);
    });
    vals.iter().map(|v| v.load(Ordering::Relaxed)).sum()
}

fn fork_join(c: &mut Criterion) {
    let pool = ntt_pool();
    let rpool = rayon_pool(pool.num_workers());
    let leaves = 1u64 << LOG_LEAVES;
    let expect: u64 = (0..leaves).map(|i| i * 3 + 1).sum();
    let mut group = c.benchmark_group("runtime/fork_join");
    group.sample_size(10);
    group.throughput(Throughput::Elements(leaves));
    let param = format!("leaves=2^{LOG_LEAVES}");
    group.bench_function(BenchmarkId::new("rayon_join", &param), |b| {
        b.iter(|| assert_eq!(rpool.install(|| rayon_tree(0, leaves)), expect));
    });
    group.bench_function(BenchmarkId::new("ntt_join", &param), |b| {
        b.iter(|| assert_eq!(pool.join(|c| join_tree(c, 0, leaves), |_| 0).0, expect));
    });
    let sums: Vec<AtomicU64> = (0..2 * leaves).map(|_| AtomicU64::new(0)).collect();
    group.bench_function(BenchmarkId::new("ntt_graph_tree", &param), |b| {
        b.iter(|| assert_eq!(graph_tree(&pool, LOG_LEAVES, &sums, || {}), expect));
    });
    let post_order_sums: Vec<AtomicU64> = (0..2 * leaves - 1).map(|_| AtomicU64::new(0)).collect();
    group.bench_function(BenchmarkId::new("ntt_graph_tree_depth_first", &param), |b| {
        b.iter(|| {
            assert_eq!(
                graph_tree_depth_first(&pool, LOG_LEAVES, &post_order_sums, || {}),
                expect
            )
        });
    });
    group.bench_function(BenchmarkId::new("ntt_grown_tree", &param), |b| {
        b.iter(|| assert_eq!(ntt_grown_tree(&pool, LOG_LEAVES), expect));
    });
    group.bench_function(BenchmarkId::new("ntt_flat_leaves", &param), |b| {
        b.iter(|| assert_eq!(ntt_flat_leaves(&pool, LOG_LEAVES), expect));
    });
    group.bench_function(BenchmarkId::new("ntt_join_split_leaves", &param), |b| {
        b.iter(|| assert_eq!(ntt_join_split_leaves(&pool, LOG_LEAVES), expect));
    });
    group.finish();
}

/// About a microsecond of dependent arithmetic.
fn stage_work(a: u64, b: u64) -> u64 {
    let mut x = a ^ b.rotate_left(17);
    for _ in 0..200 {
        x = black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23));
    }
    x
}

/// Items of the uneven loop, and how much heavier the first eighth of them is.
const UNEVEN_ITEMS: usize = 4096;
const UNEVEN_SKEW: usize = 8;

/// Item `i`'s work: ~1 µs, `UNEVEN_SKEW` times that in the first eighth of the range.
fn uneven_item(i: usize) -> u64 {
    let reps = if i < UNEVEN_ITEMS / 8 { UNEVEN_SKEW } else { 1 };
    (0..reps).fold(i as u64, |x, r| stage_work(x, r as u64))
}

fn uneven_loop(c: &mut Criterion) {
    let pool = ntt_pool();
    let rpool = rayon_pool(pool.num_workers());
    let n = UNEVEN_ITEMS;
    let expect: u64 = (0..n).map(uneven_item).fold(0, u64::wrapping_add);
    let mut group = c.benchmark_group("runtime/uneven_loop");
    group.sample_size(20);
    group.throughput(Throughput::Elements(n as u64));
    let param = format!("items={n}");
    let check = |sum: &AtomicU64| assert_eq!(sum.load(Ordering::Relaxed), expect);
    let add = |sum: &AtomicU64, r: std::ops::Range<usize>| {
        let part = r.map(uneven_item).fold(0, u64::wrapping_add);
        sum.fetch_add(part, Ordering::Relaxed);
    };
    // Four fixed chunks per worker: what the encoder's passes did before splitting on demand.
    let chunk = n.div_ceil(4 * pool.num_workers());
    group.bench_function(
        BenchmarkId::new("ntt_join_split_4_chunks_per_worker", &param),
        |b| {
            b.iter(|| {
                let sum = AtomicU64::new(0);
                join_split_for_each(&pool, 0..n, chunk, |r| add(&sum, r));
                check(&sum);
            });
        },
    );
    group.bench_function(BenchmarkId::new("ntt_for_each_grain1", &param), |b| {
        b.iter(|| {
            let sum = AtomicU64::new(0);
            pool.for_each(0..n, 1, |r, _| add(&sum, r));
            check(&sum);
        });
    });
    group.bench_function(BenchmarkId::new("ntt_join_split_grain1", &param), |b| {
        b.iter(|| {
            let sum = AtomicU64::new(0);
            join_split_for_each(&pool, 0..n, 1, |r| add(&sum, r));
            check(&sum);
        });
    });
    group.bench_function(BenchmarkId::new("rayon_par_iter", &param), |b| {
        b.iter(|| {
            let sum = AtomicU64::new(0);
            rpool.install(|| (0..n).into_par_iter().for_each(|i| add(&sum, i..i + 1)));
            check(&sum);
        });
    });
    group.finish();
}

fn dag_stages(c: &mut Criterion) {
    const STAGES: usize = 16;
    const LOG_WIDTH: usize = 6;
    const WIDTH: usize = 1 << LOG_WIDTH;
    let partner = |s: usize, i: usize| i ^ (1 << (s % LOG_WIDTH));
    // Sequential reference.
    let mut expect = vec![vec![0u64; WIDTH]; STAGES + 1];
    expect[0] = (0..WIDTH as u64).collect();
    for s in 1..=STAGES {
        for i in 0..WIDTH {
            expect[s][i] = stage_work(expect[s - 1][i], expect[s - 1][partner(s, i)]);
        }
    }
    let pool = ntt_pool();
    let rpool = rayon_pool(pool.num_workers());
    let fresh = || -> Vec<Vec<AtomicU64>> {
        (0..=STAGES)
            .map(|s| {
                (0..WIDTH)
                    .map(|i| AtomicU64::new(if s == 0 { i as u64 } else { 0 }))
                    .collect()
            })
            .collect()
    };
    let mut group = c.benchmark_group("runtime/dag_stages");
    group.throughput(Throughput::Elements((STAGES * WIDTH) as u64));
    let param = format!("stages={STAGES},width={WIDTH}");
    group.bench_function(BenchmarkId::new("ntt_graph", &param), |b| {
        b.iter(|| {
            let v = fresh();
            pool.run(|g| {
                let v = &v;
                let mut prev: Vec<TaskId> = Vec::new();
                for s in 1..=STAGES {
                    let cur: Vec<TaskId> = (0..WIDTH)
                        .map(|i| {
                            g.add(move |_| {
                                let x = stage_work(
                                    v[s - 1][i].load(Ordering::Relaxed),
                                    v[s - 1][partner(s, i)].load(Ordering::Relaxed),
                                );
                                v[s][i].store(x, Ordering::Relaxed);
                            })
                        })
                        .collect();
                    if s > 1 {
                        for i in 0..WIDTH {
                            g.depend(prev[i], cur[i]);
                            g.depend(prev[partner(s, i)], cur[i]);
                        }
                    }
                    prev = cur;
                }
            });
            assert_eq!(v[STAGES][7].load(Ordering::Relaxed), expect[STAGES][7]);
        });
    });
    group.bench_function(BenchmarkId::new("rayon_par_iter_per_stage", &param), |b| {
        b.iter(|| {
            let v = fresh();
            rpool.install(|| {
                for s in 1..=STAGES {
                    (0..WIDTH).into_par_iter().for_each(|i| {
                        let x = stage_work(
                            v[s - 1][i].load(Ordering::Relaxed),
                            v[s - 1][partner(s, i)].load(Ordering::Relaxed),
                        );
                        v[s][i].store(x, Ordering::Relaxed);
                    });
                }
            });
            assert_eq!(v[STAGES][7].load(Ordering::Relaxed), expect[STAGES][7]);
        });
    });
    group.finish();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Time from submitting one task to a pool whose workers are all parked to the task starting,
/// and to the submitting call returning (the round trip: the caller is woken in turn).
fn wake_latency(pool: &ThreadPool, rpool: &rayon::ThreadPool) {
    const SAMPLES: usize = 200;
    let idle = Duration::from_millis(5);
    let (mut ntt, mut ntt_trip) = (Vec::with_capacity(SAMPLES), Vec::with_capacity(SAMPLES));
    let (mut ray, mut ray_trip) = (Vec::with_capacity(SAMPLES), Vec::with_capacity(SAMPLES));
    for _ in 0..SAMPLES {
        std::thread::sleep(idle);
        let mut started = None;
        let t0 = Instant::now();
        pool.run(|g| {
            g.add(|_| started = Some(Instant::now()));
        });
        ntt_trip.push(t0.elapsed());
        ntt.push(started.expect("task ran") - t0);

        std::thread::sleep(idle);
        let t0 = Instant::now();
        let started = rpool.install(Instant::now);
        ray_trip.push(t0.elapsed());
        ray.push(started - t0);
    }
    for v in [&mut ntt, &mut ntt_trip, &mut ray, &mut ray_trip] {
        v.sort();
    }
    println!(
        "runtime/wake_latency/ntt    median {:>8.1?}  p90 {:>8.1?}  round trip median {:>8.1?}  p90 {:>8.1?}  ({SAMPLES} samples, pool idle 5 ms before each)",
        percentile(&ntt, 0.5),
        percentile(&ntt, 0.9),
        percentile(&ntt_trip, 0.5),
        percentile(&ntt_trip, 0.9)
    );
    println!(
        "runtime/wake_latency/rayon  median {:>8.1?}  p90 {:>8.1?}  round trip median {:>8.1?}  p90 {:>8.1?}",
        percentile(&ray, 0.5),
        percentile(&ray, 0.9),
        percentile(&ray_trip, 0.5),
        percentile(&ray_trip, 0.9)
    );
}

/// User + system CPU time of the whole process so far.
fn process_cpu_time() -> Duration {
    // SAFETY: `rusage` is plain data; all-zero is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `rusage`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// CPU the process burns over one idle second (the main thread sleeps, so it is the pool's).
fn idle_cpu(name: &str, kick: impl Fn()) {
    kick();
    let before = process_cpu_time();
    std::thread::sleep(Duration::from_secs(1));
    let used = process_cpu_time() - before;
    println!(
        "runtime/idle_cpu/{name:<6} {:>8.2?} CPU over 1 s idle = {:.3}% of one core",
        used,
        used.as_secs_f64() * 100.0
    );
}

fn pool_of(workers: usize, handoff_cost: Option<Duration>) -> Arc<ThreadPool> {
    let mut builder = ThreadPoolBuilder::new().num_threads(workers);
    if let Some(cost) = handoff_cost {
        builder = builder.handoff_cost(cost);
    }
    Arc::new(builder.build().expect("pool"))
}

/// A committer with the detected backend on `pool`.
fn committer_on(pool: &Arc<ThreadPool>) -> Committer {
    let encoder = Encoder::builder()
        .pool(Arc::clone(pool))
        .backend(Backend::detect())
        .build()
        .expect("an encoder on a given pool and backend sets up");
    Committer::new(encoder)
}

/// Small commits (encode + BLAKE3 commitment, rate 1/2, lane-major witness of `2^log_rows`
/// rows) through the pool against the same commit run inline on the calling thread. The
/// variants are timed in turn, sample after sample and in a fresh random order each sample,
/// so drifting load and the state one variant leaves the CPUs in hit them alike; medians.
fn small_commits() {
    const SAMPLES: usize = 41;
    let inline_pool = pool_of(2, None);
    let variants: Vec<(&str, Arc<ThreadPool>)> = vec![
        ("1 worker", pool_of(1, None)),
        ("2 workers", pool_of(2, None)),
        ("2, hand-off", pool_of(2, Some(Duration::ZERO))),
    ];
    let committers: Vec<Committer> = variants.iter().map(|(_, p)| committer_on(p)).collect();
    let inline = committer_on(&inline_pool);
    println!(
        "runtime/small_commit  rows x lanes: inline median, then each variant's median and ratio to inline"
    );
    for log_rows in [10u32, 12, 14] {
        for lanes in [1usize, 3, 8, 24] {
            let witness = ntt_benches::witness(log_rows).repeat(lanes);
            let commit = |c: &Committer| {
                let t0 = Instant::now();
                let (commitment, _) = c
                    .commit(&witness, CommitParams::lanes(lanes).log_inv_rate(1))
                    .expect("commit");
                (t0.elapsed(), commitment.root())
            };
            let mut times = vec![Vec::with_capacity(SAMPLES); variants.len() + 1];
            let mut root = None;
            let mut order: Vec<usize> = (0..=committers.len()).collect();
            let mut rng = ChaCha8Rng::seed_from_u64(u64::from(log_rows) << 8 | lanes as u64);
            for _ in 0..SAMPLES {
                // A fresh random order each sample: the variant timed right after another
                // finds that one's workers still spinning (or the CPUs in the state its run
                // left), and a fixed order, or one that only rotates (where each variant
                // always follows the same one), would charge that to one variant.
                order.shuffle(&mut rng);
                for &v in &order {
                    let (t, r) = if v == 0 {
                        inline_pool.with_work_estimate(Duration::ZERO, || commit(&inline))
                    } else {
                        commit(&committers[v - 1])
                    };
                    times[v].push(t);
                    assert_eq!(*root.get_or_insert(r), r, "roots differ");
                }
            }
            let medians: Vec<Duration> = times
                .iter_mut()
                .map(|t| {
                    t.sort();
                    percentile(t, 0.5)
                })
                .collect();
            let mut line = format!(
                "runtime/small_commit  2^{log_rows:<2} x {lanes:>2}: inline {:>9.1?}",
                medians[0]
            );
            for ((name, _), m) in variants.iter().zip(&medians[1..]) {
                line += &format!(
                    " | {name} {m:>9.1?} ({:.2}x)",
                    m.as_secs_f64() / medians[0].as_secs_f64()
                );
            }
            println!("{line}");
        }
    }
}

/// Binds the calling thread to `cpus` (and threads it starts afterwards, which inherit it).
fn bind_to(cpus: &[usize]) {
    // SAFETY: a zeroed `cpu_set_t` is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: `c` is below CPU_SETSIZE (an allowed CPU number of this machine).
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; 0 is the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    assert_eq!(rc, 0, "sched_setaffinity({cpus:?})");
}

/// The CPUs the process may run on.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed `cpu_set_t` is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    assert_eq!(rc, 0, "sched_getaffinity");
    // SAFETY: `set` was filled in above.
    (0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// A busy neighbour: a thread spinning on CPU `a` while a 2-worker pool (pinned to CPUs `a` and
/// `b`) runs a pass, against a 1-worker pool on CPU `b` alone. The pass is an even loop of
/// 4096 items of ~1 µs (in four fixed chunks per worker, as the encoder used to, and split on
/// demand) and a commit (the encoder's passes as built); 21 interleaved samples, medians.
fn noisy_neighbour() {
    const SAMPLES: usize = 21;
    let allowed = allowed_cpus();
    let [a, b] = [allowed[0], *allowed.get(1).expect("two allowed CPUs")];
    bind_to(&[a, b]);
    let two = Arc::new(ThreadPoolBuilder::new().num_threads(2).build().expect("pool"));
    bind_to(&[b]);
    let one = Arc::new(ThreadPoolBuilder::new().num_threads(1).build().expect("pool"));
    bind_to(&allowed);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinner = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            bind_to(&[a]);
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x = black_box(x.wrapping_add(1));
            }
        })
    };
    let n = 4096;
    let expect: u64 = (0..n).map(|i| stage_work(i as u64, 1)).fold(0, u64::wrapping_add);
    let even = |sum: &AtomicU64, r: std::ops::Range<usize>| {
        let part = r.map(|i| stage_work(i as u64, 1)).fold(0, u64::wrapping_add);
        sum.fetch_add(part, Ordering::Relaxed);
    };
    let fixed = |pool: &ThreadPool| {
        let sum = AtomicU64::new(0);
        join_split_for_each(pool, 0..n, n.div_ceil(4 * pool.num_workers()), |r| even(&sum, r));
        assert_eq!(sum.into_inner(), expect);
    };
    let adaptive = |pool: &ThreadPool| {
        let sum = AtomicU64::new(0);
        pool.for_each(0..n, 1, |r, _| even(&sum, r));
        assert_eq!(sum.into_inner(), expect);
    };
    let (log_rows, lanes) = (14u32, 64usize);
    let witness = ntt_benches::witness(log_rows).repeat(lanes);
    let committers: Vec<Committer> = [&two, &one]
        .iter()
        .map(|p| {
            let encoder = Encoder::builder()
                .pool(Arc::clone(p))
                .backend(Backend::detect())
                .build()
                .expect("an encoder on a running pool builds");
            Committer::new(encoder)
        })
        .collect();
    let commit = |c: &Committer| {
        let (commitment, _) = c
            .commit(&witness, CommitParams::lanes(lanes).log_inv_rate(1))
            .expect("commit");
        commitment.root()
    };
    let time = |f: &dyn Fn()| {
        let t0 = Instant::now();
        f();
        t0.elapsed()
    };
    let mut times: Vec<Vec<Duration>> = (0..6).map(|_| Vec::with_capacity(SAMPLES)).collect();
    for _ in 0..SAMPLES {
        times[0].push(time(&|| fixed(&two)));
        times[1].push(time(&|| fixed(&one)));
        times[2].push(time(&|| adaptive(&two)));
        times[3].push(time(&|| adaptive(&one)));
        times[4].push(time(&|| {
            black_box(commit(&committers[0]));
        }));
        times[5].push(time(&|| {
            black_box(commit(&committers[1]));
        }));
    }
    stop.store(true, Ordering::Relaxed);
    spinner.join().expect("spinner");
    let median = |t: &mut Vec<Duration>| {
        t.sort();
        percentile(t, 0.5)
    };
    let m: Vec<Duration> = times.iter_mut().map(median).collect();
    println!(
        "runtime/noisy_neighbour  busy loop on CPU {a}; 2 workers on CPUs {a},{b} vs 1 worker on CPU {b}"
    );
    for (name, two, one) in [
        ("loop, 4 fixed chunks/worker", m[0], m[1]),
        ("loop, split on demand", m[2], m[3]),
        ("commit 2^14 x 64, rate 1/2", m[4], m[5]),
    ] {
        println!(
            "runtime/noisy_neighbour  {name:<28} 2 workers {two:>9.2?}  1 worker {one:>9.2?}  ({:.2}x)",
            one.as_secs_f64() / two.as_secs_f64()
        );
    }
}

/// Pools far larger than the machine: building one, running small graphs on it (handed to
/// the workers, never inline) and dropping it, at 2, 512 and 4096 workers.
fn many_workers() {
    for workers in [2usize, 512, 4096] {
        let t0 = Instant::now();
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("pool");
        let built = t0.elapsed();
        let mut runs = Vec::new();
        for _ in 0..50 {
            let count = AtomicU64::new(0);
            let t = Instant::now();
            pool.for_each(0..64, 1, |_, _| {
                count.fetch_add(1, Ordering::Relaxed);
            });
            runs.push(t.elapsed());
            assert_eq!(count.load(Ordering::Relaxed), 64);
        }
        runs.sort();
        let t = Instant::now();
        drop(pool);
        println!(
            "runtime/many_workers/{workers:<5} build {built:>9.1?}  64-task for_each median {:>9.1?} p90 {:>9.1?}  drop {:>9.1?}",
            percentile(&runs, 0.5),
            percentile(&runs, 0.9),
            t.elapsed()
        );
    }
}

fn main() {
    if std::env::var_os("NTT_BENCH_SMALL_COMMITS").is_some() {
        small_commits();
    }
    if std::env::var_os("NTT_BENCH_MANY_WORKERS").is_some() {
        many_workers();
    }
    if std::env::var_os("NTT_BENCH_NOISY").is_some() {
        noisy_neighbour();
        return;
    }
    {
        let pool = ntt_pool();
        let rpool = rayon_pool(pool.num_workers());
        println!("runtime benches: {} workers each", pool.num_workers());
        wake_latency(&pool, &rpool);
        idle_cpu("ntt", || {
            pool.for_each(0..1000, 1, |r, _| {
                black_box(r);
            })
        });
        idle_cpu("rayon", || {
            rpool.install(|| {
                (0..1000).into_par_iter().for_each(|i| {
                    black_box(i);
                })
            })
        });
    }
    let mut c = Criterion::default().configure_from_args();
    fan_out(&mut c);
    fork_join(&mut c);
    dag_stages(&mut c);
    uneven_loop(&mut c);
    c.final_summary();
}
