//! Twiddles of the Lin-Chung-Han additive NTT over the basis β_j = x^j, written from the
//! definition (Lin, Chung, Han 2014, §3): the normalized subspace polynomials ŝ_i = s_i / s_i(β_i)
//! evaluated on the basis.
//!
//! This is the table a user would build for the transform; the rayon baseline reads it.

use ntt_kernels::Gf64;

/// `ŝ_i(β_k)` for every `i ≤ k < log_rows`, and the twiddles of the forward transform.
#[derive(Clone, Debug)]
pub struct SubspaceTwiddles {
    /// `rows[i][k − i] = ŝ_i(β_k)`, so `rows[i][0] = 1`.
    rows: Vec<Vec<u64>>,
}

impl SubspaceTwiddles {
    /// The table for a transform of `2^log_rows` rows.
    ///
    /// # Panics
    /// If `log_rows > 63` (the basis β_j = x^j spans at most 63 dimensions here).
    pub fn new(log_rows: u32) -> Self {
        assert!(
            log_rows <= 63,
            "log_rows {log_rows} exceeds the field's 63 usable dimensions"
        );
        let dim = log_rows as usize;
        // Unnormalized s_i(β_k): s_0(X) = X, s_i(X) = s_{i−1}(X)·(s_{i−1}(X) + s_{i−1}(β_{i−1})).
        let mut raw: Vec<Vec<Gf64>> = Vec::with_capacity(dim);
        if dim > 0 {
            raw.push((0..dim).map(|j| Gf64(1 << j)).collect());
        }
        for i in 1..dim {
            let prev = &raw[i - 1];
            let row = prev[1..].iter().map(|&p| p * (p + prev[0])).collect();
            raw.push(row);
        }
        // Normalize each row by its first entry s_i(β_i) only after all rows exist.
        let rows = raw
            .into_iter()
            .map(|row| {
                assert_ne!(row[0], Gf64::ZERO, "s_i(β_i) is nonzero for a basis");
                let inv = row[0].inverse();
                row.into_iter().map(|v| (v * inv).0).collect()
            })
            .collect();
        Self { rows }
    }

    /// Rows of the transform, as a log.
    pub fn log_rows(&self) -> u32 {
        self.rows.len() as u32
    }

    /// The twiddle of block `block` in layer `layer`: `ŝ_{L−layer−1}(ω_{block·2^{L−layer}})`,
    /// by linearity the sum of `ŝ_{L−layer−1}(β_{L−layer+j})` over the set bits j of `block`.
    pub fn twiddle(&self, layer: u32, block: usize) -> u64 {
        let row = &self.rows[self.rows.len() - layer as usize - 1];
        let mut acc = 0;
        let mut bits = block;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            acc ^= row[1 + j];
            bits &= bits - 1;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_published_values() {
        // L = 4: layer 1: [0, 0x16]; layer 2: [0, 0x6, 0x1c, 0x1a]; layer 3: 2b.
        let t = SubspaceTwiddles::new(4);
        assert_eq!(t.twiddle(0, 0), 0);
        assert_eq!([t.twiddle(1, 0), t.twiddle(1, 1)], [0, 0x16]);
        assert_eq!(
            (0..4).map(|b| t.twiddle(2, b)).collect::<Vec<_>>(),
            [0, 0x6, 0x1c, 0x1a]
        );
        for b in 0..8 {
            assert_eq!(t.twiddle(3, b), 2 * b as u64);
        }
        // L = 5, row 2 = [1, 0x16, 0x17c]: layer 2 twiddles are sums of 0x16 and 0x17c.
        let t = SubspaceTwiddles::new(5);
        assert_eq!(
            (0..4).map(|b| t.twiddle(2, b)).collect::<Vec<_>>(),
            [0, 0x16, 0x17c, 0x16 ^ 0x17c]
        );
    }
}
