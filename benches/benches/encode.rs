//! Encode throughput: the target shape of a 2^24-word witness as 64 lanes at rate 1/2 (2^19
//! codeword rows × 64 lanes, 256 MiB), and the commit shape 2^22 words (2^17 rows, lane-major).
//!
//! Method: buffers are allocated and touched once outside the timing (warm buffers, no page
//! faults); each iteration runs one encode with no sink (in-place encodes restore replica 0
//! before each timed encode, outside the timing, with `iter_custom`). Throughput is set in
//! lane-butterflies (rows/2 × (log rows − r) × lanes), so criterion's elem/s inverts to ns per
//! lane-butterfly. Baseline in each group: the same encoder with the prior art's fixed plan
//! constants (512 KiB / 2 MiB budgets, deep pass sized to the 2 MiB budget, wide with 64
//! residues only at ≤ 2 workers). Before timing, every
//! configuration's codeword is checked against the default plan's (BLAKE3 of the bytes).
//!
//! Run: `cargo bench -p ntt-benches --bench encode` (`-- workers=1` to filter).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ntt_kernels::Backend;
use ntt_pcs::{Encoder, MessageLayout, PlanConfig, Shape};
use ntt_runtime::ThreadPoolBuilder;
use std::mem::MaybeUninit;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// The prior art's fixed constants, expressed as forced planner values: 512 KiB / 2 MiB
/// budgets, the deep pass sized to the 2 MiB "L3" budget, and at ≤ 2 workers the wide plan with
/// 64 residues.
fn prior_art_plan(workers: usize) -> PlanConfig {
    let few = workers <= 2;
    PlanConfig {
        l2_bytes: Some(512 << 10),
        l3_bytes: Some(2 << 20),
        wide: Some(few),
        log_residues: few.then_some(6),
        deep: Some(ntt_pcs::DeepBudget::L3),
        stream: None,
    }
}

fn hash(words: &[u64]) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for w in words {
        h.update(&w.to_le_bytes());
    }
    h.finalize()
}

fn encode_in_place(c: &mut Criterion) {
    let shape = Shape {
        log_rows: 19,
        lanes: 64,
        log_inv_rate: 1,
    };
    let msg = words(shape.message_words(), 1);
    let mut group = c.benchmark_group(format!(
        "ntt/encode_in_place/log_rows={}x{}",
        shape.log_rows, shape.lanes
    ));
    group.sample_size(10).measurement_time(Duration::from_secs(12));
    group.throughput(Throughput::Elements(shape.lane_butterflies()));
    for workers in [1, 2] {
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .expect("pool"),
        );
        let mut expect = None;
        for (name, config) in [
            ("topology", PlanConfig::default()),
            ("prior-art-constants", prior_art_plan(workers)),
        ] {
            let enc = Encoder::new(pool.clone(), Backend::detect()).with_config(config);
            let mut data = vec![0u64; shape.codeword_words()];
            data[..msg.len()].copy_from_slice(&msg);
            enc.encode_in_place(&mut data, shape.lanes, shape.log_inv_rate, None)
                .expect("encode");
            let h = hash(&data);
            assert_eq!(
                *expect.get_or_insert(h),
                h,
                "{name} plan gives a different codeword"
            );
            group.bench_function(BenchmarkId::new(name, format!("workers={workers}")), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        data[..msg.len()].copy_from_slice(&msg);
                        let t0 = Instant::now();
                        enc.encode_in_place(&mut data, shape.lanes, shape.log_inv_rate, None)
                            .expect("encode");
                        total += t0.elapsed();
                    }
                    total
                })
            });
        }
    }
    group.finish();
}

fn encode_lane_major(c: &mut Criterion) {
    let shape = Shape {
        log_rows: 17,
        lanes: 64,
        log_inv_rate: 1,
    };
    let msg = words(shape.message_words(), 2);
    let mut group = c.benchmark_group(format!(
        "ntt/encode_lanes/log_rows={}x{}",
        shape.log_rows, shape.lanes
    ));
    group.sample_size(20).measurement_time(Duration::from_secs(6));
    group.throughput(Throughput::Elements(shape.lane_butterflies()));
    for workers in [1, 2] {
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .expect("pool"),
        );
        let mut expect = None;
        for (name, config) in [
            ("topology", PlanConfig::default()),
            ("prior-art-constants", prior_art_plan(workers)),
        ] {
            let enc = Encoder::new(pool.clone(), Backend::detect()).with_config(config);
            let mut out = vec![MaybeUninit::new(0u64); shape.codeword_words()];
            enc.encode(
                &msg,
                MessageLayout::Lanes,
                &mut out,
                shape.lanes,
                shape.log_inv_rate,
                None,
            )
            .expect("encode");
            // SAFETY: every word was initialised by `MaybeUninit::new` and then by the encode.
            let h = hash(&out.iter().map(|w| unsafe { w.assume_init() }).collect::<Vec<_>>());
            assert_eq!(
                *expect.get_or_insert(h),
                h,
                "{name} plan gives a different codeword"
            );
            group.bench_function(BenchmarkId::new(name, format!("workers={workers}")), |b| {
                b.iter(|| {
                    enc.encode(
                        &msg,
                        MessageLayout::Lanes,
                        &mut out,
                        shape.lanes,
                        shape.log_inv_rate,
                        None,
                    )
                    .expect("encode")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, encode_in_place, encode_lane_major);
criterion_main!(benches);
