//! The shape of a benchmarked commitment: witness size, lanes, rate.

use serde::Serialize;

/// A witness of `2^log_n` words committed as `lanes` interleaved lanes at rate `1/2^log_inv_rate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BenchShape {
    pub log_n: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
}

impl BenchShape {
    /// The production shape: 64 lanes.
    pub const fn lanes64(log_n: u32, log_inv_rate: u32) -> Self {
        Self {
            log_n,
            lanes: 64,
            log_inv_rate,
        }
    }

    /// Witness words.
    pub const fn witness_words(self) -> usize {
        1 << self.log_n
    }

    /// Witness bytes (the committed data that GiB/s figures are quoted over).
    pub const fn witness_bytes(self) -> usize {
        8 * self.witness_words()
    }

    /// Message rows per lane, as a log. `lanes` must divide the witness and be a power of two.
    pub const fn log_message_rows(self) -> u32 {
        self.log_n - self.lanes.trailing_zeros()
    }

    /// Codeword rows, as a log.
    pub const fn log_rows(self) -> u32 {
        self.log_message_rows() + self.log_inv_rate
    }

    /// Codeword words.
    pub const fn codeword_words(self) -> usize {
        self.witness_words() << self.log_inv_rate
    }

    /// Codeword bytes.
    pub const fn codeword_bytes(self) -> usize {
        8 * self.codeword_words()
    }

    /// Lane-butterflies of one encode: `rows/2 · (log_rows − r) · lanes` (the first `r` layers
    /// are copies).
    pub const fn lane_butterflies(self) -> u64 {
        let half_rows = 1u64 << (self.log_rows() - 1);
        half_rows * (self.log_rows() - self.log_inv_rate) as u64 * self.lanes as u64
    }

    /// A short label, e.g. `log_n=22/r=1`.
    pub fn label(self) -> String {
        format!("log_n={}/r={}", self.log_n, self.log_inv_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_of_the_issue_targets() {
        // 2^24 words as 64 lanes at rate 1/2: 2^19 rows, 2^18 · 18 · 64 lane-butterflies.
        let s = BenchShape::lanes64(24, 1);
        assert_eq!(s.log_rows(), 19);
        assert_eq!(s.codeword_bytes(), 8 << 25);
        assert_eq!(s.lane_butterflies(), (1 << 18) * 18 * 64);
    }
}
