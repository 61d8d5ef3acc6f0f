//! The per-call parameters of a commit or an encode, each set by name.

use super::MessageLayout;
use ntt_verify::Scheme;

/// What a commit (or an encode) makes of its message: `lanes` words per row, rate
/// 1/2^`log_inv_rate`, the message's [`MessageLayout`] (lane-major unless
/// [`layout`](Self::layout) says otherwise) and, for a commit, the commitment's [`Scheme`] (the
/// BLAKE3 chunk tree unless [`scheme`](Self::scheme) names a row tree; an encode ignores it).
///
/// Lanes and rate are both small integers, so they are set by name and never by position: the
/// only way to make a value is `CommitParams::lanes(..).log_inv_rate(..)`, and a call that passes
/// them the old way round does not compile.
///
/// ```
/// use ntt_pcs::{CommitParams, MessageLayout};
///
/// let params = CommitParams::lanes(64).log_inv_rate(1);
/// assert_eq!(params.layout_of(), MessageLayout::Lanes);
/// let rows = params.layout(MessageLayout::Rows);
/// assert_eq!((rows.lane_count(), rows.log_inv_rate_of()), (64, 1));
/// ```
///
/// Bare numbers, in either order, are refused at compile time:
///
/// ```compile_fail,E0061
/// # let committer = ntt_pcs::committer().unwrap();
/// # let witness = vec![0u64; 1 << 10];
/// use ntt_pcs::MessageLayout;
/// // Lanes and rate swapped: this used to compile and commit to the wrong code.
/// committer.commit(&witness, MessageLayout::Lanes, 1, 64);
/// ```
///
/// ```compile_fail,E0451
/// // No positional constructor, and the fields are private.
/// let params = ntt_pcs::CommitParams { lanes: 1, log_inv_rate: 64, layout: ntt_pcs::MessageLayout::Lanes };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommitParams {
    pub(crate) lanes: usize,
    pub(crate) log_inv_rate: u32,
    pub(crate) layout: MessageLayout,
    pub(crate) scheme: Scheme,
}

/// Half-built [`CommitParams`]: the lanes are set, the rate is still to be named with
/// [`log_inv_rate`](Self::log_inv_rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "name the rate with `.log_inv_rate(..)` to make the parameters"]
pub struct CommitLanes {
    lanes: usize,
}

impl CommitParams {
    /// Starts the parameters with `lanes` words per codeword row (one lane per interleaved
    /// message column); the rate comes next.
    pub const fn lanes(lanes: usize) -> CommitLanes {
        CommitLanes { lanes }
    }

    /// The message's layout (lane-major by default; row-major for an in-place encode).
    #[must_use]
    pub const fn layout(mut self, layout: MessageLayout) -> Self {
        self.layout = layout;
        self
    }

    /// The commitment's tree, hash and cap height (the BLAKE3 chunk tree by default):
    ///
    /// ```
    /// use ntt_pcs::{CommitParams, HashKind, Scheme};
    /// let params = CommitParams::lanes(64).log_inv_rate(1).scheme(Scheme::rows(HashKind::Keccak, 1)?);
    /// assert_eq!(params.scheme_of().cap_height(), 1);
    /// # Ok::<(), ntt_pcs::SchemeError>(())
    /// ```
    #[must_use]
    pub const fn scheme(mut self, scheme: Scheme) -> Self {
        self.scheme = scheme;
        self
    }

    /// The commitment's scheme.
    pub const fn scheme_of(&self) -> Scheme {
        self.scheme
    }

    /// Words per codeword row.
    pub const fn lane_count(&self) -> usize {
        self.lanes
    }

    /// The log of the inverse rate: the codeword has 2^this times the message's rows.
    pub const fn log_inv_rate_of(&self) -> u32 {
        self.log_inv_rate
    }

    /// The message's layout.
    pub const fn layout_of(&self) -> MessageLayout {
        self.layout
    }
}

impl CommitLanes {
    /// Sets the rate, 1/2^`log_inv_rate` (1: the codeword is twice the message), and makes the
    /// parameters, lane-major.
    pub const fn log_inv_rate(self, log_inv_rate: u32) -> CommitParams {
        CommitParams {
            lanes: self.lanes,
            log_inv_rate,
            layout: MessageLayout::Lanes,
            scheme: Scheme::chunks(),
        }
    }
}

impl core::fmt::Display for CommitParams {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} lanes at rate 1/2^{}, {} message",
            self.lanes, self.log_inv_rate, self.layout
        )
    }
}
