//! `-j`/`--threads` and `--pin`: the worker pool a command runs on.

use clap::{Args, ValueEnum};
use ntt_runtime::PinPolicy;

/// How workers are pinned to CPUs (`--pin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PinArg {
    /// Not bound: the OS schedules the workers (for sharing a machine without `taskset`).
    None,
    /// Each worker bound to one core (its SMT siblings included).
    Cores,
    /// Each worker bound to one PU (hardware thread).
    Pus,
}

impl From<PinArg> for PinPolicy {
    fn from(pin: PinArg) -> Self {
        match pin {
            PinArg::None => PinPolicy::None,
            PinArg::Cores => PinPolicy::Cores,
            PinArg::Pus => PinPolicy::Pus,
        }
    }
}

/// The worker pool and kernels a command runs on (in `ntt-mpi`, each rank's own).
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct EngineArgs {
    /// Worker threads (default: `NTT_THREADS`, else one per allowed core).
    #[arg(short = 'j', long, value_name = "T")]
    pub threads: Option<usize>,
    /// Pin workers to cores, to PUs, or not at all (default: `NTT_PIN`, else cores when there
    /// is a core per worker). Two engines on one machine: `taskset` each to its own CPUs, or
    /// `--pin none`.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub pin: Option<PinArg>,
}

impl EngineArgs {
    /// The pinning `--pin` asks for, else `NTT_PIN`'s (`None`: the pool's default).
    ///
    /// # Errors
    /// A malformed `NTT_PIN` (bad input: exit code 2).
    pub fn pin_policy(self) -> Result<Option<PinPolicy>, ntt_runtime::BuildError> {
        match self.pin {
            Some(pin) => Ok(Some(pin.into())),
            None => PinPolicy::from_env(),
        }
    }

    /// An encoder builder on `backend` with the workers (`--threads`, else `NTT_THREADS` or one
    /// per allowed core) and the pinning ([`EngineArgs::pin_policy`]) these flags ask for: the
    /// one pool both binaries build.
    ///
    /// # Errors
    /// A malformed `NTT_PIN` (bad input: exit code 2).
    pub fn encoder_builder(
        self,
        backend: ntt_kernels::Backend,
    ) -> Result<ntt_pcs::EncoderBuilder, ntt_runtime::BuildError> {
        let builder = ntt_pcs::Encoder::builder()
            .workers(self.threads.unwrap_or(0))
            .backend(backend);
        Ok(match self.pin_policy()? {
            Some(pin) => builder.pin(pin),
            None => builder,
        })
    }
}
