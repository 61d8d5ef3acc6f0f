//! The built-in default workload: a seeded random witness.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 2^22 words: 64 lanes of 2^16 words each, committed at rate 1/2.
pub const DEFAULT_LOG_WORDS: u32 = 22;
pub const DEFAULT_LANES: usize = 64;
pub const DEFAULT_LOG_INV_RATE: u32 = 1;
/// Fixed so that every run of the default workload commits to the same root.
pub const DEFAULT_SEED: u64 = 0x6e74_742d_656e_6769; // "ntt-engi"

/// `2^log_words` pseudo-random words from `seed`.
pub fn witness(log_words: u32, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..1usize << log_words).map(|_| rng.random()).collect()
}

/// Writes [`witness`]`(log_words, seed)` as little-endian bytes, a block at a time, so that any
/// size streams through a small buffer.
pub fn write_witness(log_words: u32, seed: u64, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut left = 1usize << log_words;
    let mut block = Vec::with_capacity(8 << 12);
    while left > 0 {
        let n = left.min(1 << 12);
        block.clear();
        block.extend((0..n).flat_map(|_| rng.random::<u64>().to_le_bytes()));
        out.write_all(&block)?;
        left -= n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_witness_is_the_witness() {
        let mut bytes = Vec::new();
        write_witness(13, 5, &mut bytes).unwrap();
        let words: Vec<u8> = witness(13, 5).iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(bytes, words);
    }
}
