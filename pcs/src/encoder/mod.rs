//! The Reed-Solomon encoder: interleaved lanes, rate 1/2^r by the replication trick, passes
//! planned from the machine's cache budgets and run on the task-graph runtime.
//!
//! Layout: the codeword has 2^log_rows rows of `lanes` words, word `row·lanes + lane`; codeword
//! lane t encodes message lane t. The message is 2^(log_rows − r) rows (row-major) or `lanes`
//! contiguous blocks of that many words (lane-major).
//!
//! Aliasing: the separate-message entry points take `&[u64]` and `&mut [MaybeUninit<u64>]`, which
//! safe Rust cannot make overlap, so message and codeword are always distinct memory.

mod exec;
mod lanes;
mod layers;
mod narrow;
mod rows;

use crate::domain::Domain;
use crate::plan::{Plan, PlanConfig, plan_for};
use crate::shape::{MessageLayout, Shape, ShapeError};
use crate::sink::RowSink;
use crate::twiddle::Twiddles;
use crate::wisdom::Wisdom;
use exec::{Message, Run};
use ntt_kernels::Backend;
use ntt_runtime::ThreadPool;
use rows::SharedRows;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Why an encode was refused. Nothing is written when one of these is returned, except for
/// [`EncodeError::TaskPanicked`].
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The buffers do not make a shape within the limits (see [`crate::shape`]).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The message is not the codeword's length / 2^r.
    #[error("message has {actual} words, expected {expected} (codeword words / 2^r)")]
    MessageLength { expected: usize, actual: usize },
    /// The domain's basis spans fewer rows than the codeword has.
    #[error("2^{log_rows} rows is more than the domain's basis of {basis_len} vectors spans")]
    DomainTooSmall { log_rows: u32, basis_len: usize },
    /// A task of the encode panicked.
    #[error("a task panicked during the encode (the codeword is incomplete): {0}")]
    TaskPanicked(String),
}

/// Encodes interleaved lanes; cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct Encoder {
    pool: Arc<ThreadPool>,
    backend: Backend,
    config: PlanConfig,
    /// Measured settings for this machine; they fill what `config` leaves unforced.
    wisdom: Option<Arc<Wisdom>>,
    /// Where the codeword is evaluated, and the twiddles that follow from it.
    domain: Domain,
    twiddles: Arc<Twiddles>,
}

/// Why [`Encoder::from_env`] could not set up an encoder.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `NTT_BACKEND` names an unknown backend or one this CPU cannot run.
    #[error(transparent)]
    Backend(#[from] ntt_kernels::BackendError),
    /// The pool's size is out of range (or `NTT_THREADS` malformed), or a worker cannot start.
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] ntt_runtime::BuildError),
}

impl Encoder {
    /// An encoder on a new pool of `workers` workers (`None`: `NTT_THREADS` when set, else one
    /// per processing unit) with the backend `NTT_BACKEND` names (else the fastest this CPU has),
    /// planning from the topology: the one way the CLI, the benches and the examples set up the
    /// engine.
    ///
    /// # Errors
    /// [`SetupError`]: a backend this CPU cannot run, or a pool that cannot start.
    pub fn from_env(workers: Option<usize>) -> Result<Self, SetupError> {
        let backend = Backend::from_env()?;
        let pool = ntt_runtime::ThreadPoolBuilder::new()
            .num_threads(workers.unwrap_or(0))
            .build()?;
        Ok(Self::new(Arc::new(pool), backend))
    }

    /// An encoder running on `pool` with `backend`'s kernels and topology-derived plans.
    pub fn new(pool: Arc<ThreadPool>, backend: Backend) -> Self {
        Self {
            pool,
            backend,
            config: PlanConfig::default(),
            wisdom: None,
            domain: Domain::polynomial(),
            twiddles: Arc::new(Twiddles::polynomial()),
        }
    }

    /// Evaluates on `domain` (the polynomial basis, unshifted, unless set): only the twiddles
    /// change, so plans, kernels and speed stay the same.
    pub fn with_domain(mut self, domain: Domain) -> Self {
        self.twiddles = Arc::new(Twiddles::new(&domain));
        self.domain = domain;
        self
    }

    /// The evaluation domain.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// Forces planner values (tuning experiments, saved wisdom).
    pub fn with_config(mut self, config: PlanConfig) -> Self {
        self.config = config;
        self
    }

    /// Plans with measured settings for this machine (see [`crate::wisdom`]) wherever the
    /// [`PlanConfig`] leaves a setting unforced; `None` plans from the topology alone.
    pub fn with_wisdom(mut self, wisdom: Option<Arc<Wisdom>>) -> Self {
        self.wisdom = wisdom;
        self
    }

    pub fn pool(&self) -> &Arc<ThreadPool> {
        &self.pool
    }
    pub fn backend(&self) -> Backend {
        self.backend
    }
    pub fn config(&self) -> &PlanConfig {
        &self.config
    }

