//! Benchmarks of ntt-engine against the machine's physical limits and against what a user would
//! pick instead.
//!
//! - [`p3_lch`]: Plonky3's additive NTT (`p3-binary-dft` `LchNtt` over `Poly64`), the peer library.
//! - [`rayon_lch`]: the same transform as ours (Lin-Chung-Han novel basis, β_j = x^j) driven by
//!   rayon one layer at a time, then BLAKE3 of the codeword in a second pass: the straightforward
//!   commit a user would write.
//! - [`limits`]: memory bandwidth, the butterfly kernel rate in L1 and BLAKE3 on one core.
//! - [`ours`]: ntt-engine's encoder and committer on a pool of a given size.
//! - [`bounds`]: the compute and memory bounds of an encode or commit derived from those limits.
//! - [`timing`]: medians of repeated, optionally interleaved, runs.
//! - [`trees`]: the reduction tree as a task graph (the runtime bench's graph tree).
//!
//! The criterion benches live in `benches/`, the `throughput` binary in `src/bin/`.

#![deny(missing_docs)]

pub mod bounds;
pub mod bytes;
pub mod limits;
pub mod ours;
pub mod p3_lch;
pub mod rayon_lch;
pub mod shape;
pub mod subspace;
pub mod timing;
pub mod trees;
pub mod witness;

pub use bounds::Bounds;
pub use limits::Limits;
pub use ours::Ours;
pub use shape::{BenchShape, ShapeError};
pub use subspace::SubspaceTwiddles;
pub use timing::Samples;
pub use witness::{WITNESS_SEED, seeded_words, witness};
