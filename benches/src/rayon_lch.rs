//! The commit a user would write with rayon: the same transform as ours (Lin-Chung-Han novel
//! basis, β_j = x^j, natural order, replication for the rate) run one layer at a time over the
//! whole codeword, then BLAKE3 of the codeword bytes in a second pass.
//!
//! Each layer is one parallel sweep: blocks in parallel, and inside a large block the row pairs
//! in parallel chunks, every pair by [`Backend::butterfly`]. So the buffer is swept
//! `log_rows − r` times plus the transpose, the replication and the hash.

use crate::bytes::as_le_bytes;
use crate::subspace::SubspaceTwiddles;
use ntt_kernels::Backend;
use rayon::ThreadPool;
use rayon::prelude::*;

/// Words handed to one butterfly call inside a block (32 KiB each side, a few L1s).
const PAIR_GRAIN_WORDS: usize = 4096;
/// Rows gathered per transpose task.
const TRANSPOSE_GRAIN_ROWS: usize = 256;

/// How the baseline hashes the finished codeword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashThreads {
    /// `blake3::hash` on the calling thread.
    One,
    /// `blake3::Hasher::update_rayon` on the pool.
    Pool,
}

/// The rayon baseline for one codeword size.
#[derive(Clone, Debug)]
pub struct RayonLch {
    backend: Backend,
    twiddles: SubspaceTwiddles,
}

impl RayonLch {
    /// A baseline for codewords of `2^log_rows` rows, using `backend`'s butterfly.
    pub fn new(backend: Backend, log_rows: u32) -> Self {
        Self {
            backend,
            twiddles: SubspaceTwiddles::new(log_rows),
        }
    }

    /// Encodes a lane-major message (`lanes` contiguous blocks of `2^(log_rows − r)` words) into
    /// `codeword` (`lanes · 2^log_rows` words, row-major) on `pool`.
    ///
    /// # Panics
    /// If the lengths do not match the shape.
    pub fn encode(
        &self,
        pool: &ThreadPool,
        message: &[u64],
        lanes: usize,
        log_inv_rate: u32,
        codeword: &mut [u64],
    ) {
        let log_rows = self.twiddles.log_rows();
        assert!(lanes > 0 && log_inv_rate <= log_rows);
        let message_rows = 1usize << (log_rows - log_inv_rate);
        assert_eq!(message.len(), message_rows * lanes, "message length");
        assert_eq!(codeword.len(), lanes << log_rows, "codeword length");
        pool.install(|| {
            let (first, replicas) = codeword.split_at_mut(message.len());
            // Transpose the lanes into the first replica, then copy it into the others: the
            // layers below the rate would only copy.
            first
                .par_chunks_mut(TRANSPOSE_GRAIN_ROWS * lanes)
                .enumerate()
                .for_each(|(chunk, rows)| {
                    let first_row = chunk * TRANSPOSE_GRAIN_ROWS;
                    for (i, row) in rows.chunks_exact_mut(lanes).enumerate() {
                        for (t, word) in row.iter_mut().enumerate() {
                            *word = message[t * message_rows + first_row + i];
                        }
                    }
                });
            replicas
                .par_chunks_mut(message.len())
                .for_each(|replica| replica.copy_from_slice(first));
            for layer in log_inv_rate..log_rows {
                let block_words = lanes << (log_rows - layer);
                codeword
                    .par_chunks_mut(block_words)
                    .enumerate()
                    .for_each(|(block, words)| {
                        let twiddle = self.twiddles.twiddle(layer, block);
                        let (top, bottom) = words.split_at_mut(block_words / 2);
                        top.par_chunks_mut(PAIR_GRAIN_WORDS)
                            .zip(bottom.par_chunks_mut(PAIR_GRAIN_WORDS))
                            .for_each(|(u, v)| self.backend.butterfly(u, v, twiddle));
                    });
            }
        });
    }

    /// [`RayonLch::encode`], then the BLAKE3 hash of the codeword bytes: the commitment root.
    pub fn commit(
        &self,
        pool: &ThreadPool,
        message: &[u64],
        lanes: usize,
        log_inv_rate: u32,
        codeword: &mut [u64],
        hash: HashThreads,
    ) -> blake3::Hash {
        self.encode(pool, message, lanes, log_inv_rate, codeword);
        hash_codeword(pool, codeword, hash)
    }
}

/// The BLAKE3 hash of the codeword's little-endian bytes.
pub fn hash_codeword(pool: &ThreadPool, codeword: &[u64], hash: HashThreads) -> blake3::Hash {
    let bytes = as_le_bytes(codeword);
    match hash {
        HashThreads::One => blake3::hash(bytes),
        HashThreads::Pool => pool.install(|| blake3::Hasher::new().update_rayon(bytes).finalize()),
    }
}

#[cfg(test)]
mod tests;
