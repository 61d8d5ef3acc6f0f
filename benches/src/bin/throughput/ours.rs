//! The engine's own throughput: commit, encode alone and what hashing adds, with fresh and
//! reused codeword buffers, measured interleaved so the ratios come from one run.

use crate::measurement::{Buffers, Measurement};
use crate::touch::{self, TouchFigure};
use ntt_benches::bytes::as_le_bytes;
use ntt_benches::ours::{Ours, warm_buffer};
use ntt_benches::timing::{Samples, interleaved};
use ntt_benches::{BenchShape, Bounds, Limits, WITNESS_SEED, seeded_words};
use ntt_pcs::ProverData;
use ntt_pcs::{CommitParams, Expansion, MessageLayout, Shape};
use serde::Serialize;
use std::time::Instant;

/// One line of the throughput table.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub commit: Measurement,
    pub encode: Measurement,
    /// Median time the row sinks spent hashing, per worker (the commit's own attribution).
    pub sink_hash_ms: f64,
    /// The commit's bound, the higher of its compute and traffic floors (plus page faults for a
    /// fresh codeword), when the limits were measured.
    pub commit_bound_ms: Option<f64>,
    /// The encode's bound, likewise.
    pub encode_bound_ms: Option<f64>,
    /// The terms of both bounds.
    pub bounds: Option<Bounds>,
    /// Fresh rows: each worker's share of faulting in the codeword (medians over the fresh
    /// commits); empty for reused rows.
    pub first_touch: Vec<TouchFigure>,
    /// Sweeps of the codeword buffer the encoder's plan makes for this shape.
    pub plan_sweeps: usize,
    /// Bytes the encoder's plan reads and writes, all its sweeps together.
    pub plan_traffic_bytes: usize,
    /// The encode's compute floor: its butterflies at the L1 kernel rate, split over the
    /// workers, when the limits were measured.
    pub encode_compute_ms: Option<f64>,
    /// The commit's: the same, plus BLAKE3 of the codeword at the in-cache rate.
    pub commit_compute_ms: Option<f64>,
    /// The traffic floor of the plan's sweeps ([`Bounds::traffic_s`]), the same for the encode
    /// and the commit (whose hashing adds no traffic), when the limits were measured.
    pub traffic_ms: Option<f64>,
}

impl Row {
    /// `commit / encode − 1`: what hashing adds to the encode alone.
    pub(crate) fn hash_overhead(&self) -> f64 {
        self.commit.median_ms / self.encode.median_ms - 1.0
    }
}

/// Whether one shape's measurements fit in the memory available: the message, the warm encode
/// buffer, the reused commit's codeword and one fresh codeword at a time (a commit's or an
/// encode's), each a whole codeword.
///
/// # Errors
/// The shape needs more than the memory available (both sizes named).
pub(crate) fn fits(shape: BenchShape) -> Result<(), ntt_pcs::ShapeError> {
    let needed = shape.witness_bytes() + 3 * shape.codeword_bytes();
    ntt_pcs::memory::ensure_available("one shape's bench buffers", needed as u64)
}

