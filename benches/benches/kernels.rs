//! Row-kernel throughput: nanoseconds per lane-butterfly with the rows in L1, per backend.
//!
//! Method: each iteration runs one kernel call over data that stays in L1 (16 KiB): the plain
//! butterfly on two rows of 1024 words (1024 lane-butterflies), and the radix-8 group on eight
//! segments of 256 words (12 butterflies per column: 3072 lane-butterflies). Throughput is set
//! in elements = lane-butterflies, so criterion's "elem/s" inverts to ns per lane-butterfly.
//! The butterflies are applied in place over and over; the values stay pseudo-random field
//! elements (the maps are bijections), so the work per call never changes. The bitwise
//! reference is the baseline of each group, and every backend's output is checked against the
//! portable backend before it is timed.
//!
//! The machine these run on is shared and often oversubscribed, which inflates criterion's
//! mean-based estimates; so after the criterion groups the bench also prints, per backend, the
//! best of 300 batches (each 50 calls; 2 for the slow portable and reference paths) in ns per
//! lane-butterfly: the figure an uncontended core reaches. Both are recorded in
//! docs/PERFORMANCE.md.
//!
//! Run: `cargo bench -p ntt-benches --bench kernels` (`-- radix8` to filter the criterion
//! groups; the best-batch table always runs under `cargo bench`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use ntt_benches::seeded_words;
use ntt_kernels::{Backend, reference};
use std::hint::black_box;
use std::time::{Duration, Instant};

const BUTTERFLY_WORDS: usize = 1024;
const RADIX8_SEGMENT: usize = 256;
const TWIDDLES: [u64; 7] = [
    0x0123_4567_89ab_cdef,
    0xfedc_ba98_7654_3210,
    0x8000_0000_0000_001b,
    0x5555_5555_5555_5555,
    0xdead_beef_cafe_f00d,
    0x0f0f_0f0f_f0f0_f0f0,
    0x9e37_79b9_7f4a_7c15,
];

fn butterfly(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel/butterfly");
    group.throughput(Throughput::Elements(BUTTERFLY_WORDS as u64));
    let data = seeded_words(2 * BUTTERFLY_WORDS, 1);
    let expected = {
        let mut d = data.clone();
        let (u, v) = d.split_at_mut(BUTTERFLY_WORDS);
        Backend::portable().butterfly(u, v, TWIDDLES[0]);
        d
    };
    let mut buf = data.clone();
    group.bench_function("reference", |b| {
        b.iter(|| {
            let (u, v) = buf.split_at_mut(BUTTERFLY_WORDS);
            reference::butterfly(u, v, black_box(TWIDDLES[0]));
        })
    });
    for backend in Backend::available() {
        let mut buf = data.clone();
        let (u, v) = buf.split_at_mut(BUTTERFLY_WORDS);
        backend.butterfly(u, v, TWIDDLES[0]);
        assert_eq!(buf, expected, "{} disagrees with portable", backend.name());
        group.bench_function(BenchmarkId::from_parameter(backend.name()), |b| {
            b.iter(|| {
                let (u, v) = buf.split_at_mut(BUTTERFLY_WORDS);
                backend.butterfly(u, v, black_box(TWIDDLES[0]));
            })
        });
    }
    group.finish();
}

fn radix8(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel/radix8");
    group.throughput(Throughput::Elements(12 * RADIX8_SEGMENT as u64));
    let data = seeded_words(8 * RADIX8_SEGMENT, 2);
    let expected = {
        let mut d = data.clone();
        Backend::portable().radix8(&mut d, TWIDDLES);
        d
    };
    let mut buf = data.clone();
    group.bench_function("reference", |b| {
        b.iter(|| {
            // The twelve butterflies one row pair at a time, as the definition reads.
            let e = RADIX8_SEGMENT;
            let pairs = [
                (0, 4, 0),
                (1, 5, 0),
                (2, 6, 0),
                (3, 7, 0),
                (0, 2, 1),
                (1, 3, 1),
                (4, 6, 2),
                (5, 7, 2),
                (0, 1, 3),
                (2, 3, 4),
                (4, 5, 5),
                (6, 7, 6),
            ];
            for (a, b, k) in pairs {
                let (lo, hi) = buf.split_at_mut(b * e);
                reference::butterfly(&mut lo[a * e..(a + 1) * e], &mut hi[..e], TWIDDLES[k]);
            }
        })
    });
    for backend in Backend::available() {
        let mut buf = data.clone();
        backend.radix8(&mut buf, TWIDDLES);
        assert_eq!(buf, expected, "{} disagrees with portable", backend.name());
        group.bench_function(BenchmarkId::from_parameter(backend.name()), |b| {
            b.iter(|| backend.radix8(black_box(&mut buf), black_box(TWIDDLES)))
        });
    }
    group.finish();
}

criterion_group! {
    name = kernels;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(40);
    targets = butterfly, radix8
}
/// The fastest of `batches` timed batches of `calls` calls, in ns per lane-butterfly.
fn best_batch(batches: usize, calls: usize, lane_butterflies: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..batches {
        let start = Instant::now();
        for _ in 0..calls {
            f();
        }
        let ns = start.elapsed().as_nanos() as f64 / (calls * lane_butterflies) as f64;
        best = best.min(ns);
    }
    best
}

fn best_batch_table() {
    println!("best of 300 batches, ns per lane-butterfly (rows in L1)");
    println!("{:<10} {:>10} {:>10}", "backend", "butterfly", "radix8");
    for backend in Backend::available() {
        let calls = if backend.vector_width() == 1 { 2 } else { 50 };
        let mut pair = seeded_words(2 * BUTTERFLY_WORDS, 3);
        let butterfly = best_batch(300, calls, BUTTERFLY_WORDS, || {
            let (u, v) = pair.split_at_mut(BUTTERFLY_WORDS);
            backend.butterfly(black_box(u), v, black_box(TWIDDLES[0]));
        });
        let mut block = seeded_words(8 * RADIX8_SEGMENT, 4);
        let radix8 = best_batch(300, calls, 12 * RADIX8_SEGMENT, || {
            backend.radix8(black_box(&mut block), black_box(TWIDDLES));
        });
        println!("{:<10} {butterfly:>10.3} {radix8:>10.3}", backend.name());
    }
}

fn main() {
    kernels();
    Criterion::default().configure_from_args().final_summary();
    // `cargo test --all-targets` runs this binary without `--bench`: skip the timing table there.
    if std::env::args().any(|a| a == "--bench") {
        best_batch_table();
    }
}
