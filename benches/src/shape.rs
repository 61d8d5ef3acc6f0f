//! The shape of a benchmarked commitment: lanes, message rows per lane, rate.

use serde::Serialize;

/// A witness of `lanes · 2^log_message_rows` words committed as `lanes` interleaved lanes at
/// rate `1/2^log_inv_rate`. Any lane count works (3, 6, 24 lanes included); a size given in
/// words ([`BenchShape::from_words`]) must split into a power-of-two number of rows per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BenchShape {
    /// Interleaved lanes (words per codeword row).
    pub lanes: usize,
    /// Log of the message's rows (words per lane).
    pub log_message_rows: u32,
    /// Log of the inverse rate.
    pub log_inv_rate: u32,
}

/// A witness size that the lane count does not split into a power-of-two number of rows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{lanes} lanes do not divide 2^{log_n} words into a power-of-two number of rows per lane \
     (give the size in rows per lane instead, or a power-of-two lane count)"
)]
pub struct ShapeError {
    /// Log of the witness's words.
    pub log_n: u32,
    /// The lane count asked for.
    pub lanes: usize,
}

impl BenchShape {
    /// The production shape: 64 lanes, `2^log_n` words (`log_n >= 6`).
    pub const fn lanes64(log_n: u32, log_inv_rate: u32) -> Self {
        Self {
            lanes: 64,
            log_message_rows: log_n - 6,
            log_inv_rate,
        }
    }

    /// `2^log_n` words as `lanes` lanes.
    ///
    /// # Errors
    /// When `lanes` is 0, or not a power of two no larger than `2^log_n`.
    pub fn from_words(log_n: u32, lanes: usize, log_inv_rate: u32) -> Result<Self, ShapeError> {
        if lanes == 0 || !lanes.is_power_of_two() || lanes.trailing_zeros() > log_n {
            return Err(ShapeError { log_n, lanes });
        }
        Ok(Self {
            lanes,
            log_message_rows: log_n - lanes.trailing_zeros(),
            log_inv_rate,
        })
    }

    /// `lanes` lanes of `2^log_message_rows` rows each.
    pub const fn from_rows(log_message_rows: u32, lanes: usize, log_inv_rate: u32) -> Self {
        Self {
            lanes,
            log_message_rows,
            log_inv_rate,
        }
    }

    /// Witness words.
    pub const fn witness_words(self) -> usize {
        self.lanes << self.log_message_rows
    }

    /// log2 of the witness words, when that is a whole number (power-of-two lanes).
    pub const fn log_n(self) -> Option<u32> {
        if self.lanes.is_power_of_two() {
            Some(self.log_message_rows + self.lanes.trailing_zeros())
        } else {
            None
        }
    }

    /// Witness bytes (the committed data that GiB/s figures are quoted over).
    pub const fn witness_bytes(self) -> usize {
        8 * self.witness_words()
    }

    /// Message rows per lane, as a log.
    pub const fn log_message_rows(self) -> u32 {
        self.log_message_rows
    }

    /// Codeword rows, as a log.
    pub const fn log_rows(self) -> u32 {
        self.log_message_rows + self.log_inv_rate
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

    /// The witness size in words: `2^20` for power-of-two lanes, `24·2^15` otherwise.
    pub fn words_label(self) -> String {
        match self.log_n() {
            Some(n) => format!("2^{n}"),
            None => format!("{}·2^{}", self.lanes, self.log_message_rows),
        }
    }

    /// A short label, e.g. `log_n=22/lanes=64/r=1` or `rows=2^15/lanes=24/r=1`.
    pub fn label(self) -> String {
        match self.log_n() {
            Some(n) => format!("log_n={n}/lanes={}/r={}", self.lanes, self.log_inv_rate),
            None => format!(
                "rows=2^{}/lanes={}/r={}",
                self.log_message_rows, self.lanes, self.log_inv_rate
            ),
        }
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
        assert_eq!(BenchShape::from_words(24, 64, 1), Ok(s));
    }

    #[test]
    fn any_lane_count_by_rows_and_only_dividing_ones_by_words() {
        let s = BenchShape::from_rows(15, 24, 1);
        assert_eq!(s.witness_words(), 24 << 15);
        assert_eq!(s.log_n(), None);
        assert_eq!(s.label(), "rows=2^15/lanes=24/r=1");
        assert_eq!(s.words_label(), "24·2^15");
        assert!(BenchShape::from_words(20, 24, 1).is_err());
        assert!(BenchShape::from_words(20, 3, 1).is_err());
        assert!(BenchShape::from_words(20, 0, 1).is_err());
        assert!(BenchShape::from_words(3, 16, 1).is_err());
        assert_eq!(BenchShape::from_words(12, 1, 1).map(|s| s.log_rows()), Ok(13));
    }
}
