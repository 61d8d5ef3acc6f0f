//! The verifier of ntt-engine's commitments, on its own: the commitment (BLAKE3 of a codeword's
//! bytes, or the cap of a row tree hashed with BLAKE3 or Keccak-256), openings of rows, their
//! binary format, and [`verify`], which checks a [`Proof`] of either tree. It needs only `blake3`, `tiny-keccak` and a
//! few small pure-Rust crates (no runtime, no hwloc), so it builds anywhere Rust does, including
//! `wasm32-unknown-unknown`. Formats: `docs/FORMAT.md`.
//!
//! Feature `tracing` (off by default; `ntt-pcs` turns it on): each check is an info-level
//! `verify` span, with its row count and shape, for the caller's `tracing` subscriber.
//!
//! The prover (`ntt-pcs`) builds on the same pieces: the codeword's [`CodewordShape`] and its
//! limits, and the BLAKE3 tree geometry in [`tree`].

#![deny(missing_docs)]

mod codec;
mod commitment;
mod error;
mod header;
mod hex_serde;
mod node;
mod opening;
mod proof;
pub mod row_hash;
mod row_opening;
mod row_verify;
mod scheme;
pub mod shape;
pub mod tree;
mod verify;

pub use commitment::{Basis, COMMITMENT_FORMAT_VERSION, CapLengthError, Commitment};
pub use error::{ProofDecodeError, RootHexError, VerifyError};
pub use opening::Opening;
pub use proof::{Proof, ProofRef};
pub use row_opening::{RowOpening, fold_to_cap};
#[allow(deprecated)]
pub use row_verify::{verify_proof, verify_rows};
pub use scheme::{HashKind, MAX_CAP_HEIGHT, Scheme, SchemeError, TreeKind};
pub use shape::{CodewordShape, CodewordShapeError, MAX_LOG_CODEWORD_BYTES, MAX_LOG_ROWS};
pub use verify::verify;
