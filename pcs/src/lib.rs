//! Reed-Solomon encoding of interleaved GF(2^64) lanes by the additive NTT (Lin-Chung-Han novel
//! polynomial basis), and a BLAKE3 commitment hashed while rows are still in cache.

pub mod commit;
pub mod sink;

pub use sink::RowSink;
