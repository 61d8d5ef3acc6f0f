//! The Reed-Solomon encoder: interleaved lanes, rate 1/2^r by the replication trick, passes
//! planned from the machine's cache budgets and run on the task-graph runtime.
//!
//! Layout: the codeword has 2^log_rows rows of `lanes` words, word `row·lanes + lane`; codeword
//! lane t encodes message lane t. The message is 2^(log_rows − r) rows (row-major) or `lanes`
//! contiguous blocks of that many words (lane-major).
//!
//! Aliasing: the separate-message entry points take `&[u64]` and `&mut [MaybeUninit<u64>]`, which
//! safe Rust cannot make overlap, so message and codeword are always distinct memory.

mod across_blocks;
mod builder;
mod exec;
mod lane_major;
mod layers;
mod plan_cache;
mod rows;
mod split;

use crate::domain::Domain;
use crate::plan::{Plan, PlanConfig, plan_for};
use crate::shape::{CommitParams, MessageLayout, Shape, ShapeError};
use crate::sink::{GuardedSink, RowSink, RowSinkError};
use crate::twiddle::Twiddles;
use crate::wisdom::{Wisdom, WisdomStatus};
pub use builder::{EncoderBuilder, SetupError};
use exec::{Message, Run};
use layers::Direction;
use ntt_kernels::Backend;
use ntt_runtime::ThreadPool;
use ntt_runtime::touch::populate;
use plan_cache::PlanCache;
use rows::SharedRows;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Why an encode was refused. Nothing is written when one of these is returned, except for
/// [`EncodeError::TaskPanicked`] and [`EncodeError::Sink`].
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The [`RowSink`] refused a block of rows (the first refusal; it was handed nothing after
    /// it). The codeword is complete; what the sink holds is its own affair.
    #[error("the row sink refused a block of rows: {0}")]
    Sink(RowSinkError),
    /// The buffers do not make a shape within the limits (see [`Shape`]).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The message is not the codeword's length / 2^r.
    #[error("message has {actual} words, expected {expected} (codeword words / 2^r)")]
    MessageLength {
        /// The codeword's words / 2^r.
        expected: usize,
        /// The message's words.
        actual: usize,
    },
    /// The domain's basis spans fewer rows than the codeword has.
    #[error("2^{log_rows} rows is more than the domain's basis of {basis_len} vectors spans")]
    DomainTooSmall {
        /// Log of the codeword's rows.
        log_rows: u32,
        /// Vectors in the domain's basis (it spans 2^this points).
        basis_len: usize,
    },
    /// A task of the encode panicked.
    #[error("a task panicked during the encode (the codeword is incomplete): {0}")]
    TaskPanicked(String),
    /// An in-place encode was asked for a lane-major message: in place, the message is the
    /// codeword's first rows, so it is row-major.
    #[error("an in-place encode takes a row-major message (`.layout(MessageLayout::Rows)`)")]
    InPlaceNeedsRows,
}

/// The sink's first refusal of an encode, as its error.
fn refusal(sink: Option<GuardedSink<'_>>) -> Result<(), EncodeError> {
    match sink.and_then(GuardedSink::into_refusal) {
        Some(e) => Err(EncodeError::Sink(e)),
        None => Ok(()),
    }
}

/// Fresh codeword bytes below which an encode does not fault its buffer in before the first
/// pass (16 pages: at most 16 page faults on a buffer's first use, which the passes take on the
/// worker that writes them).
const MIN_FIRST_TOUCH_BYTES: usize = 64 << 10;

/// Encodes interleaved lanes; cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct Encoder {
    pool: Arc<ThreadPool>,
    backend: Backend,
    config: PlanConfig,
    /// Measured settings for this machine; they fill what `config` leaves unforced.
    wisdom: Option<Arc<Wisdom>>,
    /// What became of the wisdom file the encoder was asked to read, if it was.
    wisdom_status: Option<WisdomStatus>,
    /// Where the codeword is evaluated, and the twiddles that follow from it.
    domain: Domain,
    twiddles: Arc<Twiddles>,
    /// The plans made so far, for this pool, backend, config and wisdom: a setter that changes
    /// one of them starts a fresh cache.
    plans: Arc<PlanCache>,
}

impl Encoder {
    /// Sets up an encoder: its pool and backend (see [`EncoderBuilder`]).
    pub fn builder() -> EncoderBuilder {
        EncoderBuilder::new()
    }

