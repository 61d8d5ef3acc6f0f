//! Lower bounds on an encode and a commit, derived from the measured [`Limits`].
//!
//! - Compute: every lane-butterfly at the L1 kernel rate, split evenly over the workers; for a
//!   commit plus BLAKE3 of the codeword at the one-core rate, split likewise.
//! - Memory: the least traffic any encoder has: read the witness once, write the codeword once,
//!   at the measured copy bandwidth (read + write counted); with a fresh codeword the write runs
//!   at the first-touch rate instead (page faults included).
//!
//! Both assume perfect overlap and no extra sweeps, so a real run is slower than the larger one.

use crate::limits::Limits;
use crate::shape::BenchShape;
use serde::Serialize;

const GIB: f64 = (1u64 << 30) as f64;

/// The bounds of one shape at one worker count, in seconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bounds {
    /// Butterflies at the L1 rate / workers.
    pub encode_compute_s: f64,
    /// BLAKE3 of the codeword at the one-core rate / workers.
    pub hash_compute_s: f64,
    /// Witness + codeword bytes at the copy bandwidth (warm, reused codeword).
    pub memory_reused_s: f64,
    /// Witness at the read bandwidth + codeword at the first-touch bandwidth (fresh codeword).
    pub memory_fresh_s: f64,
}

impl Bounds {
    pub fn new(shape: BenchShape, workers: usize, limits: &Limits) -> Self {
        let w = workers.max(1) as f64;
        let all = workers > 1;
        let pick = |bw: crate::limits::Bandwidth| if all { bw.all } else { bw.one };
        let witness = shape.witness_bytes() as f64 / GIB;
        let codeword = shape.codeword_bytes() as f64 / GIB;
        Self {
            encode_compute_s: shape.lane_butterflies() as f64 * limits.ns_per_lane_butterfly() * 1e-9 / w,
            hash_compute_s: codeword / limits.blake3_gib_s(shape.codeword_bytes()) / w,
            memory_reused_s: (witness + codeword) / pick(limits.copy),
            memory_fresh_s: witness / pick(limits.read) + codeword / pick(limits.first_touch),
        }
    }

    /// The memory bound with a fresh or a reused codeword.
    pub fn memory_s(&self, fresh: bool) -> f64 {
        if fresh {
            self.memory_fresh_s
        } else {
            self.memory_reused_s
        }
    }

    /// The encode's bound: max(compute, memory).
    pub fn encode_s(&self, fresh: bool) -> f64 {
        self.encode_compute_s.max(self.memory_s(fresh))
    }

    /// The commit's bound: max(compute incl. hashing, memory).
    pub fn commit_s(&self, fresh: bool) -> f64 {
        (self.encode_compute_s + self.hash_compute_s).max(self.memory_s(fresh))
    }
}
