//! One commitment computed by several machines over MPI, with the root one machine computes.
//!
//! The engine's commitment is the BLAKE3 hash of the codeword's bytes, and BLAKE3 is a tree over
//! 1 KiB chunks: a contiguous, chunk-aligned part of the codeword contributes the chaining values
//! of the aligned subtrees that tile it, whoever hashes it. So P = 2^k ranks each own 2^(log_rows − k)
//! consecutive rows ([`Split`]), encode them with the engine on their own node (whole cosets of
//! the domain when P is at most the inverse rate; else the message folded onto their part of a
//! coset, [`fold`]), hash them into those subtrees while the rows are in cache, and send rank 0
//! a few chaining values ([`tree`]). No codeword data crosses the network, only
//! `O(log rows)` chaining values per rank. [`open()`] then gathers the opened chunks and the
//! siblings from the ranks that own them into the proof one machine writes.
//!
//! A row tree (`CommitParams::scheme`, Plonky3's `MerkleTreeMmcs` of the codeword) splits the
//! same way and more simply: each rank's rows are a subtree of it, so each rank sends rank 0 its
//! subtree's root (or its part of a wide cap), 32 bytes, and rank 0 hashes the few levels above.
//!
//! ```no_run
//! use ntt_pcs::{CommitParams, Expansion};
//!
//! let universe = mpi::initialize().expect("MPI initialises once");
//! let world = universe.world();
//! let witness: Vec<u64> = (0..64u64 << 12).collect(); // every rank holds the message
//! let encoder = ntt_pcs::encoder()?;
//! let params = CommitParams::lanes(64).log_inv_rate(2);
//! let mine = ntt_mpi::commit(&world, &encoder, &witness[..], params, Expansion::Bounded)?;
//! // The same root on every rank, and the same as one machine's `Committer::commit`.
//! println!("{}", mine.commitment.root_hex());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod comm;
mod commit;
mod error;
pub mod fold;
mod open;
mod rows;
mod share;
mod source;
mod split;
pub mod tree;

pub use comm::{Traffic, agree};
pub use commit::{RankCommit, RankTimings, commit};
pub use error::Error;
pub use open::open;
pub use share::{Share, ShareError, encode_share};
pub use source::{MessageSource, WitnessFile};
pub use split::{Split, SplitError};

/// The MPI bindings this crate is built on, for a caller that needs the same version.
pub use mpi;
