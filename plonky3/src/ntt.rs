//! [`EngineNtt`]: the engine's encoder behind Plonky3's `AdditiveNtt<Poly64>`.

use crate::merkle::FusedLeaves;
use crate::words::{as_uninit_words, as_words, as_words_mut};
use ntt_kernels::Backend;
use ntt_pcs::{CommitParams, Domain, EncodeError, Encoder, MessageLayout, RowSink, SetupError};
use ntt_runtime::{PinPolicy, ThreadPool};
use p3_binary_dft::AdditiveNtt;
use p3_binary_field::Poly64;
use p3_matrix::Matrix;
use p3_matrix::dense::{RowMajorMatrix, RowMajorMatrixView};
use std::sync::Arc;
use std::time::Duration;

/// How long [`EngineNtt::with_workers`]'s idle workers keep looking for the next call before
/// they park. A prover's NTT calls come a few milliseconds apart (Plonky3 hashes and runs
/// sumcheck between them); waking parked workers costs each call 25-50 µs on a virtual
/// machine, and the caches they return to may have served another tenant meanwhile. Measured
/// inside WHIR at 2^18 on 2 workers, the engine's encode time fell 5.5% (2.20 → 2.08 ms,
/// medians of 15 interleaved runs) with 20 ms, and Plonky3's own times beside it did not move:
/// the spinning workers yield their CPU on every look. Yielding does not help a thread on an SMT
/// sibling of a spinning worker's core, which shares the core's issue slots (not measured here:
/// the guests had one thread per core); where Plonky3's hashing runs on such siblings, measure
/// with `NTT_IDLE_SPIN_US=0` against the default.
pub const IDLE_SPIN: Duration = Duration::from_millis(20);

/// Plonky3's additive NTT over `Poly64`, run by the engine: Plonky3's domain (the Cantor basis,
/// shifted by the coset's shift), novel-basis coefficients, natural order, so every output equals
/// `p3_binary_dft::LchNtt<Poly64>`'s word for word.
///
/// A `Poly64` column is one engine lane: a matrix of width `w` is `w` interleaved lanes, encoded
/// in place (the zero-padded forms by the replication trick, which skips the zero tail's work).
/// The engine runs on its own [`ThreadPool`]; see the crate documentation for sharing the cores
/// with Plonky3's rayon pool.
#[derive(Clone, Debug)]
pub struct EngineNtt {
    /// Encodes on the unshifted Cantor basis; a shifted call derives its own from it.
    encoder: Encoder,
    /// Row digests of the codewords it encodes, for a `MerkleMmcs` attached to it (shared by
    /// the clones, which the Mmcs and a prover's domain each hold).
    fused: Arc<FusedLeaves>,
}

impl EngineNtt {
    /// Runs on `pool` with `backend`'s kernels.
    pub fn new(pool: Arc<ThreadPool>, backend: Backend) -> Self {
        let encoder = Encoder::builder()
            .pool(pool)
            .backend(backend)
            .build()
            .expect("an encoder on a given pool and backend always sets up");
        Self::from_encoder(encoder)
    }

    /// A pool of `workers` workers (0: `NTT_THREADS`, else one per core) and the best kernels of
    /// this CPU, pinned one per core unless another pool of this process already pins workers
    /// ([`ntt_runtime::pinned_cpus`]): two pinned pools would stack on the same cores. Plonky3's
    /// rayon threads never pin, so they run wherever the engine leaves room; measured inside WHIR
    /// at 2 workers, pinned engine workers encode about 1.3× faster than unpinned ones, which the
    /// OS kept placing beside a rayon thread. Idle workers look for the next call for
    /// [`IDLE_SPIN`] before they park (`NTT_IDLE_SPIN_US` overrides it).
    ///
    /// # Panics
    /// If the pool cannot be started (more than [`ntt_runtime::MAX_WORKERS`] workers, the OS
    /// refuses threads, or `NTT_THREADS` is malformed); [`EngineNtt::try_with_workers`] returns
    /// the error instead.
    pub fn with_workers(workers: usize) -> Self {
        Self::try_with_workers(workers).expect("start the engine's worker threads")
    }

    /// As [`EngineNtt::with_workers`], for a prover that sizes its pool from configuration.
    ///
    /// ```
    /// use ntt_plonky3::EngineNtt;
    ///
    /// assert_eq!(EngineNtt::try_with_workers(1)?.encoder().pool().num_workers(), 1);
    /// assert!(EngineNtt::try_with_workers(100_000).is_err());
    /// # Ok::<(), ntt_pcs::SetupError>(())
    /// ```
    ///
    /// # Errors
    /// [`SetupError::Pool`] when the pool cannot be started: more than
    /// [`ntt_runtime::MAX_WORKERS`] workers, the OS refuses threads, or `NTT_THREADS` (for 0) or
    /// `NTT_PIN` or `NTT_IDLE_SPIN_US` is malformed.
    pub fn try_with_workers(workers: usize) -> Result<Self, SetupError> {
        let builder = Encoder::builder()
            .workers(workers)
            .thread_name(|i| format!("ntt-plonky3-{i}"))
            .idle_spin(IDLE_SPIN)
            .backend(Backend::detect());
        let builder = if ntt_runtime::pinned_cpus().is_empty() {
            builder
        } else {
            builder.pin(PinPolicy::None)
        };
        Ok(Self::from_encoder(builder.build()?))
    }

