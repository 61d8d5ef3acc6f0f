//! The built-in default workload: a seeded random witness.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// 2^22 words: 64 lanes of 2^16 words each, committed at rate 1/2.
pub(crate) const DEFAULT_LOG_WORDS: u32 = 22;
pub(crate) const DEFAULT_LANES: usize = 64;
pub(crate) const DEFAULT_LOG_INV_RATE: u32 = 1;
/// Fixed so that every run of the default workload commits to the same root.
pub(crate) const DEFAULT_SEED: u64 = 0x6e74_742d_656e_6769; // "ntt-engi"

/// `2^log_words` pseudo-random words from `seed`.
pub(crate) fn witness(log_words: u32, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..1usize << log_words).map(|_| rng.random()).collect()
}

/// Writes [`witness`]`(log_words, seed)` as little-endian bytes, a block at a time, so that any
/// size streams through a small buffer.
pub(crate) fn write_witness(log_words: u32, seed: u64, out: &mut dyn std::io::Write) -> std::io::Result<()> {
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

    /// The seeded stream is part of the command's contract ("the same seed gives the same file
    /// everywhere"): these are the first words rand_chacha 0.9's ChaCha8 gave, before the move
    /// to rand 0.10's.
    #[test]
    fn the_seeded_stream_never_changes() {
        assert_eq!(
            witness(1, DEFAULT_SEED),
            [0x6d82_2b2d_e449_62e4, 0xfb61_20bd_6ef5_ef1a]
        );
        assert_eq!(witness(1, 5), [0x3385_19be_3561_7b5b, 0xb716_1265_46ec_c7f7]);
    }

    #[test]
    fn the_streamed_witness_is_the_witness() {
        let mut bytes = Vec::new();
        write_witness(13, 5, &mut bytes).unwrap();
        let words: Vec<u8> = witness(13, 5).iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(bytes, words);
    }
}
