//! Reed-Solomon encoding of interleaved GF(2^64) lanes by the additive NTT (Lin-Chung-Han novel
//! polynomial basis), and a BLAKE3 commitment hashed while rows are still in cache.

pub mod commit;
pub mod domain;
pub mod encoder;
pub mod kernel;
pub mod plan;
pub mod reference;
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
pub use encoder::{EncodeError, Encoder, MessageLayout, Shape};
pub use plan::{DeepBudget, Plan, PlanConfig};
pub use sink::RowSink;
