//! One measured figure and how it prints.

use ntt_benches::{BenchShape, Samples};
use serde::Serialize;

const GIB: f64 = (1u64 << 30) as f64;

/// Whether a run allocates its codeword or reuses a warm one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Buffers {
    Fresh,
    Reused,
}

impl Buffers {
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Fresh => "fresh",
            Self::Reused => "reused",
        }
    }
}

/// The median (and spread) of one operation of one engine on one shape.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Measurement {
    /// `commit`, `encode`, `hash`.
    pub op: &'static str,
    /// `ntt-engine`, `p3-binary-dft`, `rayon-layers` (the rayon encode), `rayon+blake3`.
    pub engine: &'static str,
    /// log2 of the witness words, when whole (power-of-two lanes).
    pub log_n: Option<u32>,
    pub log_message_rows: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
    pub workers: usize,
    pub buffers: Buffers,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub runs: usize,
    /// Witness bytes per second of the median, GiB/s.
    pub gib_s: f64,
}

impl Measurement {
    pub(crate) fn new(
        op: &'static str,
        engine: &'static str,
        shape: BenchShape,
        workers: usize,
        buffers: Buffers,
        samples: &Samples,
    ) -> Self {
        let median = samples.median();
        Self {
            op,
            engine,
            log_n: shape.log_n(),
            log_message_rows: shape.log_message_rows(),
            lanes: shape.lanes,
            log_inv_rate: shape.log_inv_rate,
            workers,
            buffers,
            median_ms: median * 1e3,
            min_ms: samples.min() * 1e3,
            max_ms: samples.max() * 1e3,
            runs: samples.secs.len(),
            gib_s: shape.witness_bytes() as f64 / GIB / median,
        }
    }
}
