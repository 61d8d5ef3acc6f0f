//! Commit to GF(2^64) witnesses: Reed-Solomon encoding of interleaved lanes by the additive NTT
//! (Lin-Chung-Han novel polynomial basis), and a BLAKE3 commitment hashed while rows are still in
//! cache.
//!
//! ```
//! use ntt_pcs::{CommitParams, verify};
//!
//! let committer = ntt_pcs::committer()?;
//! // 8 lanes of 2^8 words each, lane-major, committed at rate 1/2 (2^9 codeword rows).
//! let witness: Vec<u64> = (0..8u64 << 8).collect();
//! let (commitment, prover) = committer.commit(&witness, CommitParams::lanes(8).log_inv_rate(1))?;
//!
//! // Open two rows; the verifier needs only the commitment, the row indices and the opening.
//! let opening = prover.open(&[3, 300])?;
//! let rows = verify(&commitment, &[3, 300], &opening)?;
//! assert_eq!(rows[1], prover.codeword()[300 * 8..301 * 8]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`committer()`] and [`encoder()`] set up the engine on the process's shared pool;
//!   [`Encoder::builder`] on a pool (or worker count, topology, backend) of your own.
//! - [`CommitParams`] names the lanes, the rate and the witness's [`MessageLayout`] of each call.
//! - [`Committer::commit`] returns the [`Commitment`] and the [`ProverData`] that opens it;
//!   [`ProverData::open`] opens rows of either tree as a [`Proof`], and [`verify`] (from
//!   `ntt-verify`, which builds without the prover) checks it.
//! - [`Encoder::encode`] and [`Encoder::encode_in_place`] encode without committing; a
//!   [`RowSink`] sees each finished block of rows.
//! - [`Domain`] picks the evaluation points (polynomial basis by default, Cantor, custom, shifted).
//!
//! # Row trees
//! The default commitment is the BLAKE3 hash of the codeword (a chunk tree): an opening carries
//! the 1 KiB chunks holding the rows. A prover that needs small proofs commits with a row tree
//! instead, [`Scheme::rows`]: one leaf per codeword row, hashed with [`HashKind::Keccak`],
//! [`HashKind::Blake3`] or [`HashKind::Sha256`], capped at `cap_height`, exactly Plonky3's
//! `MerkleTreeMmcs` over the codeword (SHA-256's nodes are one bare compression, Plonky3's
//! `Sha256Compress`). [`ProverData::open`] opens it as it opens a chunk tree, returning a [`Proof`]
//! (here [`Proof::Rows`], a [`RowOpening`]) that [`Proof::to_bytes`] serialises and [`verify`]
//! checks, with the rows asked for in any order. [`row_tree_bytes`] says what the tree costs in
//! memory beside the codeword.
//!
//! ```
//! use ntt_pcs::{CommitParams, HashKind, Proof, Scheme, verify};
//!
//! let committer = ntt_pcs::committer()?;
//! let witness: Vec<u64> = (0..8u64 << 8).collect();
//! let scheme = Scheme::rows(HashKind::Keccak, 2)?;
//! let params = CommitParams::lanes(8).log_inv_rate(1).scheme(scheme);
//! let (commitment, prover) = committer.commit(&witness, params)?;
//! let proof = Proof::from_bytes(&prover.open(&[3, 300])?.to_bytes())?;
//! assert!(matches!(proof, Proof::Rows(_)));
//! let rows = verify(&commitment, &[3, 300], &proof)?;
//! assert_eq!(rows[1], prover.codeword()[300 * 8..301 * 8]);
//! assert_eq!(verify(&commitment, &[300, 3], &proof)?[0], rows[1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The modules left public are for experts: [`plan`] (what an encode will run, for inspection
//! and tuning), [`wisdom`] (measured plan settings per machine), [`memory`] (will a codeword fit
//! before it is allocated), [`pieces`] (the BLAKE3 chunk tree hashed in pieces, for other
//! builders of the same tree), [`reference`](mod@reference) (the slow, obviously correct encoders
//! every fast path is tested against, for a prover's own tests), [`row_hash`] (the row trees'
//! many-message hashers, [`RowHash`]) and [`layers`] (Plonky3's binary tree built layer by layer
//! on the pool), which `ntt-plonky3`'s Merkle trees share. The rest is internal, and everything a
//! prover calls is re-exported at the crate root.

#![deny(missing_docs)]

pub use ntt_verify;

// Private: how the engine works inside (twiddles, the pass runner, the streaming hasher's tree).
// Everything a prover calls from them is re-exported below, so their layout can change freely.
mod claimed_slots;
mod commit;
mod domain;
mod encoder;
mod engine;
mod shape;
mod sink;
mod twiddle;

// Public, for experts, and documented as such: the CLI's `plan` and what-if reports and the tuner
// read plans and wisdom; `reference` is the oracle the tests (the benches', a prover's) check
// against; `row_hash` and `layers` are the hashing and the tree building `ntt-plonky3`'s Merkle
// trees share with the row trees. A prover that only commits never needs them.
pub mod layers;
pub mod plan;
pub mod reference;
pub mod row_hash;
pub mod wisdom;

#[cfg(test)]
mod test_words;

pub use claimed_slots::{ClaimError, ClaimedSlots};
pub use commit::pieces;
pub use commit::{
    COMMITMENT_FORMAT_VERSION, CommitError, CommitTimings, Commitment, Committer, DEFAULT_PIECE_LEVEL,
    DEFAULT_POOL_CAP_BYTES, HashKind, OpenError, Opening, Proof, ProofDecodeError, ProofRef, ProverData,
    RootHexError, RowOpening, Scheme, SchemeError, StreamingHasher, TreeKind, VerifyError, commit_codeword,
    commit_codeword_with, row_tree_bytes, verify,
};
#[allow(deprecated)]
pub use commit::{verify_proof, verify_rows};
pub use domain::{Basis, BasisError, BasisName, CANTOR_BASIS, Domain, MAX_BASIS_LEN};
pub use encoder::{EncodeError, Encoder, EncoderBuilder, SetupError};
pub use engine::{committer, encoder};
pub use ntt_runtime::pages::{HUGE_PAGES_ENV, HugePages, PageUse};
pub use ntt_runtime::touch::{FIRST_TOUCH_ENV, WorkerTouch, check_first_touch_env};
pub use plan::{DeepBudget, Plan, PlanConfig};
pub use row_hash::RowHash;
pub use shape::memory;
pub use shape::{
    CodewordShape, CodewordShapeError, CommitLanes, CommitParams, Expansion, MAX_BOUNDED_LOG_INV_RATE,
    MAX_LOG_CODEWORD_BYTES, MAX_LOG_ROWS, MessageLayout, Shape, ShapeError,
};
pub use sink::{RowSink, RowSinkError};

/// The README's library examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
