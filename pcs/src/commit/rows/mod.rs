//! The row tree: one leaf per codeword row (the hash of its bytes), binary nodes (the hash of
//! the two child digests), an optional cap. Exactly what Plonky3's `MerkleTreeMmcs` commits for
//! the codeword as a `RowMajorMatrix<Poly64>` of width `lanes`, with `SerializingHasher<H>` and
//! `CompressionFunctionFromHasher<H, 2, 32>` for `H` = `Keccak256Hash` or `Blake3`, and
//! `Sha256Compress` for `H` = `Sha256`. The hash is picked once per tree (`RowHashFns`).

mod hash;
mod sink;
mod tree;

pub(crate) use sink::RowTreeHasher;
pub use sink::row_tree_bytes;
pub(crate) use tree::RowTree;

#[cfg(test)]
mod tests;
