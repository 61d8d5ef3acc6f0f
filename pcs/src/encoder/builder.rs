//! The one way to set up an encoder: on a pool of its own (workers, topology, pinning) or on a
//! pool the caller shares, with a named or the detected backend.

use std::path::PathBuf;
use std::sync::Arc;

use ntt_kernels::Backend;
use ntt_runtime::{PinPolicy, ThreadPool, ThreadPoolBuilder, Topology};

use super::Encoder;

/// Why [`EncoderBuilder::build`] could not set up an encoder.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// `NTT_BACKEND` names an unknown backend or one this CPU cannot run.
    #[error(transparent)]
    Backend(#[from] ntt_kernels::BackendError),
    /// The pool's size is out of range (or `NTT_THREADS` malformed), or a worker cannot start.
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] ntt_runtime::BuildError),
    /// A setting of a new pool was given together with an existing pool.
    #[error("the encoder was given an existing pool, so `{setting}` cannot apply")]
    PoolGiven {
        /// The builder method that asked for a new pool's setting.
        setting: &'static str,
    },
    /// The wisdom file asked for cannot be read, is not wisdom, or (named with
    /// [`EncoderBuilder::wisdom`]) does not exist.
    #[error(transparent)]
    Wisdom(#[from] crate::wisdom::WisdomError),
}

impl SetupError {
    /// Whether the settings are at fault (a backend this CPU lacks, a malformed `NTT_*`
    /// variable, a worker count, pool settings given with a pool) rather than the operating
    /// system: a command reports such an error as bad input.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Self::Backend(_) | Self::PoolGiven { .. } | Self::Wisdom(_) => true,
            Self::Pool(e) => e.is_bad_input(),
        }
    }
}

/// Sets up an [`Encoder`]: where it runs (a new pool, by default `NTT_THREADS` workers or one per
/// processing unit, placed by the detected topology; or an existing pool) and with which kernels
/// (by default the backend `NTT_BACKEND` names, else the fastest this CPU has).
///
/// ```
/// use ntt_pcs::Encoder;
/// use ntt_kernels::Backend;
///
/// let encoder = Encoder::builder().workers(2).backend(Backend::portable()).build()?;
/// assert_eq!(encoder.pool().num_workers(), 2);
///
/// // A second encoder sharing the first one's workers.
/// let shared = Encoder::builder().pool(encoder.pool().clone()).build()?;
/// assert!(std::sync::Arc::ptr_eq(shared.pool(), encoder.pool()));
/// # Ok::<(), ntt_pcs::SetupError>(())
/// ```
#[derive(Debug, Default)]
#[must_use = "an encoder builder does nothing until `build` is called"]
pub struct EncoderBuilder {
    pool: Option<Arc<ThreadPool>>,
    new_pool: ThreadPoolBuilder,
    /// The first new-pool setting given, to name it when it conflicts with `pool`.
    new_pool_setting: Option<&'static str>,
    backend: Option<Backend>,
    wisdom: WisdomSource,
}

/// Where the builder's encoder takes its wisdom from.
#[derive(Debug, Default)]
enum WisdomSource {
    /// None: plans from the topology alone.
    #[default]
    None,
    /// The file `ntt tune --save` writes (`NTT_WISDOM`, else the configuration directory).
    Saved,
    /// A file the caller names.
    File(PathBuf),
}

