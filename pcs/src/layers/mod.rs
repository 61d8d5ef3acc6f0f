//! Plonky3's binary Merkle tree (`p3_merkle_tree::MerkleTree` of a byte hash, as
//! `MerkleTreeMmcs` builds it), layer by layer, on the engine's pool: `ntt-plonky3`'s Merkle trees
//! build with it, and the engine's row trees hash their levels above the blocks with the same
//! [`compress_level`]. The matrices are [`RowSource`]s, so this needs no Plonky3 matrix type.
//!
//! ```text
//!  layer 0      H(row i of every tallest matrix, concatenated)      padded to even with 0
//!  layer l > 0  C(C(k_2i, k_2i+1), H(row i of the matrices injected here))   i < their height
//!               C(C(k_2i, k_2i+1), 0)                                         i ≥ their height
//!               C(k_2i, k_2i+1)                           (no matrix injected at this layer)
//! ```
//!
//! `H` hashes bytes (each value's `u64` little-endian), `C` is the hash's node function
//! ([`RowHash::Compress`](crate::RowHash::Compress)), `0` is the all-zero digest, every layer
//! above one node is padded to an even length with `0`, and the matrices injected at layer `l`
//! are those whose height rounds up to the power of two that layer's node count rounds up to
//! (heights must sit on the `⌈max / 2^k⌉` ladder, [`check_heights`]).
//!
//! Leaves and nodes are hashed in parallel on the engine's pool: each task hands one
//! `hash_many` call a run of equal-length messages already back to back in memory (a run of rows
//! of a dense matrix, or a run of child pairs of the layer below), so the hasher fills its vector
//! slots.

mod build;
mod level;
mod plan;
mod source;

pub use build::{LayerTimes, ZERO, build, cap, effective_cap_height};
pub use level::{CompressFn, compress_level};
pub use plan::{HeightError, LayerPlan, check_heights, log2_ceil, padded_len};
pub use source::RowSource;
