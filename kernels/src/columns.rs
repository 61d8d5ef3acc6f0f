//! Where a row's full vector columns start: at the row's first word, or at the destination's
//! first cache-line boundary after a masked partial column.
//!
//! A `Vec<u64>` from the system allocator usually starts 16 bytes into a cache line, and so do
//! the matrices a prover hands over. With 64-byte vectors every column of such a row then
//! straddles two lines. Starting the full columns at the line boundary avoids that, at the price
//! of one more column per row (a partial one at each end): 3 columns instead of 2 for a 16-word
//! row, 9 instead of 8 for a 64-word one. Which costs more depends on the core:
//!
//! - Intel (Emerald Rapids) splits a line-crossing 64-byte access into two: aligned columns made
//!   whole 64-lane encodes 7–15 % faster there, so every row starts at the line.
//! - AMD Zen 4 handles a line-crossing access almost for free, so the extra column dominates:
//!   with the destination 16 bytes into a line, a radix-8 group in L1 took 0.65 ns per
//!   lane-butterfly on 16-word segments when aligned against 0.37–0.46 unaligned, and 0.38
//!   against 0.33 on 64-word ones. Rows streamed from L2 still gain from alignment, and there
//!   the extra column is cheap: from [`LONG_ROW_WORDS`] words up it adds at most 1/32.
//!
//! Only 64-byte vectors (AVX-512) take a partial first column; shorter ones always start at
//! the row's first word. Non-temporal stores need aligned columns whatever the policy.

use serde::{Deserialize, Serialize};

/// Rows of at least this many words start their full columns at the line boundary under
/// [`ColumnStart::LineForLongRows`]: the extra partial column then adds at most 1/32 of the
/// row's columns.
pub const LONG_ROW_WORDS: usize = 256;

/// Where the kernels start a row's full columns on 64-byte vectors (see the module docs).
/// Every policy gives the same bytes; only the speed differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnStart {
    /// Every row at the destination's first cache-line boundary, after a masked partial column.
    Line,
    /// Rows of at least [`LONG_ROW_WORDS`] words at the line boundary, shorter rows at their
    /// first word.
    LineForLongRows,
}

impl ColumnStart {
    /// Every policy, in the order `NTT_COLUMNS` names them.
    pub const ALL: [Self; 2] = [Self::Line, Self::LineForLongRows];

    /// The name `NTT_COLUMNS` and [`core::str::FromStr`] accept.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Line => "line",
            Self::LineForLongRows => "line-for-long-rows",
        }
    }

    /// The policy measured best on this CPU: [`ColumnStart::LineForLongRows`] on AMD cores
    /// (measured on Zen 4), [`ColumnStart::Line`] elsewhere (measured on Intel).
    pub fn for_this_cpu() -> Self {
        if cpu_is_amd() {
            Self::LineForLongRows
        } else {
            Self::Line
        }
    }

    /// Words of a `width`-word row whose destination starts at `dst` that go before its first
    /// full column of `vector`-word vectors: 0 (start at the row's first word), or the partial
    /// column up to the first vector boundary. `stream` (non-temporal stores) always aligns.
    #[inline(always)]
    pub(crate) fn head(self, dst: *const u64, width: usize, vector: usize, stream: bool) -> usize {
        let align = stream
            || (vector == 8
                && match self {
                    Self::Line => true,
                    Self::LineForLongRows => width >= LONG_ROW_WORDS,
                });
        if !align {
            return 0;
        }
        let misalign = (dst.addr() / 8) % vector;
        ((vector - misalign) % vector).min(width)
    }
}

impl core::fmt::Display for ColumnStart {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of the [`ColumnStart`] names.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown column start `{0}` (expected line or line-for-long-rows)")]
pub struct UnknownColumnStart(pub String);

impl core::str::FromStr for ColumnStart {
    type Err = UnknownColumnStart;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::by_name(Self::ALL, Self::name, s).ok_or_else(|| UnknownColumnStart(s.to_owned()))
    }
}

/// Whether the CPU's vendor string is AMD's. Read once: CPUID traps to the hypervisor in a
/// virtual machine, and every AVX-512 backend made asks.
fn cpu_is_amd() -> bool {
    static AMD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AMD.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            let id = core::arch::x86_64::__cpuid(0);
            // The vendor string is EBX, EDX, ECX: "Auth" "enti" "cAMD".
            let vendor = [id.ebx, id.edx, id.ecx].map(u32::to_le_bytes);
            vendor.concat() == b"AuthenticAMD"
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A destination 16 bytes into a line (two words past a 64-byte boundary).
    fn two_words_in() -> *const u64 {
        core::ptr::without_provenance(64 * 1000 + 16)
    }

    #[test]
    fn short_rows_start_at_their_first_word_only_under_line_for_long_rows() {
        let dst = two_words_in();
        assert_eq!(ColumnStart::Line.head(dst, 16, 8, false), 6);
        assert_eq!(ColumnStart::LineForLongRows.head(dst, 16, 8, false), 0);
        assert_eq!(
            ColumnStart::LineForLongRows.head(dst, LONG_ROW_WORDS - 1, 8, false),
            0
        );
        assert_eq!(
            ColumnStart::LineForLongRows.head(dst, LONG_ROW_WORDS, 8, false),
            6
        );
    }

    #[test]
    fn streams_and_short_vectors_ignore_the_policy() {
        let dst = two_words_in();
        for policy in ColumnStart::ALL {
            assert_eq!(policy.head(dst, 16, 8, true), 6, "{policy}");
            assert_eq!(policy.head(dst, 16, 4, false), 0, "{policy}");
            assert_eq!(policy.head(dst, 16, 4, true), 2, "{policy}");
        }
    }

    #[test]
    fn a_row_shorter_than_its_partial_column_is_all_head() {
        assert_eq!(ColumnStart::Line.head(two_words_in(), 3, 8, false), 3);
    }

    #[test]
    fn names_round_trip() {
        for policy in ColumnStart::ALL {
            assert_eq!(policy.name().parse(), Ok(policy));
        }
        assert!("diagonal".parse::<ColumnStart>().is_err());
    }
}
