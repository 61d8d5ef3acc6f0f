//! ntt-engine against what a user would pick instead, on the production shape (64 lanes, rate
//! 1/2, witnesses of 2^20 and 2^22 words) at one worker and at every core.
//!
//! Groups (throughput = witness bytes, so criterion's GiB/s is over the committed data):
//! - `encode/{ntt-engine,p3-lch}/log_n=N/t=T`: the transform alone, input already in a warm
//!   buffer: our `encode_in_place` on the row-major message, Plonky3's
//!   `LchNtt::<Poly64>::ntt_batch_padded` on the zero-padded row-major message (its rayon
//!   pool fixed at T threads). p3's domain is the Cantor basis, so only speed is compared.
//! - `commit/{ntt-engine,rayon-blake3}/…`: commit a lane-major witness into a freshly
//!   allocated codeword: ours (streaming BLAKE3) against the same transform driven by rayon one
//!   layer at a time, then BLAKE3 of the codeword in a second pass.
//! - `hash/{streaming,after-encode}/…`: our commit with a reused buffer against our encode into
//!   a warm buffer followed by a second BLAKE3 pass (one thread, or `update_rayon` on T).
//!
//! Method: `iter_custom`, each iteration timing only the call (buffer refills and frees are
//! outside the clock). Before a shape is timed the bench asserts that our codeword equals the
//! rayon baseline's and that every root agrees. Build with `RUSTFLAGS="-C target-cpu=native"`
//! so p3 gets its VPCLMULQDQ kernels (it selects them at compile time; ours at run time):
//! `RUSTFLAGS="-C target-cpu=native" cargo bench -p ntt-benches --bench baselines`.

use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use ntt_benches::bytes::as_le_bytes;
use ntt_benches::ours::{Ours, warm_buffer};
use ntt_benches::p3_lch;
use ntt_benches::rayon_lch::{HashThreads, RayonLch, hash_codeword};
use ntt_benches::witness::lanes_to_rows;
use ntt_benches::{BenchShape, witness};
use ntt_kernels::Backend;
use ntt_pcs::CommitParams;
use std::hint::black_box;
use std::time::{Duration, Instant};

const LOG_NS: [u32; 2] = [20, 22];
const LANES: usize = 64;
const LOG_INV_RATE: u32 = 1;
/// The committed code: 64 lanes, lane-major, rate 1/2.
const PARAMS: CommitParams = CommitParams::lanes(LANES).log_inv_rate(LOG_INV_RATE);

fn worker_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 { vec![1, cores] } else { vec![1] }
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a small rayon pool builds")
}

/// Sums the durations `run` reports over `iters` calls.
fn total(iters: u64, mut run: impl FnMut() -> Duration) -> Duration {
    (0..iters).map(|_| run()).sum()
}

fn id(engine: &str, shape: BenchShape, workers: usize) -> String {
    let log_n = shape
        .log_n()
        .expect("the baselines bench 64 lanes, a power of two");
    format!("{engine}/log_n={log_n}/t={workers}")
}

fn group<'a>(c: &'a mut Criterion, name: &str, shape: BenchShape) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(shape.witness_bytes() as u64));
    g.sample_size(10);
    // Long iterations: the same count in every sample, not 1, 2, … 10 times a base count.
    g.sampling_mode(SamplingMode::Flat);
    g
}

/// Our codeword equals the rayon baseline's, and our root is BLAKE3 of it.
fn assert_agree(engine: &Ours, shape: BenchShape, message: &[u64]) {
    let pool = rayon_pool(engine.workers);
    let mut theirs = vec![0u64; shape.codeword_words()];
    let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
    let root = baseline.commit(
        &pool,
        message,
        LANES,
        LOG_INV_RATE,
        &mut theirs,
        HashThreads::Pool,
    );
    let (commitment, data) = engine
        .committer
        .commit(message, PARAMS)
        .expect("the bench shape commits");
    assert!(data.codeword() == theirs, "codewords differ at {}", shape.label());
    assert_eq!(
        commitment.root_hex(),
        root.to_hex().as_str(),
        "roots differ at {}",
        shape.label()
    );
}

