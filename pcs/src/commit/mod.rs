//! The commitment to a codeword: streaming hashing, prover data, openings and verification, for
//! the BLAKE3 chunk tree and for row trees (module `rows`).
//!
//! The root is the standard, unkeyed BLAKE3 hash of the codeword bytes (rows in order, lanes in
//! order, every word little-endian), so `b3sum` of a saved codeword prints it. It is computed
//! while the encoder produces the rows: [`StreamingHasher`] is the encoder's [`RowSink`] and hashes
//! each block as BLAKE3 subtrees in the task that finished it (see [`stream`] for the protocol).
//! Openings carry the opened rows' 1 KiB chunks and the sibling chaining values up to the root;
//! [`verify`] recomputes the root. The verifier's side (commitment, openings, their format,
//! [`verify`]) is the `ntt-verify` crate, re-exported here. Formats: `docs/FORMAT.md`.
//!
//! [`RowSink`]: crate::RowSink

mod buffer;
mod codeword;
mod committer;
mod component;
mod node;
pub mod pieces;
mod prover;
mod rows;
mod stream;
mod tree;

pub use buffer::DEFAULT_POOL_CAP_BYTES;
pub use codeword::{commit_codeword, commit_codeword_with};
pub use committer::{CommitError, Committer};
pub use ntt_verify::{
    COMMITMENT_FORMAT_VERSION, Commitment, HashKind, Opening, Proof, ProofDecodeError, ProofRef,
    RootHexError, RowOpening, Scheme, SchemeError, TreeKind, VerifyError, verify,
};
#[allow(deprecated)]
pub use ntt_verify::{verify_proof, verify_rows};
pub use pieces::DEFAULT_PIECE_LEVEL;
pub use prover::{CommitTimings, OpenError, ProverData};
pub use rows::row_tree_bytes;
pub use stream::StreamingHasher;