    fn plan_inner(&self, shape: Shape, layout: Option<MessageLayout>) -> Plan {
        let workers = self.pool.num_workers();
        let wise = self.wisdom.as_ref().and_then(|w| w.config_for(shape, workers));
        let config = match wise {
            Some(learned) => self.config.or(learned),
            None => self.config.clone(),
        };
        plan_for(shape, layout, workers, self.pool.budgets(), self.backend, &config)
    }

    /// The plan an encode of a separate message of this shape and layout would run.
    pub fn plan(&self, shape: Shape, layout: MessageLayout) -> Plan {
        self.plan_inner(shape, Some(layout))
    }

    /// The plan [`Encoder::encode_in_place`] would run.
    pub fn plan_in_place(&self, shape: Shape) -> Plan {
        self.plan_inner(shape, None)
    }

    /// The shape of a buffer, also checked against the domain's size.
    fn domain_shape(&self, len: usize, lanes: usize, log_inv_rate: u32) -> Result<Shape, EncodeError> {
        let shape = Shape::of_codeword(len, lanes, log_inv_rate)?;
        self.check_domain(shape)?;
        Ok(shape)
    }

    fn check_domain(&self, shape: Shape) -> Result<(), EncodeError> {
        if shape.log_rows() > self.domain.max_log_rows() {
            return Err(EncodeError::DomainTooSmall {
                log_rows: shape.log_rows(),
                basis_len: self.domain.basis().len(),
            });
        }
        Ok(())
    }

    fn run(&self, run: &Run<'_>) -> Result<(), EncodeError> {
        self.pool
            .with_work_estimate(run.work_estimate(), || run.forward(&self.pool))
            .map_err(|p| EncodeError::TaskPanicked(p.to_string()))
    }

    /// Encodes in place: the row-major message is in `data[..data.len() >> log_inv_rate]`; on
    /// return `data` is the codeword. `sink` receives every finished row exactly once.
    ///
    /// # Errors
    /// Bad shapes (see [`EncodeError`]); nothing is written then.
    pub fn encode_in_place(
        &self,
        data: &mut [u64],
        lanes: usize,
        log_inv_rate: u32,
        sink: Option<&dyn RowSink>,
    ) -> Result<(), EncodeError> {
        let shape = self.domain_shape(data.len(), lanes, log_inv_rate)?;
        let plan = self.plan_inner(shape, None);
        // SAFETY: `data` is borrowed mutably for the whole encode and accessed only through the
        // view.
        let dst = unsafe { SharedRows::new(data.as_mut_ptr(), data.len()) };
        self.run(&Run {
            backend: self.backend,
            twiddles: &self.twiddles,
            plan: &plan,
            dst,
            msg: Message::InPlace,
            sink,
        })
    }

    /// Encodes a separate message into `codeword` (which may be uninitialised; every word is
    /// written). `msg.len() << log_inv_rate` must equal `codeword.len()`.
    ///
    /// # Errors
    /// Bad shapes or lengths (see [`EncodeError`]); nothing is written then.
    pub fn encode(
        &self,
        msg: &[u64],
        layout: MessageLayout,
        codeword: &mut [MaybeUninit<u64>],
        lanes: usize,
        log_inv_rate: u32,
        sink: Option<&dyn RowSink>,
    ) -> Result<(), EncodeError> {
        let shape = self.domain_shape(codeword.len(), lanes, log_inv_rate)?;
        if msg.len() != shape.message_words() {
            return Err(EncodeError::MessageLength {
                expected: shape.message_words(),
                actual: msg.len(),
            });
        }
        let plan = self.plan_inner(shape, Some(layout));
        // SAFETY: `codeword` is borrowed mutably for the whole encode and accessed only through
        // the view, which writes every word before reading it; `MaybeUninit<u64>` has the
        // layout of `u64`.
        let dst = unsafe { SharedRows::new(codeword.as_mut_ptr().cast::<u64>(), codeword.len()) };
        let msg = match layout {
            MessageLayout::Rows => Message::Rows(msg),
            MessageLayout::Lanes => Message::Lanes(msg),
        };
        self.run(&Run {
            backend: self.backend,
            twiddles: &self.twiddles,
            plan: &plan,
            dst,
            msg,
            sink,
        })
    }

    /// The inverse of the full transform (interpolation): codeword rows in, novel-basis
    /// coefficients out, in place. `inverse(encode(m))` is `m` followed by zero rows.
    ///
    /// # Errors
    /// Bad shapes (see [`EncodeError`]); nothing is written then.
    pub fn inverse_in_place(&self, data: &mut [u64], lanes: usize) -> Result<(), EncodeError> {
        let shape = self.domain_shape(data.len(), lanes, 0)?;
        let plan = self.plan_inner(shape, None);
        // SAFETY: `data` is borrowed mutably for the whole call and accessed only through the
        // view.
        let dst = unsafe { SharedRows::new(data.as_mut_ptr(), data.len()) };
        Run {
            backend: self.backend,
            twiddles: &self.twiddles,
            plan: &plan,
            dst,
            msg: Message::InPlace,
            sink: None,
        }
        .inverse(&self.pool)
        .map_err(|p| EncodeError::TaskPanicked(p.to_string()))
    }
}
