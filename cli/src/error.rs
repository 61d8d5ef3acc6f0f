//! Errors the CLI reports, each with its exit code.

use std::path::PathBuf;

/// Everything that stops a command. `main` prints it on stderr and exits with [`CliError::exit_code`].
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("cannot read `{path}`: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write `{path}`: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Backend(#[from] ntt_kernels::BackendError),
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] ntt_runtime::BuildError),
    #[error(transparent)]
    Shape(#[from] ntt_pcs::ShapeError),
    #[error("cannot allocate {0} bytes")]
    Allocation(u64),
    #[error(transparent)]
    Encode(#[from] ntt_pcs::EncodeError),
    #[error(transparent)]
    Commit(#[from] ntt_pcs::CommitError),
    #[error(transparent)]
    Open(#[from] ntt_pcs::OpenError),
    #[error("malformed proof: {0}")]
    ProofDecode(#[from] ntt_pcs::ProofDecodeError),
    #[error("proof rejected: {0}")]
    Verify(#[from] ntt_pcs::VerifyError),
    #[error("cannot serialize output: {0}")]
    Json(#[from] serde_json::Error),
}

impl CliError {
    /// 1: the proof was checked and does not hold. 2: bad input or usage. 3: I/O or system failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Verify(_) => 1,
            Self::Read { .. }
            | Self::Write { .. }
            | Self::Pool(_)
            | Self::Json(_)
            | Self::Allocation(_)
            | Self::Commit(ntt_pcs::CommitError::Allocation { .. }) => 3,
            _ => 2,
        }
    }
}
