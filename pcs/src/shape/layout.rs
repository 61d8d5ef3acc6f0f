//! How a separate message's words are arranged.

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