    /// An encoder running on `pool` with `backend`'s kernels and topology-derived plans.
    fn on(pool: Arc<ThreadPool>, backend: Backend) -> Self {
        Self {
            pool,
            backend,
            config: PlanConfig::default(),
            wisdom: None,
            wisdom_status: None,
            domain: Domain::polynomial(),
            twiddles: Arc::new(Twiddles::polynomial()),
            plans: Arc::default(),
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
        self.plans = Arc::default();
        self
    }

    /// Plans with measured settings for this machine (see [`crate::wisdom`]) wherever the
    /// [`PlanConfig`] leaves a setting unforced; `None` plans from the topology alone.
    pub fn with_wisdom(mut self, wisdom: Option<Arc<Wisdom>>) -> Self {
        self.wisdom = wisdom;
        self.wisdom_status = None;
        self.plans = Arc::default();
        self
    }

    /// Plans with the wisdom in the file at `path` (see [`EncoderBuilder::wisdom`], which
    /// calls it): wisdom of another machine is ignored with a warning.
    ///
    /// # Errors
    /// [`SetupError::Wisdom`] when the file is missing, unreadable or not wisdom.
    pub fn with_wisdom_file(self, path: &std::path::Path) -> Result<Self, SetupError> {
        let loaded = crate::wisdom::load_checked(path, self.pool.topology(), true)?;
        Ok(self.with_loaded_wisdom(loaded))
    }

    /// Plans with the saved wisdom (see [`EncoderBuilder::saved_wisdom`], which calls it).
    ///
    /// # Errors
    /// [`SetupError::Wisdom`] when the file there is unreadable or not wisdom.
    pub fn with_saved_wisdom(self) -> Result<Self, SetupError> {
        let loaded = match crate::wisdom::location() {
            Ok(path) => crate::wisdom::load_checked(&path, self.pool.topology(), false)?,
            Err(reason) => (None, WisdomStatus::Disabled { reason }),
        };
        Ok(self.with_loaded_wisdom(loaded))
    }

    fn with_loaded_wisdom(self, (wisdom, status): (Option<Wisdom>, WisdomStatus)) -> Self {
        let mut encoder = self.with_wisdom(wisdom.map(Arc::new));
        encoder.wisdom_status = Some(status);
        encoder
    }

    /// What became of the wisdom file read by [`EncoderBuilder::wisdom`] or
    /// [`EncoderBuilder::saved_wisdom`]: in use, absent, disabled, or ignored (measured on
    /// another machine). `None` when no file was read.
    pub fn wisdom_status(&self) -> Option<&WisdomStatus> {
        self.wisdom_status.as_ref()
    }

    /// The worker pool the encodes run on.
    pub fn pool(&self) -> &Arc<ThreadPool> {
        &self.pool
    }

    /// The kernel backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The planner values forced with [`with_config`](Self::with_config).
    pub fn config(&self) -> &PlanConfig {
        &self.config
    }

    /// The plan for `shape` and `layout`: made once, then taken from the cache.
    fn plan_inner(&self, shape: Shape, layout: Option<MessageLayout>) -> Arc<Plan> {
        self.plans
            .get_or_make(shape, layout, || self.fresh_plan(shape, layout))
    }

    /// The planner's answer for `shape` and `layout`, made now.
    fn fresh_plan(&self, shape: Shape, layout: Option<MessageLayout>) -> Plan {
        let workers = self.pool.num_workers();
        let wise = self.wisdom.as_ref().and_then(|w| w.config_for(shape, workers));
        let config = match wise {
            Some(learned) => self.config.or(learned),
            None => self.config.clone(),
        };
        plan_for(
            shape,
            layout,
            workers,
            self.pool.budgets(),
            self.backend.kind(),
            &config,
        )
    }

    /// The plan an encode of a separate message of this shape and layout would run.
    pub fn plan(&self, shape: Shape, layout: MessageLayout) -> Plan {
        Plan::clone(&self.plan_inner(shape, Some(layout)))
    }

    /// The plan [`Encoder::encode_in_place`] would run.
    pub fn plan_in_place(&self, shape: Shape) -> Plan {
        Plan::clone(&self.plan_inner(shape, None))
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

    /// Runs the transform (the encode, or its inverse) inline when it is too small to hand
    /// off, else as one job installed on the pool: its passes then follow each other on the
    /// workers without going back to the caller between them.
    ///
    /// `fresh` is the address and byte length of memory the transform writes that may never
    /// have been touched: the workers fault it in together first, inside the same job
    /// ([`ntt_runtime::touch`]). It must lie inside the transform's buffer.
    fn run(
        &self,
        run: &Run<'_>,
        direction: Direction,
        fresh: Option<(usize, usize)>,
    ) -> Result<(), EncodeError> {
        // A small buffer is left to fault in as the passes write it: one `mincore` and two
        // `getrusage` calls per encode cost more than the few page faults they could save, and
        // a buffer this small comes from the allocator's heap, almost always present already.
        let fresh = fresh.filter(|&(_, bytes)| bytes >= MIN_FIRST_TOUCH_BYTES);
        let passes = || {
            if let Some((address, bytes)) = fresh {
                // SAFETY: the caller's promise: the range lies inside the buffer the transform
                // is about to write, borrowed mutably for the call and not read before it is
                // written (a byte per page set to 0 changes nothing the transform reads).
                let _ = unsafe { populate(&self.pool, address as *mut u8, bytes) };
            }
            match direction {
                Direction::Forward => run.forward(&self.pool),
                Direction::Inverse => run.inverse(&self.pool),
            }
        };
        self.pool
            .with_work_estimate(run.work_estimate(), || self.pool.install(passes))
            .map_err(|p| EncodeError::TaskPanicked(p.to_string()))
    }

    /// Encodes in place: the row-major message is in `data[..data.len() >> log_inv_rate]`; on
    /// return `data` is the codeword. `sink` receives every finished row exactly once.
    ///
    /// ```
    /// use ntt_pcs::{CommitParams, MessageLayout};
    ///
    /// let encoder = ntt_pcs::encoder()?;
    /// let params = CommitParams::lanes(4).log_inv_rate(1).layout(MessageLayout::Rows);
    /// let mut data = vec![0u64; 4 << 6];
    /// data[..4 << 5].iter_mut().enumerate().for_each(|(i, w)| *w = i as u64);
    /// encoder.encode_in_place(&mut data, params, None)?;
    /// // Row 0 is the evaluation at the point 0, where only the constant term (message row 0)
    /// // survives.
    /// assert_eq!(data[..4], [0, 1, 2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Bad shapes (see [`EncodeError`]), or a lane-major `params`
    /// ([`EncodeError::InPlaceNeedsRows`]); nothing is written then.
    pub fn encode_in_place(
        &self,
        data: &mut [u64],
        params: CommitParams,
        sink: Option<&dyn RowSink>,
    ) -> Result<(), EncodeError> {
        if params.layout != MessageLayout::Rows {
            return Err(EncodeError::InPlaceNeedsRows);
        }
        let _span = tracing::info_span!("encode", words = data.len(), lanes = params.lanes).entered();
        let shape = self.domain_shape(data.len(), params.lanes, params.log_inv_rate)?;
        let plan = self.plan_inner(shape, None);
        // The rows past the message are written before they are read; where the caller never
        // touched them, the workers share their first touch, on huge pages while those come
        // fast (`touch.rs`, `pages.rs`).
        let tail = &mut data[shape.message_words()..];
        let fresh = Some((tail.as_mut_ptr() as usize, tail.len() * 8));
        // SAFETY: `data` is borrowed mutably for the whole encode and accessed only through the
        // view.
        let dst = unsafe { SharedRows::new(data.as_mut_ptr(), data.len()) };
        let sink = sink.map(GuardedSink::new);
        self.run(
            &Run {
                backend: self.backend,
                twiddles: &self.twiddles,
                plan: &plan,
                dst,
                msg: Message::InPlace,
                sink: sink.as_ref(),
            },
            Direction::Forward,
            fresh,
        )?;
        refusal(sink)
    }

    /// Encodes a separate message, laid out as `params` says, into `codeword` (which may be
    /// uninitialised; every word is written). `msg.len() << log_inv_rate` must equal
    /// `codeword.len()`. A codeword whose pages were never touched is faulted in by all the
    /// workers together before the first pass.
    ///
    /// # Errors
    /// Bad shapes or lengths (see [`EncodeError`]); nothing is written then.
    pub fn encode(
        &self,
        msg: &[u64],
        codeword: &mut [MaybeUninit<u64>],
        params: CommitParams,
        sink: Option<&dyn RowSink>,
    ) -> Result<(), EncodeError> {
        let _span = tracing::info_span!("encode", words = codeword.len(), lanes = params.lanes).entered();
        let fresh = Some((codeword.as_mut_ptr() as usize, codeword.len() * 8));
        self.encode_into(msg, codeword, params, sink, fresh)
    }

    /// As [`encode`](Self::encode), into a codeword whose pages are present already (the
    /// committer faults its buffers in itself, as a stage of its own).
    pub(crate) fn encode_faulted_in(
        &self,
        msg: &[u64],
        codeword: &mut [MaybeUninit<u64>],
        params: CommitParams,
        sink: Option<&dyn RowSink>,
    ) -> Result<(), EncodeError> {
        self.encode_into(msg, codeword, params, sink, None)
    }

    fn encode_into(
        &self,
        msg: &[u64],
        codeword: &mut [MaybeUninit<u64>],
        params: CommitParams,
        sink: Option<&dyn RowSink>,
        fresh: Option<(usize, usize)>,
    ) -> Result<(), EncodeError> {
        let CommitParams {
            lanes,
            log_inv_rate,
            layout,
            ..
        } = params;
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
        let sink = sink.map(GuardedSink::new);
        self.run(
            &Run {
                backend: self.backend,
                twiddles: &self.twiddles,
                plan: &plan,
                dst,
                msg,
                sink: sink.as_ref(),
            },
            Direction::Forward,
            fresh,
        )?;
        refusal(sink)
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
        self.run(
            &Run {
                backend: self.backend,
                twiddles: &self.twiddles,
                plan: &plan,
                dst,
                msg: Message::InPlace,
                sink: None,
            },
            Direction::Inverse,
            None,
        )
    }
}
