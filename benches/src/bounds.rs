//! Bounds on an encode and a commit, derived from the measured [`Limits`].
//!
//! - Compute: every lane-butterfly at the L1 kernel rate, split evenly over the workers; for a
//!   commit plus BLAKE3 of the codeword at the one-core in-cache rate (the rows are hashed while
//!   in cache), split likewise.
//! - Memory: the least traffic any encoder has: read the witness once and write the codeword
//!   once, at the measured copy bandwidth (which counts read + write bytes).
//! - Traffic: the bytes a plan's sweeps read and write ([`ntt_pcs::plan::Plan::traffic`]), each
//!   sweep at least its reads at the read bandwidth, its writes at the write bandwidth and both
//!   at the copy bandwidth ([`Bounds::traffic_s`]).
//! - Page faults: a fresh codeword of at least [`MMAP_MIN_BYTES`] comes from `mmap` and every
//!   4 KiB page of it faults on first write, which costs CPU time on the faulting worker: the
//!   codeword at the measured first-touch rate. Smaller fresh buffers are recycled from the heap
//!   by the allocator and do not fault.
//!
//! The bound of a run is max(compute, traffic) (+ page faults for a fresh codeword): perfect
//! overlap of computation and the plan's traffic. A real run is slower; how much slower is
//! the figure of merit.

use crate::limits::{Bandwidth, Limits};
use crate::shape::BenchShape;
use serde::Serialize;

const GIB: f64 = (1u64 << 30) as f64;

/// glibc's largest dynamic mmap threshold on 64-bit targets (`DEFAULT_MMAP_THRESHOLD_MAX`):
/// allocations from this size up are always fresh mappings.
pub const MMAP_MIN_BYTES: usize = 32 << 20;

/// The bounds of one shape at one worker count, in seconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bounds {
    /// Butterflies at the L1 rate / workers.
    pub encode_compute_s: f64,
    /// BLAKE3 of the codeword at the one-core in-cache rate / workers.
    pub hash_compute_s: f64,
    /// Witness + codeword bytes at the copy bandwidth.
    pub memory_s: f64,
    /// Faulting a fresh codeword in at the first-touch rate (0 below [`MMAP_MIN_BYTES`]).
    pub page_faults_s: f64,
    /// The bandwidths a plan's traffic floor takes, GiB/s: read, write and copy.
    read_gib_s: f64,
    write_gib_s: f64,
    copy_gib_s: f64,
}

impl Bounds {
    /// The bounds of `shape` on `workers` workers, from the machine's measured `limits`.
    pub fn new(shape: BenchShape, workers: usize, limits: &Limits) -> Self {
        let w = workers.max(1) as f64;
        let pick = |bw: Bandwidth| if workers > 1 { bw.all } else { bw.one };
        let witness = shape.witness_bytes() as f64 / GIB;
        let codeword = shape.codeword_bytes() as f64 / GIB;
        let lane_butterflies = shape.lane_butterflies() as f64;
        Self {
            encode_compute_s: lane_butterflies * limits.ns_per_lane_butterfly() * 1e-9 / w,
            hash_compute_s: codeword / limits.blake3_in_cache.gib_s / w,
            memory_s: (witness + codeword) / pick(limits.copy),
            read_gib_s: pick(limits.read),
            write_gib_s: pick(limits.write),
            copy_gib_s: pick(limits.copy),
            page_faults_s: if shape.codeword_bytes() >= MMAP_MIN_BYTES {
                codeword / pick(limits.first_touch)
            } else {
                0.0
            },
        }
    }

    /// The traffic floor of a plan that makes `sweeps` ([`ntt_pcs::plan::Plan::traffic`]):
    /// each sweep takes at least its reads at the read bandwidth, its writes at the write
    /// bandwidth and both at the copy bandwidth (which counts read and written bytes), and the
    /// sweeps follow one another. (The floor [`Bounds::memory_s`] is one sweep that reads the
    /// witness and writes the codeword, at the copy bandwidth.)
    pub fn traffic_s(&self, sweeps: &[ntt_pcs::plan::SweepTraffic]) -> f64 {
        sweeps
            .iter()
            .map(|t| {
                let (r, w) = (t.read_bytes as f64 / GIB, t.write_bytes as f64 / GIB);
                (r / self.read_gib_s)
                    .max(w / self.write_gib_s)
                    .max((r + w) / self.copy_gib_s)
            })
            .sum()
    }