    /// Wraps a configured encoder (its plan settings and wisdom kept; its domain replaced by
    /// Plonky3's).
    pub fn from_encoder(encoder: Encoder) -> Self {
        Self {
            encoder: encoder.with_domain(Domain::cantor()),
            fused: Arc::default(),
        }
    }

    /// Plans with the wisdom (settings `ntt tune --save` measured best on this machine) in the
    /// file at `path`; see [`ntt_pcs::EncoderBuilder::wisdom`]. Wisdom changes plans only, never
    /// an output. Wisdom measured on another machine is ignored with a `tracing` warning.
    ///
    /// ```no_run
    /// use ntt_plonky3::EngineNtt;
    ///
    /// let dft = EngineNtt::try_with_workers(2)?.with_wisdom_file("wisdom.json")?;
    /// # Ok::<(), ntt_pcs::SetupError>(())
    /// ```
    ///
    /// # Errors
    /// [`SetupError::Wisdom`] when the file is missing, unreadable or not wisdom.
    pub fn with_wisdom_file(self, path: impl AsRef<std::path::Path>) -> Result<Self, SetupError> {
        Ok(Self {
            encoder: self.encoder.with_wisdom_file(path.as_ref())?,
            fused: self.fused,
        })
    }

    /// As [`EngineNtt::with_wisdom_file`], from the file `ntt tune --save` writes (`NTT_WISDOM`,
    /// else the configuration directory; see [`ntt_pcs::EncoderBuilder::saved_wisdom`]): none
    /// there plans without wisdom. Without this call (or [`EngineNtt::with_wisdom_file`]) the
    /// engine reads no wisdom.
    ///
    /// # Errors
    /// [`SetupError::Wisdom`] when the file there is unreadable or not wisdom.
    pub fn with_saved_wisdom(self) -> Result<Self, SetupError> {
        Ok(Self {
            encoder: self.encoder.with_saved_wisdom()?,
            fused: self.fused,
        })
    }

    /// The hand-over of row digests to an attached `MerkleMmcs`.
    pub(crate) fn fused_leaves(&self) -> &Arc<FusedLeaves> {
        &self.fused
    }

    /// Encodes `values` (rows of `width`) in place with `encoder`, and hands the row digests
    /// over when a `MerkleMmcs` is attached.
    fn encode_in_place_hashing(
        &self,
        encoder: &Encoder,
        values: &mut [Poly64],
        width: usize,
        log_inv_rate: u32,
    ) {
        let sink = self.fused.sink(values.len(), width);
        done(encoder.encode_in_place(
            as_words_mut(values),
            rows(width, log_inv_rate),
            sink.as_ref().map(|s| s as &dyn RowSink),
        ));
        if let Some(sink) = sink {
            self.fused.hand_over(sink, values);
        }
    }

    /// The encoder on Plonky3's domain.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// The encoder for the coset `shift + S_l`.
    fn shifted(&self, shift: Poly64) -> std::borrow::Cow<'_, Encoder> {
        if shift == Poly64::new(0) {
            std::borrow::Cow::Borrowed(&self.encoder)
        } else {
            std::borrow::Cow::Owned(
                self.encoder
                    .clone()
                    .with_domain(Domain::cantor().with_shift(shift.to_bits())),
            )
        }
    }
}

impl Default for EngineNtt {
    /// [`EngineNtt::with_workers`]`(0)`.
    fn default() -> Self {
        Self::with_workers(0)
    }
}

/// `log2(height)` of a matrix, with the trait's documented panics.
fn log_height(height: usize) -> usize {
    assert!(
        height.is_power_of_two(),
        "matrix height {height} is not a power of two"
    );
    height.trailing_zeros() as usize
}

/// The outcome of an encode whose shape the caller has already checked: the only error left is
/// a panic inside a worker, which is passed on as one.
fn done(result: Result<(), EncodeError>) {
    if let Err(e) = result {
        panic!("the engine's transform failed: {e}");
    }
}

/// Whether there is nothing to transform (no columns): the matrix is returned as it is.
fn empty(mat: &RowMajorMatrix<Poly64>) -> bool {
    mat.width() == 0
}

