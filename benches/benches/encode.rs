//! Encode throughput: the target shape of a 2^24-word witness as 64 lanes at rate 1/2 (2^19
//! codeword rows × 64 lanes, 256 MiB), and the commit shape 2^22 words (2^17 rows, lane-major).
//!
//! Method: buffers are allocated and touched once outside the timing (warm buffers, no page
//! faults); each iteration runs one encode with no sink and times only the encode call
//! (`iter_custom`; in-place encodes restore replica 0 before each timed encode). Throughput is
//! set in lane-butterflies (rows/2 × (log rows − r) × lanes), so criterion's elem/s inverts to
//! ns per lane-butterfly. Baseline in each group: the same encoder with the leanVM engine's fixed
//! plan constants (512 KiB / 2 MiB budgets, deep pass sized to the 2 MiB budget, wide with 64
//! residues only at ≤ 2 workers). Before timing, every configuration's codeword is checked
//! against the default plan's (BLAKE3 of the bytes).
//!
//! Run: `cargo bench -p ntt-benches --bench encode` (`-- workers=1` to filter).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ntt_benches::seeded_words;
use ntt_kernels::Backend;
use ntt_pcs::{CommitParams, Encoder, MessageLayout, PlanConfig, Shape};
use ntt_runtime::ThreadPoolBuilder;
use std::mem::MaybeUninit;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The leanVM engine's fixed constants, expressed as forced planner values: 512 KiB / 2 MiB
/// budgets, the deep pass sized to the 2 MiB "L3" budget, and at ≤ 2 workers the wide plan with
/// 64 residues.
fn leanvm_plan(workers: usize) -> PlanConfig {
    let few = workers <= 2;
    PlanConfig {
        l2_bytes: Some(512 << 10),
        l3_bytes: Some(2 << 20),
        wide: Some(few),
        log_residues: few.then_some(6),
        deep: Some(ntt_pcs::DeepBudget::L3),
        stream: None,
        transpose_first: None,
        gathered_passes: None,
    }
}

fn hash(words: &[u64]) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for w in words {
        h.update(&w.to_le_bytes());
    }
    h.finalize()
}

/// Where the message is: in the codeword buffer's first replica (restored before each timed
/// encode, outside the timing), or a separate lane-major witness.
#[derive(Clone, Copy)]
enum Input {
    InPlace,
    LaneMajor,
}

/// One configuration's buffers: the in-place buffer, or the codeword a lane-major encode writes.
struct Job<'a> {
    input: Input,
    shape: Shape,
    msg: &'a [u64],
    data: Vec<u64>,
    out: Vec<MaybeUninit<u64>>,
}

impl<'a> Job<'a> {
    fn new(input: Input, shape: Shape, msg: &'a [u64]) -> Self {
        let words = shape.codeword_words();
        let (data, out) = match input {
            Input::InPlace => (vec![0u64; words], Vec::new()),
            Input::LaneMajor => (Vec::new(), vec![MaybeUninit::new(0u64); words]),
        };
        Self {
            input,
            shape,
            msg,
            data,
            out,
        }
    }

    /// One encode; only the encode call itself is timed.
    fn encode(&mut self, enc: &Encoder) -> Duration {
        let (lanes, r) = (self.shape.lanes(), self.shape.log_inv_rate());
        match self.input {
            Input::InPlace => {
                self.data[..self.msg.len()].copy_from_slice(self.msg);
                let t0 = Instant::now();
                enc.encode_in_place(
                    &mut self.data,
                    CommitParams::lanes(lanes)
                        .log_inv_rate(r)
                        .layout(MessageLayout::Rows),
                    None,
                )
                .expect("encode");
                t0.elapsed()
            }
            Input::LaneMajor => {
                let t0 = Instant::now();
                enc.encode(
                    self.msg,
                    &mut self.out,
                    CommitParams::lanes(lanes).log_inv_rate(r),
                    None,
                )
                .expect("encode");
                t0.elapsed()
            }
        }
    }

    /// BLAKE3 of the codeword the last encode left.
    fn codeword_hash(&self) -> blake3::Hash {
        match self.input {
            Input::InPlace => hash(&self.data),
            // SAFETY: every word was initialised by `MaybeUninit::new` and then by the encode.
            Input::LaneMajor => hash(
                &self
                    .out
                    .iter()
                    .map(|w| unsafe { w.assume_init() })
                    .collect::<Vec<_>>(),
            ),
        }
    }
}

/// The topology-derived plan against the leanVM engine's constants on one shape, at 1 and 2
/// workers, after checking that both give the same codeword.
fn compare_plans(c: &mut Criterion, title: &str, input: Input, shape: Shape, samples: usize, secs: u64) {
    let msg = seeded_words(shape.message_words(), shape.log_rows().into());
    let mut group = c.benchmark_group(format!(
        "ntt/{title}/log_rows={}x{}",
        shape.log_rows(),
        shape.lanes()
    ));
    group
        .sample_size(samples)
        .measurement_time(Duration::from_secs(secs));
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
            ("leanvm-constants", leanvm_plan(workers)),
        ] {
            let enc = Encoder::builder()
                .pool(pool.clone())
                .backend(Backend::detect())
                .build()
                .expect("an encoder on a given pool and backend sets up")
                .with_config(config);
            let mut job = Job::new(input, shape, &msg);
            job.encode(&enc);
            let h = job.codeword_hash();
            assert_eq!(
                *expect.get_or_insert(h),
                h,
                "{name} plan gives a different codeword"
            );
            group.bench_function(BenchmarkId::new(name, format!("workers={workers}")), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| job.encode(&enc)).sum())
            });
        }
    }
    group.finish();
}

fn encode_in_place(c: &mut Criterion) {
    let shape = Shape::new(19, 64, 1).expect("valid shape");
    compare_plans(c, "encode_in_place", Input::InPlace, shape, 10, 12);
}

fn encode_lane_major(c: &mut Criterion) {
    let shape = Shape::new(17, 64, 1).expect("valid shape");
    compare_plans(c, "encode_lanes", Input::LaneMajor, shape, 20, 6);
}

criterion_group!(benches, encode_in_place, encode_lane_major);
criterion_main!(benches);
