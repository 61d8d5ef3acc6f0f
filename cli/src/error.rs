//! Errors the CLI reports, each with its exit code.

use ntt_pcs::{CommitError, EncodeError, VerifyError};

/// Everything that stops a command. `main` prints it on stderr and exits with [`CliError::exit_code`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    #[error("cannot read {what}: {source}")]
    Read { what: String, source: std::io::Error },
    #[error("cannot write {what}: {source}")]
    Write { what: String, source: std::io::Error },
    /// Bad input or usage: a flag, a file's contents, a shape.
    #[error("{0}")]
    Input(String),
    /// The machine cannot do what was asked (memory, a failed system call).
    #[error("{0}")]
    System(String),
    #[error(transparent)]
    Backend(#[from] ntt_kernels::BackendError),
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] ntt_runtime::BuildError),
    #[error(transparent)]
    Shape(#[from] ntt_pcs::ShapeError),
    #[error("cannot allocate {0} bytes")]
    Allocation(u64),
    #[error(transparent)]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Commit(#[from] CommitError),
    #[error(transparent)]
    Open(#[from] ntt_pcs::OpenError),
    #[error("malformed proof: {0}")]
    ProofDecode(#[from] ntt_pcs::ProofDecodeError),
    #[error("proof rejected: {0}")]
    Verify(#[from] VerifyError),
    #[error("cannot serialize output: {0}")]
    Json(#[from] serde_json::Error),
    /// A panic inside the engine: a bug, never the user's input.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Exit status: the proof was checked and does not hold.
pub(crate) const EXIT_REJECTED: u8 = 1;
/// Exit status: bad input or usage (clap's own usage errors exit 2 as well).
pub(crate) const EXIT_BAD_INPUT: u8 = 2;
/// Exit status: I/O or system failure, or an internal error.
pub(crate) const EXIT_FAILURE: u8 = 3;

impl CliError {
    /// 1: the proof was checked and does not hold. 2: bad input or usage. 3: I/O or system
    /// failure, or a panic inside the engine.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Self::Verify(_) => EXIT_REJECTED,
            Self::Read { .. }
            | Self::Write { .. }
            | Self::System(_)
            | Self::Json(_)
            | Self::Internal(_)
            | Self::Allocation(_)
            | Self::Commit(
                CommitError::Allocation { .. }
                | CommitError::HasherAllocation { .. }
                | CommitError::TreeAllocation { .. },
            ) => EXIT_FAILURE,
            Self::Pool(e) if e.is_bad_input() => EXIT_BAD_INPUT,
            Self::Pool(_) => EXIT_FAILURE,
            Self::Encode(e) | Self::Commit(CommitError::Encode(e)) if is_internal(e) => EXIT_FAILURE,
            Self::Commit(CommitError::IncompleteStream { .. }) => EXIT_FAILURE,
            _ => EXIT_BAD_INPUT,
        }
    }
}

impl From<ntt_pcs::SetupError> for CliError {
    fn from(e: ntt_pcs::SetupError) -> Self {
        match e {
            ntt_pcs::SetupError::Backend(e) => Self::Backend(e),
            ntt_pcs::SetupError::Pool(e) => Self::Pool(e),
            // The CLI never hands the builder a pool of its own: any other refusal is a bug.
            other => Self::Internal(other.to_string()),
        }
    }
}

/// Flags that name no commitment scheme: bad input.
impl From<ntt_shell::args::TreeArgsError> for CliError {
    fn from(e: ntt_shell::args::TreeArgsError) -> Self {
        Self::Input(e.to_string())
    }
}

/// Encoder failures that are the engine's fault, not the input's: the CLI's only sink is the
/// engine's own hasher, fed by the engine's own encoder.
fn is_internal(e: &EncodeError) -> bool {
    matches!(e, EncodeError::TaskPanicked(_) | EncodeError::Sink(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_kernels::Backend;
    use ntt_pcs::{CommitParams, Encoder};
    use std::mem::MaybeUninit;

    #[test]
    fn a_task_panic_is_an_internal_failure() {
        let encoder = Encoder::builder()
            .workers(2)
            .backend(Backend::detect())
            .build()
            .unwrap();
        let witness = vec![1u64; 64];
        let mut codeword = vec![MaybeUninit::uninit(); 128];
        // A sink that fails the way a bug in a task would.
        let panicking = |_: usize, _: &[u64]| panic!("a task of the engine panicked");
        let err = encoder
            .encode(
                &witness,
                &mut codeword,
                CommitParams::lanes(4).log_inv_rate(1),
                Some(&panicking),
            )
            .expect_err("the sink panics");
        let cli = CliError::from(err);
        assert_eq!(cli.exit_code(), EXIT_FAILURE, "{cli}");
        let commit = CliError::from(CommitError::Encode(EncodeError::TaskPanicked("boom".into())));
        assert_eq!(commit.exit_code(), EXIT_FAILURE);
    }

    #[test]
    fn tree_flags_that_name_no_scheme_are_bad_input() {
        let args = ntt_shell::args::TreeArgs {
            hash: Some(ntt_shell::args::HashArg::Keccak),
            ..Default::default()
        };
        let err = CliError::from(args.scheme().unwrap_err());
        assert_eq!(err.exit_code(), EXIT_BAD_INPUT, "{err}");
    }

    #[test]
    fn worker_counts_are_bad_input_and_spawn_failures_are_not() {
        let threads = CliError::from(ntt_runtime::BuildError::Threads("0".into()));
        assert_eq!(threads.exit_code(), EXIT_BAD_INPUT);
        let spawn = CliError::from(ntt_runtime::BuildError::Spawn {
            index: 0,
            source: std::io::Error::other("no threads left"),
        });
        assert_eq!(spawn.exit_code(), EXIT_FAILURE);
        assert_eq!(
            CliError::from(EncodeError::MessageLength {
                expected: 1,
                actual: 2
            })
            .exit_code(),
            EXIT_BAD_INPUT
        );
    }
}
