//! Why a distributed commit stopped, on this rank or another.

use std::io;

use ntt_pcs::ShapeError;

use crate::share::ShareError;
use crate::split::SplitError;
use crate::tree::TreeError;

/// Why a distributed commit stopped. Every rank returns an error when any rank fails before the
/// root: its own, or [`Error::OtherRank`] naming the first rank that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The witness and rate make no shape within the limits, or this rank's share does not fit
    /// in its memory.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The codeword cannot be split between this many ranks.
    #[error(transparent)]
    Split(#[from] SplitError),
    /// The ranks see witnesses of different sizes (word counts by rank).
    #[error(
        "the ranks see witnesses of different sizes (words by rank: {words:?}): every rank must read the same witness"
    )]
    WitnessSizes {
        /// Words of the witness as each rank sees it, by rank.
        words: Vec<u64>,
    },
    /// Rows to open that the codeword does not have (or none).
    #[error("{0}")]
    Rows(String),
    /// This rank was given other arguments than rank 0 (what differs).
    #[error("this rank's arguments differ from rank 0's ({0}): every rank must run the same command")]
    Arguments(String),
    /// This rank could not set up the engine (its pool or backend).
    #[error("cannot set up the engine: {0}")]
    Setup(#[from] ntt_pcs::SetupError),
    /// This rank could not read the witness.
    #[error("cannot read the witness: {0}")]
    Read(#[source] io::Error),
    /// This rank could not encode or hash its share.
    #[error(transparent)]
    Share(#[from] ShareError),
    /// The ranks' chaining values did not make a root (a bug).
    #[error(transparent)]
    Tree(#[from] TreeError),
    /// This rank could not write its part of an output file.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was being written.
        what: String,
        /// Why it failed.
        #[source]
        source: io::Error,
    },
    /// Another rank failed (its own error is on its standard error); this one stopped with it.
    #[error("rank {rank} failed ({}), so this rank stopped too", if *.bad_input { "bad input" } else { "I/O or system failure" })]
    OtherRank {
        /// The first rank that failed.
        rank: usize,
        /// Whether it failed on bad input (else an I/O or system failure).
        bad_input: bool,
    },
}

impl Error {
    /// Whether the error is the input's fault (a shape, a split, a witness that is not words or
    /// differs between ranks), rather than an I/O or system failure.
    pub fn is_bad_input(&self) -> bool {
        match self {
            // As `ntt commit` has it: a codeword too large for the memory is a shape the input
            // asked for.
            Self::Shape(_)
            | Self::Split(_)
            | Self::WitnessSizes { .. }
            | Self::Rows(_)
            | Self::Arguments(_) => true,
            Self::Read(e) => matches!(e.kind(), io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput),
            Self::Share(ShareError::Encode(_)) => true,
            Self::Share(ShareError::Commit(e)) => matches!(
                e,
                ntt_pcs::CommitError::Shape(_) | ntt_pcs::CommitError::Encode(_)
            ),
            Self::OtherRank { bad_input, .. } => *bad_input,
            // As `ntt` has it: a malformed `NTT_*` variable or worker count is bad input.
            Self::Setup(e) => e.is_bad_input(),
            Self::Share(_) | Self::Tree(_) | Self::Write { .. } => false,
        }
    }

    /// The exit code a command reports: 2 for bad input, 3 for an I/O or system failure.
    pub fn exit_code(&self) -> u8 {
        if self.is_bad_input() { 2 } else { 3 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_runtime::BuildError;

    #[test]
    fn malformed_settings_are_bad_input_and_the_system_is_not() {
        let setup = |e: BuildError| Error::Setup(ntt_pcs::SetupError::Pool(e));
        for bad in [
            setup(BuildError::Threads(
                "NTT_THREADS=\"abc\" is not a positive integer".into(),
            )),
            setup(BuildError::IdleSpin("NTT_IDLE_SPIN_US=\"x\"".into())),
            setup(BuildError::Pin("NTT_PIN=\"sideways\"".into())),
            Error::Setup(ntt_pcs::SetupError::Backend(
                ntt_kernels::BackendError::UnknownName("sse9".into()),
            )),
        ] {
            assert_eq!(bad.exit_code(), 2, "{bad}");
        }
        let spawn = setup(BuildError::Spawn {
            index: 0,
            source: io::Error::other("no threads left"),
        });
        assert_eq!(spawn.exit_code(), 3);
    }
}