    fn faults(&self, fresh: bool) -> f64 {
        if fresh { self.page_faults_s } else { 0.0 }
    }

    /// The encode's bound for a plan that makes `sweeps`: the higher of its compute floor and
    /// the plan's traffic floor, plus page faults for a fresh codeword.
    pub fn encode_s(&self, sweeps: &[ntt_pcs::plan::SweepTraffic], fresh: bool) -> f64 {
        self.encode_compute_s.max(self.traffic_s(sweeps)) + self.faults(fresh)
    }

    /// The commit's bound: the same with hashing in the compute floor (the rows are hashed in
    /// cache, so it adds no traffic).
    pub fn commit_s(&self, sweeps: &[ntt_pcs::plan::SweepTraffic], fresh: bool) -> f64 {
        (self.encode_compute_s + self.hash_compute_s).max(self.traffic_s(sweeps)) + self.faults(fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{HashRate, KernelRate};

    #[test]
    fn bounds_follow_the_formulas() {
        let limits = Limits {
            workers: 2,
            bandwidth_bytes: 1 << 30,
            read: Bandwidth { one: 10.0, all: 20.0 },
            copy: Bandwidth { one: 8.0, all: 16.0 },
            write: Bandwidth { one: 6.0, all: 12.0 },
            first_touch: Bandwidth { one: 1.0, all: 2.0 },
            butterfly: vec![KernelRate {
                backend: "x".into(),
                ns_per_lane_butterfly: 0.5,
            }],
            blake3_in_cache: HashRate {
                bytes: 512 << 10,
                gib_s: 4.0,
            },
            blake3: vec![HashRate {
                bytes: 64 << 20,
                gib_s: 1.0,
            }],
        };
        // 2^22 words, rate 1/2: 2^26 lane-butterflies, 32 MiB witness, 64 MiB codeword.
        let shape = BenchShape::lanes64(22, 1);
        let b = Bounds::new(shape, 1, &limits);
        assert!((b.encode_compute_s - (1u64 << 26) as f64 * 0.5e-9).abs() < 1e-12);
        assert!((b.hash_compute_s - 1.0 / 16.0 / 4.0).abs() < 1e-12);
        assert!((b.memory_s - 3.0 / 32.0 / 8.0).abs() < 1e-12);
        assert!((b.page_faults_s - 1.0 / 16.0).abs() < 1e-12);
        // A sweep's floor is its reads, its writes or both at the copy rate, whichever is most:
        // 32 MiB read + 64 MiB written take 3/32 GiB at 8 GiB/s (copy) over 1/16 at 6 (write).
        let sweep = |read_bytes, write_bytes| ntt_pcs::plan::SweepTraffic {
            pass: "p".into(),
            read_bytes,
            write_bytes,
        };
        let gathered = sweep(32 << 20, 64 << 20);
        assert!((b.traffic_s(std::slice::from_ref(&gathered)) - b.memory_s).abs() < 1e-12);
        // Writes alone at the write rate; sweeps add up.
        let sink_free = sweep(0, 64 << 20);
        assert!((b.traffic_s(&[sink_free]) - 1.0 / 16.0 / 6.0).abs() < 1e-12);
        let two = [gathered, sweep(64 << 20, 64 << 20)];
        assert!((b.traffic_s(&two) - (3.0 / 32.0 + 1.0 / 8.0) / 8.0).abs() < 1e-12);
        let compute = b.encode_compute_s + b.hash_compute_s;
        let floor = b.traffic_s(&two);
        assert_eq!(b.commit_s(&two, false), compute.max(floor));
        assert_eq!(b.commit_s(&two, true), compute.max(floor) + b.page_faults_s);
        assert_eq!(b.encode_s(&two, false), b.encode_compute_s.max(floor));
        let workers2 = Bounds::new(shape, 2, &limits);
        assert!((workers2.encode_compute_s * 2.0 - b.encode_compute_s).abs() < 1e-12);
        assert!((workers2.memory_s * 2.0 - b.memory_s).abs() < 1e-12);
        // A small codeword is recycled by the allocator: no faults.
        assert_eq!(
            Bounds::new(BenchShape::lanes64(20, 1), 1, &limits).page_faults_s,
            0.0
        );
    }
}
