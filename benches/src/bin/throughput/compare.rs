//! The baselines side by side with the engine, interleaved in one run so that their ratio is
//! measured under the same noise.

use crate::measurement::{Buffers, Measurement};
use ntt_benches::p3_lch;
use ntt_benches::rayon_lch::{HashThreads, RayonLch};
use ntt_benches::timing::interleaved;
use ntt_benches::witness::lanes_to_rows;
use ntt_benches::{BenchShape, witness};
use ntt_kernels::Backend;
use std::time::Instant;

/// One comparison: every engine's median, and each baseline's time over the engine's.
#[derive(Debug, serde::Serialize)]
pub struct Comparison {
    pub op: &'static str,
    pub log_n: u32,
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
pub fn encode(shape: BenchShape, workers: usize, rounds: usize) -> Comparison {
    let pool = rayon_pool(workers);
    let message = witness(shape.log_n);
    let rows = lanes_to_rows(&message, shape.lanes);
    let (lanes, r) = (shape.lanes, shape.log_inv_rate);
    let mut p3_buffer = Some(p3_lch::padded(&rows, r));
    let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
    let mut codeword = vec![0u64; shape.codeword_words()];
    let mut candidates: Vec<Candidate<'_>> = vec![
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
            "rayon+blake3",
            Box::new(|| {
                let start = Instant::now();
                baseline.encode(&pool, &message, lanes, r, &mut codeword);
                start.elapsed().as_secs_f64()
            }),
        ),
    ];
    run("encode", shape, workers, rounds, Buffers::Reused, &mut candidates)
}

/// Commit from the lane-major witness into a freshly allocated codeword each time.
pub fn commit(shape: BenchShape, workers: usize, rounds: usize) -> Comparison {
    let pool = rayon_pool(workers);
    let message = witness(shape.log_n);
    let (lanes, r) = (shape.lanes, shape.log_inv_rate);
    let baseline = RayonLch::new(Backend::detect(), shape.log_rows());
    let hash = if workers > 1 {
        HashThreads::Pool
    } else {
        HashThreads::One
    };
    let mut candidates: Vec<Candidate<'_>> = vec![(
        "rayon+blake3",
        Box::new(|| {
            let start = Instant::now();
            let mut codeword = vec![0u64; shape.codeword_words()];
            std::hint::black_box(baseline.commit(&pool, &message, lanes, r, &mut codeword, hash));
            drop(codeword);
            start.elapsed().as_secs_f64()
        }),
    )];
    run("commit", shape, workers, rounds, Buffers::Fresh, &mut candidates)
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
        log_n: shape.log_n,
        workers,
        results,
    }
}
