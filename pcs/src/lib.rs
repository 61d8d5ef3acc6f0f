//! Reed-Solomon encoding of interleaved GF(2^64) lanes by the additive NTT (Lin-Chung-Han novel
//! polynomial basis), and a BLAKE3 commitment hashed while rows are still in cache.

pub use ntt_verify;

pub mod commit;
pub mod domain;
pub mod encoder;
mod engine;
pub mod plan;
pub mod reference;
pub mod shape;
pub mod sink;
pub mod twiddle;
pub mod wisdom;

#[cfg(test)]
mod test_words;

pub use commit::{
    CommitError, CommitTimings, Commitment, Committer, OpenError, Opening, ProofDecodeError, ProverData,
    VerifyError, verify,
};
pub use domain::{Basis, BasisError, BasisName, Domain};
pub use encoder::{EncodeError, Encoder, SetupError};
pub use engine::{committer, encoder};
pub use plan::{DeepBudget, Plan, PlanConfig};
pub use shape::{CodewordShape, Expansion, MessageLayout, Shape, ShapeError};
pub use sink::RowSink;

/// The README's library examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}
