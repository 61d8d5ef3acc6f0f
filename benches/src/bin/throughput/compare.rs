//! The baselines side by side with the engine, interleaved in one run so that their ratio is
//! measured under the same noise.

use crate::measurement::{Buffers, Measurement};
use ntt_benches::p3_lch;
use ntt_benches::rayon_lch::{HashThreads, RayonLch};
use ntt_benches::timing::interleaved;
use ntt_benches::witness::lanes_to_rows;
use ntt_benches::{BenchShape, Ours, WITNESS_SEED, seeded_words};
use ntt_kernels::Backend;
use ntt_pcs::CommitParams;
use std::time::Instant;

/// One comparison: every engine's median, and each baseline's time over the engine's.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Comparison {
    pub op: &'static str,
    pub shape: BenchShape,
    pub workers: usize,
    pub results: Vec<Measurement>,
}

fn rayon_pool(workers: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("a rayon pool of a few threads builds")
}

/// A timed candidate of a comparison.
type Candidate<'a> = (&'static str, Box<dyn FnMut() -> f64 + 'a>);

/// Encode, transform only, input already in the buffer: p3's `ntt_batch_padded` on a padded
/// row-major buffer; the rayon baseline from the lane-major witness into a warm codeword.
///
/// The engine encodes in place from the row-major message (the setup that p3 gets); its codeword
/// must equal the rayon baseline's, which is asserted.
pub(crate) fn encode(engine: &Ours, shape: BenchShape, rounds: usize) -> Comparison {
    let workers = engine.workers;
    let pool = rayon_pool(workers);
    let message = seeded_words(shape.witness_words(), WITNESS_SEED);
    let rows = lanes_to_rows(&message, shape.lanes);
    let (lanes, r) = (shape.lanes, shape.log_inv_rate);
    let mut p3_buffer = Some(p3_lch::padded(&rows, r));
    let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
    let mut codeword = vec![0u64; shape.codeword_words()];
    let mut ours = vec![0u64; shape.codeword_words()];
    let mut candidates: Vec<Candidate<'_>> = vec![
        (
            "ntt-engine",
            Box::new(|| {
                ours[..rows.len()].copy_from_slice(&rows);
                let start = Instant::now();
                engine.encode_in_place(&mut ours, CommitParams::lanes(lanes).log_inv_rate(r));
                start.elapsed().as_secs_f64()
            }),
        ),
        (
            "p3-binary-dft",
            Box::new(|| {
                let mut buffer = p3_buffer.take().expect("the buffer comes back after each run");
                p3_lch::fill_padded(&mut buffer, &rows);
                let (out, secs) = pool.install(|| {
                    let start = Instant::now();
                    let out = p3_lch::encode(buffer, lanes, r);
                    (out, start.elapsed().as_secs_f64())
                });
                p3_buffer = Some(out);
                secs
            }),
        ),
        (
            "rayon-layers",
            Box::new(|| {
                let start = Instant::now();
                baseline.encode(&pool, &message, lanes, r, &mut codeword);
                start.elapsed().as_secs_f64()
            }),
        ),
    ];
    let comparison = run("encode", shape, workers, rounds, Buffers::Reused, &mut candidates);
    drop(candidates);
    assert!(
        ours == codeword,
        "engine and rayon baseline codewords differ at {}",
        shape.label()
    );
    comparison
}

/// Commit from the lane-major witness into a freshly allocated codeword each time; the roots
/// must agree, which is asserted.
pub(crate) fn commit(engine: &Ours, shape: BenchShape, rounds: usize) -> Comparison {
    let workers = engine.workers;
    let pool = rayon_pool(workers);
    let message = seeded_words(shape.witness_words(), WITNESS_SEED);
    let (lanes, r) = (shape.lanes, shape.log_inv_rate);
    let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
    let hash = if workers > 1 {
        HashThreads::Pool
    } else {
        HashThreads::One
    };
    let (mut our_root, mut their_root) = (String::new(), String::new());
    let mut candidates: Vec<Candidate<'_>> = vec![
        (
            "ntt-engine",
            Box::new(|| {
                let start = Instant::now();
                let (commitment, data) = engine
                    .committer
                    .commit(&message, CommitParams::lanes(lanes).log_inv_rate(r))
                    .expect("a valid bench shape commits");
                let secs = start.elapsed().as_secs_f64();
                drop(data);
                our_root = commitment.root_hex();
                secs
            }),
        ),
        (
            "rayon+blake3",
            Box::new(|| {
                let start = Instant::now();
                let mut codeword = vec![0u64; shape.codeword_words()];
                let root = baseline.commit(&pool, &message, lanes, r, &mut codeword, hash);
                let secs = start.elapsed().as_secs_f64();
                drop(codeword);
                their_root = root.to_hex().to_string();
                secs
            }),
        ),
    ];
    let comparison = run("commit", shape, workers, rounds, Buffers::Fresh, &mut candidates);
    drop(candidates);
    assert_eq!(
        our_root,
        their_root,
        "engine and rayon baseline roots differ at {}",
        shape.label()
    );
    comparison
}

fn run(
    op: &'static str,
    shape: BenchShape,
    workers: usize,
    rounds: usize,
    buffers: Buffers,
    candidates: &mut [Candidate<'_>],
) -> Comparison {
    let mut runs: Vec<&mut dyn FnMut() -> f64> = candidates
        .iter_mut()
        .map(|(_, f)| &mut **f as &mut dyn FnMut() -> f64)
        .collect();
    let samples = interleaved(rounds, &mut runs);
    let results = candidates
        .iter()
        .zip(&samples)
        .map(|((engine, _), s)| Measurement::new(op, engine, shape, workers, buffers, s))
        .collect();
    Comparison {
        op,
        shape,
        workers,
        results,
    }
}