impl AdditiveNtt<Poly64> for EngineNtt {
    fn shifted_ntt_batch(&self, mut mat: RowMajorMatrix<Poly64>, shift: Poly64) -> RowMajorMatrix<Poly64> {
        if empty(&mat) {
            return mat;
        }
        log_height(mat.height());
        let width = mat.width();
        done(
            self.shifted(shift)
                .encode_in_place(as_words_mut(&mut mat.values), rows(width, 0), None),
        );
        mat
    }

    fn shifted_intt_batch(&self, mut mat: RowMajorMatrix<Poly64>, shift: Poly64) -> RowMajorMatrix<Poly64> {
        if empty(&mat) {
            return mat;
        }
        log_height(mat.height());
        let width = mat.width();
        done(
            self.shifted(shift)
                .inverse_in_place(as_words_mut(&mut mat.values), width),
        );
        mat
    }

    fn ntt_batch(&self, mat: RowMajorMatrix<Poly64>) -> RowMajorMatrix<Poly64> {
        self.shifted_ntt_batch(mat, Poly64::new(0))
    }

    fn ntt_batch_padded(
        &self,
        mut mat: RowMajorMatrix<Poly64>,
        log_inv_rate: usize,
    ) -> RowMajorMatrix<Poly64> {
        if empty(&mat) {
            return mat;
        }
        let log_n = log_height(mat.height());
        assert!(log_inv_rate <= log_n, "padding exceeds matrix height");
        let width = mat.width();
        // The rows past the message are zero (the caller's promise): the encoder never reads
        // them, it replicates the message into them.
        self.encode_in_place_hashing(&self.encoder, &mut mat.values, width, log_inv_rate as u32);
        mat
    }

    fn ntt_batch_borrowed(
        &self,
        mat: RowMajorMatrixView<'_, Poly64>,
        log_inv_rate: usize,
    ) -> RowMajorMatrix<Poly64> {
        let width = mat.width();
        if width == 0 {
            return RowMajorMatrix::new(Vec::new(), 0);
        }
        log_height(mat.height());
        let len = u32::try_from(log_inv_rate)
            .ok()
            .and_then(|bits| mat.values.len().checked_shl(bits))
            .filter(|&padded| padded >> log_inv_rate == mat.values.len())
            .expect("codeword length overflows usize");
        // The codeword is written straight from the borrowed message: no zeroed copy first.
        let mut values: Vec<Poly64> = Vec::with_capacity(len);
        let sink = self.fused.sink(len, width);
        done(self.encoder.encode(
            as_words(mat.values),
            &mut as_uninit_words(values.spare_capacity_mut())[..len],
            rows(width, log_inv_rate as u32),
            sink.as_ref().map(|s| s as &dyn RowSink),
        ));
        // SAFETY: `encode` returned `Ok`, so it wrote all `len` words of the spare capacity.
        unsafe { values.set_len(len) };
        if let Some(sink) = sink {
            self.fused.hand_over(sink, &values);
        }
        RowMajorMatrix::new(values, width)
    }

    fn intt_batch(&self, mat: RowMajorMatrix<Poly64>) -> RowMajorMatrix<Poly64> {
        self.shifted_intt_batch(mat, Poly64::new(0))
    }

    fn lde_batch(&self, mat: RowMajorMatrix<Poly64>, added_bits: usize) -> RowMajorMatrix<Poly64> {
        self.shifted_lde_batch(mat, added_bits, Poly64::new(0))
    }

    fn shifted_lde_batch(
        &self,
        mat: RowMajorMatrix<Poly64>,
        added_bits: usize,
        shift: Poly64,
    ) -> RowMajorMatrix<Poly64> {
        let log_n = log_height(mat.height());
        assert!(log_n <= 64, "domain exceeds field dimension");
        if added_bits == 0 || empty(&mat) {
            return mat;
        }
        assert!(log_n + added_bits <= 64, "domain exceeds field dimension");
        let width = mat.width();
        let encoder = self.shifted(shift);
        let mut values = mat.values;
        done(encoder.inverse_in_place(as_words_mut(&mut values), width));
        let len = values
            .len()
            .checked_shl(added_bits as u32)
            .filter(|&padded| padded >> added_bits == values.len())
            .expect("codeword length overflows usize");
        // The coefficients, zero-padded, then encoded in place at rate 2^-added_bits.
        values.resize(len, Poly64::new(0));
        self.encode_in_place_hashing(&encoder, &mut values, width, added_bits as u32);
        RowMajorMatrix::new(values, width)
    }
}

/// A `Poly64` matrix is row-major: `width` lanes at rate 1/2^`log_inv_rate`.
fn rows(width: usize, log_inv_rate: u32) -> CommitParams {
    CommitParams::lanes(width)
        .log_inv_rate(log_inv_rate)
        .layout(MessageLayout::Rows)
}
