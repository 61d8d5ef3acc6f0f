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
