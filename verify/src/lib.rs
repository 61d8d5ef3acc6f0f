//! The verifier of ntt-engine's commitments, on its own: the commitment (BLAKE3 of a codeword's
//! bytes), openings of rows, their binary format, and [`verify`]. It needs only `blake3` and a
//! few small pure-Rust crates (no runtime, no hwloc), so it builds anywhere Rust does, including
//! `wasm32-unknown-unknown`. Formats: `docs/FORMAT.md`.
//!
//! The prover (`ntt-pcs`) builds on the same pieces: the codeword's [`CodewordShape`] and its
//! limits, and the BLAKE3 tree geometry in [`tree`].

#![deny(missing_docs)]

mod codec;
mod commitment;
mod error;
mod hex_serde;
mod node;
mod opening;
pub mod shape;
pub mod tree;
mod verify;

pub use commitment::{Basis, COMMITMENT_FORMAT_VERSION, Commitment};
pub use error::{ProofDecodeError, RootHexError, VerifyError};
pub use opening::Opening;
pub use shape::{CodewordShape, CodewordShapeError, MAX_LOG_CODEWORD_BYTES, MAX_LOG_ROWS};
pub use verify::verify;