fn encode(c: &mut Criterion) {
    for log_n in LOG_NS {
        let shape = BenchShape::lanes64(log_n, LOG_INV_RATE);
        let message = witness(log_n);
        let rows = lanes_to_rows(&message, LANES);
        let mut g = group(c, "encode", shape);
        for workers in worker_counts() {
            let engine = Ours::new(workers);
            assert_agree(&engine, shape, &message);
            let mut ours = vec![0u64; shape.codeword_words()];
            g.bench_function(id("ntt-engine", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        ours[..rows.len()].copy_from_slice(&rows);
                        let start = Instant::now();
                        engine.encode_in_place(black_box(&mut ours), PARAMS);
                        start.elapsed()
                    })
                })
            });
            let pool = rayon_pool(workers);
            let mut buffer = Some(p3_lch::padded(&rows, LOG_INV_RATE));
            g.bench_function(id("p3-lch", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        let mut padded = buffer.take().expect("returned after each run");
                        p3_lch::fill_padded(&mut padded, &rows);
                        let (out, elapsed) = pool.install(|| {
                            let start = Instant::now();
                            let out = p3_lch::encode(black_box(padded), LANES, LOG_INV_RATE);
                            (out, start.elapsed())
                        });
                        buffer = Some(out);
                        elapsed
                    })
                })
            });
        }
        g.finish();
    }
}

fn commit(c: &mut Criterion) {
    for log_n in LOG_NS {
        let shape = BenchShape::lanes64(log_n, LOG_INV_RATE);
        let message = witness(log_n);
        let mut g = group(c, "commit", shape);
        for workers in worker_counts() {
            let engine = Ours::new(workers);
            g.bench_function(id("ntt-engine", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        let start = Instant::now();
                        let out = engine.committer.commit(&message, PARAMS);
                        let elapsed = start.elapsed();
                        drop(black_box(out.expect("the bench shape commits")));
                        elapsed
                    })
                })
            });
            let pool = rayon_pool(workers);
            let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
            let hash = if workers > 1 {
                HashThreads::Pool
            } else {
                HashThreads::One
            };
            g.bench_function(id("rayon-blake3", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        let start = Instant::now();
                        let mut codeword = vec![0u64; shape.codeword_words()];
                        black_box(baseline.commit(&pool, &message, LANES, LOG_INV_RATE, &mut codeword, hash));
                        let elapsed = start.elapsed();
                        drop(codeword);
                        elapsed
                    })
                })
            });
        }
        g.finish();
    }
}

fn hash(c: &mut Criterion) {
    for log_n in LOG_NS {
        let shape = BenchShape::lanes64(log_n, LOG_INV_RATE);
        let message = witness(log_n);
        let mut g = group(c, "hash", shape);
        for workers in worker_counts() {
            let engine = Ours::new(workers);
            let pool = rayon_pool(workers);
            let hash = if workers > 1 {
                HashThreads::Pool
            } else {
                HashThreads::One
            };
            let commit = |reuse| match reuse {
                None => engine.committer.commit(&message, PARAMS),
                Some(old) => engine.committer.commit_reusing(&message, PARAMS, old),
            };
            let (commitment, data) = commit(None).expect("the bench shape commits");
            let mut warm = warm_buffer(shape.codeword_words());
            engine.encode_lanes(&message, &mut warm, PARAMS);
            // SAFETY: `warm_buffer` initialized every word and the encode rewrote them all.
            let encoded = unsafe { ntt_benches::ours::assume_init(&warm) };
            assert_eq!(
                commitment.root_hex(),
                blake3::hash(as_le_bytes(encoded)).to_hex().as_str()
            );
            let mut reused = Some(data);
            g.bench_function(id("streaming", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        let start = Instant::now();
                        let (_, data) = commit(reused.take()).expect("the bench shape commits");
                        let elapsed = start.elapsed();
                        reused = Some(data);
                        elapsed
                    })
                })
            });
            g.bench_function(id("after-encode", shape, workers), |b| {
                b.iter_custom(|iters| {
                    total(iters, || {
                        let start = Instant::now();
                        engine.encode_lanes(&message, &mut warm, PARAMS);
                        // SAFETY: the encode wrote every word.
                        let words = unsafe { ntt_benches::ours::assume_init(&warm) };
                        black_box(hash_codeword(&pool, words, hash));
                        start.elapsed()
                    })
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = baselines;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = encode, commit, hash
}
criterion_main!(baselines);