impl EncoderBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs on `pool` (shared with its other users) instead of starting a pool of its own.
    pub fn pool(mut self, pool: Arc<ThreadPool>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Starts `workers` workers (0: `NTT_THREADS`, else one per processing unit).
    pub fn workers(mut self, workers: usize) -> Self {
        self.new_pool = self.new_pool.num_threads(workers);
        self.new_pool_setting.get_or_insert("workers");
        self
    }

    /// Places the new pool's workers by `topology` instead of the detected one.
    pub fn topology(mut self, topology: Topology) -> Self {
        self.new_pool = self.new_pool.topology(topology);
        self.new_pool_setting.get_or_insert("topology");
        self
    }

    /// Pins the new pool's workers by `policy` (see [`ThreadPoolBuilder::pin`] for the default).
    pub fn pin(mut self, policy: PinPolicy) -> Self {
        self.new_pool = self.new_pool.pin(policy);
        self.new_pool_setting.get_or_insert("pin");
        self
    }

    /// Names the new pool's worker threads (`name(i)` for worker `i`).
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + Send + 'static) -> Self {
        self.new_pool = self.new_pool.thread_name(name);
        self.new_pool_setting.get_or_insert("thread_name");
        self
    }

    /// Keeps the new pool's idle workers looking for work for `spin` before they park (see
    /// [`ThreadPoolBuilder::idle_spin`]): for a caller whose encodes come a few milliseconds
    /// apart.
    pub fn idle_spin(mut self, spin: std::time::Duration) -> Self {
        self.new_pool = self.new_pool.idle_spin(spin);
        self.new_pool_setting.get_or_insert("idle_spin");
        self
    }

    /// Runs `backend`'s kernels instead of those `NTT_BACKEND` names or the CPU's fastest.
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Plans with the wisdom (settings `ntt tune --save` measured best) in the file at `path`,
    /// wherever [`Encoder::with_config`] leaves a setting unforced. Wisdom changes plans only:
    /// codewords and roots stay the same. A file measured on another machine (another cache
    /// topology) is ignored with a `tracing` warning, as the `ntt` command ignores it; see
    /// [`Encoder::wisdom_status`]. [`build`](Self::build) fails when the file is missing,
    /// unreadable or not wisdom.
    ///
    /// ```no_run
    /// let encoder = ntt_pcs::Encoder::builder().wisdom("wisdom.json").build()?;
    /// let committer = ntt_pcs::Committer::new(encoder);
    /// # Ok::<(), ntt_pcs::SetupError>(())
    /// ```
    pub fn wisdom(mut self, path: impl Into<PathBuf>) -> Self {
        self.wisdom = WisdomSource::File(path.into());
        self
    }

    /// As [`wisdom`](Self::wisdom), from the file the `ntt` command reads and `ntt tune --save`
    /// writes: `NTT_WISDOM`'s, else `$XDG_CONFIG_HOME/ntt-engine/wisdom.json` or
    /// `$HOME/.config/ntt-engine/wisdom.json` (see [`crate::wisdom`]). No file there, or
    /// `NTT_WISDOM=off`, plans without wisdom; an unreadable or malformed file fails
    /// [`build`](Self::build). Without this call the library never reads `NTT_WISDOM`.
    pub fn saved_wisdom(mut self) -> Self {
        self.wisdom = WisdomSource::Saved;
        self
    }

    /// The encoder, planning from its pool's topology and the wisdom asked for (add a domain
    /// or forced plan settings with [`Encoder::with_domain`] and [`Encoder::with_config`]).
    /// Given an existing pool and a backend, and no wisdom, it cannot fail.
    ///
    /// # Errors
    /// [`SetupError::Backend`] for an `NTT_BACKEND` this CPU cannot run (only when no backend
    /// was given); [`SetupError::Pool`] when the new pool cannot start;
    /// [`SetupError::PoolGiven`] when new-pool settings come with an existing pool;
    /// [`SetupError::Wisdom`] when the wisdom file asked for cannot be used.
    pub fn build(self) -> Result<Encoder, SetupError> {
        let backend = match self.backend {
            Some(backend) => backend,
            None => Backend::from_env()?,
        };
        let pool = match (self.pool, self.new_pool_setting) {
            (Some(_), Some(setting)) => return Err(SetupError::PoolGiven { setting }),
            (Some(pool), None) => pool,
            (None, _) => Arc::new(self.new_pool.build()?),
        };
        let encoder = Encoder::on(pool, backend);
        Ok(match self.wisdom {
            WisdomSource::None => encoder,
            WisdomSource::Saved => encoder.with_saved_wisdom()?,
            WisdomSource::File(path) => encoder.with_wisdom_file(&path)?,
        })
    }
}
