//! Building the pool, the backend, the wisdom and the committer from the flags.

use crate::error::CliError;
use crate::what_if;
use ntt_kernels::{Backend, BackendKind};
use ntt_pcs::wisdom::WisdomStatus;
use ntt_pcs::{Committer, Encoder};
use ntt_runtime::Topology;
use ntt_shell::args::EngineArgs;

/// An encoder and what became of the machine's wisdom.
pub(crate) struct Engine {
    pub encoder: Encoder,
    pub wisdom: WisdomStatus,
}

/// The worker pool and backend that `NTT_THREADS`, `NTT_PIN`, `NTT_BACKEND`, `--threads` and
/// `--pin` ask for, planning with this machine's wisdom when there is some (a warning on stderr
/// when it is unusable).
pub(crate) fn engine(args: EngineArgs) -> Result<Engine, CliError> {
    engine_with(args, None, None)
}

/// As [`engine`], on `topology` (one of this machine's sources) instead of the detected one and
/// with `backend` instead of `NTT_BACKEND`'s when given.
pub(crate) fn engine_with(
    args: EngineArgs,
    topology: Option<Topology>,
    backend: Option<BackendKind>,
) -> Result<Engine, CliError> {
    let (encoder, wisdom) = ntt_shell::with_machine_wisdom(bare_encoder_with(args, topology, backend)?);
    Ok(Engine { encoder, wisdom })
}

pub(crate) fn encoder(args: EngineArgs) -> Result<Encoder, CliError> {
    Ok(engine(args)?.encoder)
}

/// An encoder that plans from the topology alone, ignoring wisdom (tuning measures against it).
pub(crate) fn bare_encoder(args: EngineArgs) -> Result<Encoder, CliError> {
    bare_encoder_with(args, None, None)
}

/// As [`bare_encoder`], on `topology` and with `backend` when given. Refuses (exit code 2) when
/// `NTT_TOPOLOGY` names another machine and no topology is given: nothing runs on a what-if.
pub(crate) fn bare_encoder_with(
    args: EngineArgs,
    topology: Option<Topology>,
    backend: Option<BackendKind>,
) -> Result<Encoder, CliError> {
    let threads = args.threads;
    if threads == Some(0) {
        return Err(CliError::Input("--threads must be at least 1".to_owned()));
    }
    let backend = match backend {
        Some(kind) => Backend::new(kind)?.with_env_column_start()?,
        None => Backend::from_env()?,
    };
    let mut builder = args.encoder_builder(backend)?;
    match topology {
        Some(topology) if topology.is_what_if() => {
            return Err(CliError::Input(
                "another machine's topology cannot run the engine".to_owned(),
            ));
        }
        Some(topology) => builder = builder.topology(topology),
        None => what_if::refuse_foreign()?,
    }
    Ok(builder.build()?)
}

/// A committer evaluating on `domain`.
pub(crate) fn committer_on(args: EngineArgs, domain: ntt_pcs::Domain) -> Result<Committer, CliError> {
    Ok(Committer::new(encoder(args)?.with_domain(domain)))
}
