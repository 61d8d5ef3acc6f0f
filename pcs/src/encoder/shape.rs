//! What an encode is asked to do: the codeword's shape and the message's layout.

use serde::{Deserialize, Serialize};

/// How a separate message is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageLayout {
    /// Lane-major: lane t is the contiguous block t of `message rows` words.
    Lanes,
    /// Row-major: word `row·lanes + lane`, like the codeword.
    Rows,
}

impl core::str::FromStr for MessageLayout {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lanes" | "lane-major" => Ok(Self::Lanes),
            "rows" | "row-major" => Ok(Self::Rows),
            other => Err(format!(
                "unknown message layout `{other}` (expected lanes or rows)"
            )),
        }
    }
}

impl core::fmt::Display for MessageLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Lanes => "lanes",
            Self::Rows => "rows",
        })
    }
}

/// The shape of a codeword: 2^log_rows rows of `lanes` words, at rate 1/2^log_inv_rate (the
/// message has 2^(log_rows − log_inv_rate) rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    pub log_rows: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
}

impl Shape {
    /// Rows of the codeword.
    pub fn rows(&self) -> usize {
        1usize << self.log_rows
    }
    /// Words of the codeword.
    pub fn codeword_words(&self) -> usize {
        self.lanes << self.log_rows
    }
    /// Rows of the message.
    pub fn message_rows(&self) -> usize {
        1usize << (self.log_rows - self.log_inv_rate)
    }
    /// Words of the message.
    pub fn message_words(&self) -> usize {
        self.lanes << (self.log_rows - self.log_inv_rate)
    }
    /// Lane-butterflies the encode performs: rows/2 × (log_rows − r) × lanes.
    pub fn lane_butterflies(&self) -> u64 {
        (self.rows() as u64 / 2) * u64::from(self.log_rows - self.log_inv_rate) * self.lanes as u64
    }
}

impl core::fmt::Display for Shape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "2^{} rows × {} lanes, rate 1/2^{}",
            self.log_rows, self.lanes, self.log_inv_rate
        )
    }
}
