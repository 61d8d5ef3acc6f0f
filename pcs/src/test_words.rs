//! Test input for the crate's unit tests: pseudo-random words (xorshift) with the edge values the
//! field reduction must get right mixed in (all ones, only the top bit, only the top nibble).

/// `n` words from `seed`.
pub(crate) fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 11 {
                0 => u64::MAX,
                1 => 1 << 63,
                2 => 0xF000_0000_0000_0000,
                _ => x,
            }
        })
        .collect()
}