/// The fresh-buffer and the reused-buffer rows of one shape at one worker count.
pub(crate) fn measure(engine: &Ours, shape: BenchShape, rounds: usize, limits: Option<&Limits>) -> [Row; 2] {
    let message = seeded_words(shape.witness_words(), WITNESS_SEED);
    let (lanes, r) = (shape.lanes, shape.log_inv_rate);
    let words = shape.codeword_words();
    // The fresh commits keep no buffer: with the default pool, each would reuse the last one's.
    let fresh_committer = engine.committer.clone().with_buffer_cap(0);
    let commit = |reuse: Option<ProverData>| {
        let committer = if reuse.is_some() {
            &engine.committer
        } else {
            &fresh_committer
        };
        let start = Instant::now();
        let out = match reuse {
            None => committer.commit(&message, CommitParams::lanes(lanes).log_inv_rate(r)),
            Some(old) => committer.commit_reusing(&message, CommitParams::lanes(lanes).log_inv_rate(r), old),
        };
        let secs = start.elapsed().as_secs_f64();
        (out.expect("a valid bench shape commits").1, secs)
    };

    let mut warm = warm_buffer(words);
    let mut reused = Some(
        engine
            .committer
            .commit(&message, CommitParams::lanes(lanes).log_inv_rate(r))
            .expect("a valid bench shape commits")
            .1,
    );
    let mut sink_hash = Samples::default();
    let mut touches = Vec::new();
    let samples = {
        let mut encode_fresh = || {
            let start = Instant::now();
            let mut buffer: Vec<u64> = Vec::with_capacity(words);
            engine.encode_lanes(
                &message,
                &mut buffer.spare_capacity_mut()[..words],
                CommitParams::lanes(lanes).log_inv_rate(r),
            );
            let secs = start.elapsed().as_secs_f64();
            drop(buffer);
            secs
        };
        let mut commit_fresh = || {
            let (data, secs) = commit(None);
            touches.push(data.first_touch().to_vec());
            drop(data);
            secs
        };
        let mut encode_reused = || {
            let start = Instant::now();
            engine.encode_lanes(&message, &mut warm, CommitParams::lanes(lanes).log_inv_rate(r));
            start.elapsed().as_secs_f64()
        };
        let mut commit_reused = || {
            let (data, secs) = commit(reused.take());
            sink_hash.secs.push(data.timings().hash.as_secs_f64());
            reused = Some(data);
            secs
        };
        interleaved(
            rounds,
            &mut [
                &mut encode_fresh,
                &mut commit_fresh,
                &mut encode_reused,
                &mut commit_reused,
            ],
        )
    };

    // Correctness inside the bench: the committed codeword is the encode's, and its root is the
    // plain BLAKE3 hash of the codeword bytes.
    let data = reused.expect("the last commit's data is kept");
    // SAFETY: `encode_lanes` wrote every word of `warm` (and `warm_buffer` initialized it).
    let encoded = unsafe { ntt_benches::ours::assume_init(&warm) };
    assert!(
        data.codeword() == encoded,
        "commit and encode disagree at {}",
        shape.label()
    );
    assert_eq!(
        data.commitment().root_hex(),
        blake3::hash(as_le_bytes(encoded)).to_hex().as_str(),
        "the root is BLAKE3 of the codeword at {}",
        shape.label()
    );

    let workers = engine.workers;
    let bounds = limits.map(|l| Bounds::new(shape, workers, l));
    let plan = engine.encoder().plan(
        Shape::with_expansion(shape.log_rows(), lanes, r, Expansion::Unbounded).expect("valid shape"),
        MessageLayout::Lanes,
    );
    let traffic = plan.traffic();
    let first_touch = touch::figures(&touches, workers);
    let row = |buffers: Buffers, encode: &Samples, commit: &Samples| Row {
        commit: Measurement::new("commit", "ntt-engine", shape, workers, buffers, commit),
        encode: Measurement::new("encode", "ntt-engine", shape, workers, buffers, encode),
        sink_hash_ms: sink_hash.median() * 1e3,
        first_touch: if buffers == Buffers::Fresh {
            first_touch.clone()
        } else {
            Vec::new()
        },
        commit_bound_ms: bounds.map(|b| b.commit_s(&traffic, buffers == Buffers::Fresh) * 1e3),
        encode_bound_ms: bounds.map(|b| b.encode_s(&traffic, buffers == Buffers::Fresh) * 1e3),
        bounds,
        plan_sweeps: plan.sweeps(),
        plan_traffic_bytes: plan.traffic_bytes(),
        encode_compute_ms: bounds.map(|b| b.encode_compute_s * 1e3),
        commit_compute_ms: bounds.map(|b| (b.encode_compute_s + b.hash_compute_s) * 1e3),
        traffic_ms: bounds.map(|b| b.traffic_s(&traffic) * 1e3),
    };
    [
        row(Buffers::Fresh, &samples[0], &samples[1]),
        row(Buffers::Reused, &samples[2], &samples[3]),
    ]
}
