//! Fixed-seed witnesses, so every run and every engine encodes the same words.

use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};

/// The seed of every benchmark witness.
pub const WITNESS_SEED: u64 = 0x6e74_742d_6265_6e63; // "ntt-benc"

/// `2^log_n` uniformly random words from [`WITNESS_SEED`].
pub fn witness(log_n: u32) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(WITNESS_SEED);
    (0..1usize << log_n).map(|_| rng.next_u64()).collect()
}

/// `n` pseudo-random words from `seed`, for kernel and encoder benches that need several
/// distinct inputs.
pub fn seeded_words(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// Lane-major message (lane t is the contiguous block t) to row-major (word `row·lanes + t`).
pub fn lanes_to_rows(lane_major: &[u64], lanes: usize) -> Vec<u64> {
    assert!(lanes > 0 && lane_major.len().is_multiple_of(lanes));
    let rows = lane_major.len() / lanes;
    let mut out = vec![0; lane_major.len()];
    for (t, lane) in lane_major.chunks_exact(rows).enumerate() {
        for (row, &word) in lane.iter().enumerate() {
            out[row * lanes + t] = word;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witness_is_reproducible_and_not_constant() {
        let a = witness(10);
        assert_eq!(a, witness(10));
        assert_eq!(a.len(), 1024);
        assert!(a.iter().any(|&w| w != a[0]));
        assert_eq!(witness(4)[..], a[..16], "a smaller witness is a prefix");
    }

    #[test]
    fn lanes_to_rows_interleaves() {
        // 2 lanes of 3 rows: lane 0 = [1,2,3], lane 1 = [4,5,6].
        assert_eq!(lanes_to_rows(&[1, 2, 3, 4, 5, 6], 2), [1, 4, 2, 5, 3, 6]);
    }
}
