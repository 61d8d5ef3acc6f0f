//! Building the pool, the backend, the wisdom and the committer from the flags.

use crate::error::CliError;
use ntt_pcs::wisdom::{self, WisdomStatus};
use ntt_pcs::{Committer, Encoder, SetupError};
use std::sync::Arc;

/// An encoder and what became of the machine's wisdom.
pub struct Engine {
    pub encoder: Encoder,
    pub wisdom: WisdomStatus,
}

/// The worker pool and backend that `NTT_THREADS`, `NTT_BACKEND` and `--threads` ask for, planning
/// with this machine's wisdom when there is some (a warning on stderr when it is unusable).
pub fn engine(threads: Option<usize>) -> Result<Engine, CliError> {
    let encoder = bare_encoder(threads)?;
    let (found, status) = wisdom::load(encoder.pool().topology());
    if let WisdomStatus::Ignored { .. } = &status {
        eprintln!("warning: wisdom {status}");
    }
    Ok(Engine {
        encoder: encoder.with_wisdom(found.map(Arc::new)),
        wisdom: status,
    })
}

pub fn encoder(threads: Option<usize>) -> Result<Encoder, CliError> {
    Ok(engine(threads)?.encoder)
}

/// An encoder that plans from the topology alone, ignoring wisdom (tuning measures against it).
pub fn bare_encoder(threads: Option<usize>) -> Result<Encoder, CliError> {
    if threads == Some(0) {
        return Err(CliError::Input("--threads must be at least 1".to_owned()));
    }
    Encoder::from_env(threads).map_err(|e| match e {
        SetupError::Backend(e) => CliError::Backend(e),
        SetupError::Pool(e) => CliError::Pool(e),
    })
}

pub fn committer(threads: Option<usize>) -> Result<Committer, CliError> {
    Ok(Committer::new(encoder(threads)?))
}
