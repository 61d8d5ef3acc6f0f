//! Row-kernel backends, detected once at run time.
//!
//! A [`Backend`] can only be made by the checked constructors ([`Backend::new`],
//! [`Backend::detect`], [`Backend::from_env`], [`Backend::available`], [`Backend::portable`]),
//! which query the CPU. So a `Backend` of kind `k` is proof that this CPU has `k`'s features: that
//! is the invariant every `unsafe` dispatch arm below cites. Kernels take `self` by value and
//! dispatch with one `match` per call into a `#[target_feature]` entry point holding the whole
//! loop.

use crate::columns::ColumnStart;
use crate::dispatch;
use crate::field::Gf64;
use crate::scalar;
use crate::simd;
use crate::strided::StridedRows;
use crate::transpose;
use serde::{Deserialize, Serialize};

/// The instruction-set families the row kernels are written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Any CPU: integer-multiply carry-less products, one word at a time.
    Portable,
    /// x86_64 with SSSE3 + PCLMULQDQ: 2 words per 128-bit register.
    Pclmul,
    /// x86_64 with AVX2 + VPCLMULQDQ: 4 words per 256-bit register.
    Avx2,
    /// x86_64 with AVX-512F/BW + VPCLMULQDQ: 8 words per 512-bit register.
    Avx512,
    /// aarch64 with NEON + PMULL (`aes`): 2 words per 128-bit register.
    Neon,
}

impl BackendKind {
    /// Every kind, portable first, then by increasing width.
    pub const ALL: [Self; 5] = [Self::Portable, Self::Pclmul, Self::Avx2, Self::Avx512, Self::Neon];

    /// The name `NTT_BACKEND` and [`core::str::FromStr`] accept.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Pclmul => "pclmul",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
            Self::Neon => "neon",
        }
    }

    /// Words per vector register of the kind's kernels (1 for portable).
    pub const fn vector_width(self) -> usize {
        match self {
            Self::Portable => 1,
            Self::Pclmul | Self::Neon => 2,
            Self::Avx2 => 4,
            Self::Avx512 => 8,
        }
    }

    /// Whether this CPU has the features the kind needs (a run-time query; cached by std).
    fn is_supported(self) -> bool {
        match self {
            Self::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Self::Pclmul => {
                std::arch::is_x86_feature_detected!("ssse3")
                    && std::arch::is_x86_feature_detected!("pclmulqdq")
            }
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("pclmulqdq")
                    && std::arch::is_x86_feature_detected!("vpclmulqdq")
            }
            #[cfg(target_arch = "x86_64")]
            Self::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("pclmulqdq")
                    && std::arch::is_x86_feature_detected!("vpclmulqdq")
            }
            #[cfg(target_arch = "aarch64")]
            Self::Neon => {
                std::arch::is_aarch64_feature_detected!("neon")
                    && std::arch::is_aarch64_feature_detected!("aes")
            }
            _ => false,
        }
    }
}

impl core::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for BackendKind {
    type Err = BackendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::by_name(Self::ALL, Self::name, s).ok_or_else(|| BackendError::UnknownName(s.to_owned()))
    }
}

/// Asking for a backend that cannot run here.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackendError {
    /// The CPU (or the architecture) lacks the kind's features.
    #[error("backend `{0}` needs CPU features this machine lacks")]
    Unsupported(BackendKind),
    /// The name is not one of the [`BackendKind`] names.
    #[error("unknown backend name `{0}` (expected portable, pclmul, avx2, avx512 or neon)")]
    UnknownName(String),
    /// `NTT_COLUMNS` is not one of the [`ColumnStart`] names.
    #[error(transparent)]
    UnknownColumnStart(#[from] crate::columns::UnknownColumnStart),
    /// The environment variable (`NTT_BACKEND`, `NTT_COLUMNS`) is set to bytes that are not
    /// UTF-8, so it names nothing.
    #[error("{0} is set but not valid UTF-8")]
    NotUtf8(&'static str),
}

/// The value of the variable `name` when set and not blank, trimmed: read as
/// `ntt_runtime::env::var` reads every `NTT_*` variable (this crate builds without the runtime).
fn env_value(name: &'static str) -> Result<Option<String>, BackendError> {
    match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(value.trim().to_owned())),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(BackendError::NotUtf8(name)),
    }
}

/// A row-kernel implementation whose CPU features were checked when it was made, and where its
/// kernels start a row's full columns ([`ColumnStart`]: this CPU's choice unless set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backend {
    /// Invariant: `kind.is_supported()` was true when this value was made.
    kind: BackendKind,
    columns: ColumnStart,
}

/// Calls entry point `$f` of the backend's ISA module in [`dispatch`].
macro_rules! dispatch {
    ($self:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $self.kind {
            // SAFETY: the portable entry points need no CPU features.
            BackendKind::Portable => unsafe { dispatch::portable::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Pclmul` backend exists only where its features were detected.
            BackendKind::Pclmul => unsafe { dispatch::pclmul::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx2` backend exists only where its features were detected.
            BackendKind::Avx2 => unsafe { dispatch::avx2::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx512` backend exists only where its features were detected.
            BackendKind::Avx512 => unsafe { dispatch::avx512::$f($($arg),*) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: a `Neon` backend exists only where its features were detected.
            BackendKind::Neon => unsafe { dispatch::neon::$f($($arg),*) },
            other => unreachable!("a `{other}` backend cannot be made on this architecture"),
        }
    };
}

impl Backend {
    /// The portable backend; runs everywhere.
    pub const fn portable() -> Self {
        Self {
            kind: BackendKind::Portable,
            // One word per vector: no partial columns, so the policy never applies.
            columns: ColumnStart::Line,
        }
    }

    /// The fastest backend this CPU supports.
    pub fn detect() -> Self {
        Self::available()
            .into_iter()
            .max_by_key(|b| b.vector_width())
            .unwrap_or_else(Self::portable)
    }

    /// The backend named by `NTT_BACKEND` when set, otherwise [`Backend::detect`]; its
    /// column start is the one `NTT_COLUMNS` names when set (see [`ColumnStart`]).
    ///
    /// # Errors
    /// An unknown name, a backend this CPU cannot run, or a value that is not UTF-8.
    pub fn from_env() -> Result<Self, BackendError> {
        let backend = match env_value("NTT_BACKEND")? {
            Some(name) => Self::new(name.parse()?)?,
            None => Self::detect(),
        };
        backend.with_env_column_start()
    }

    /// This backend with the column start `NTT_COLUMNS` names, when set (for a backend chosen
    /// by name rather than by [`Backend::from_env`]).
    ///
    /// # Errors
    /// [`BackendError::UnknownColumnStart`] for a name that is not a [`ColumnStart`],
    /// [`BackendError::NotUtf8`] for a value that is not UTF-8.
    pub fn with_env_column_start(self) -> Result<Self, BackendError> {
        match env_value("NTT_COLUMNS")? {
            Some(name) => Ok(self.with_column_start(name.parse()?)),
            None => Ok(self),
        }
    }

    /// A specific backend.
    ///
    /// # Errors
    /// [`BackendError::Unsupported`] when this CPU lacks its features.
    pub fn new(kind: BackendKind) -> Result<Self, BackendError> {
        if kind.is_supported() {
            // Only 64-byte vectors take a partial first column: the others have nothing to choose.
            let columns = if kind == BackendKind::Avx512 {
                ColumnStart::for_this_cpu()
            } else {
                ColumnStart::Line
            };
            Ok(Self { kind, columns })
        } else {
            Err(BackendError::Unsupported(kind))
        }
    }

    /// Every backend this CPU can run, portable first, then by increasing width.
    pub fn available() -> Vec<Self> {
        BackendKind::ALL
            .into_iter()
            .filter_map(|k| Self::new(k).ok())
            .collect()
    }

    /// Which implementation this is.
    pub const fn kind(self) -> BackendKind {
        self.kind
    }

    /// Where the kernels start a row's full columns.
    pub const fn column_start(self) -> ColumnStart {
        self.columns
    }

    /// The same kernels with their full columns starting where `columns` says (the bytes they
    /// write do not change; see [`ColumnStart`] for which is faster where).
    #[must_use]
    pub const fn with_column_start(self, columns: ColumnStart) -> Self {
        Self { columns, ..self }
    }

    /// The backend's name, as `NTT_BACKEND` spells it.
    pub const fn name(self) -> &'static str {
        self.kind.name()
    }

    /// Words per vector register (1 for portable); a hint for tile sizes.
    pub const fn vector_width(self) -> usize {
        self.kind.vector_width()
    }

    /// One field product with this backend's scalar carry-less multiplier (PCLMULQDQ on the x86
    /// backends, PMULL on NEON); faster than `Gf64 * Gf64` in a build without
    /// `-C target-feature=+pclmulqdq`, which has to use the integer-multiply path.
    pub fn mul(self, a: Gf64, b: Gf64) -> Gf64 {
        Gf64(match self.kind {
            BackendKind::Portable => scalar::mul(a.0, b.0),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: every x86 SIMD backend was checked for PCLMULQDQ when it was made.
            BackendKind::Pclmul | BackendKind::Avx2 | BackendKind::Avx512 => unsafe {
                scalar::mul_pclmul(a.0, b.0)
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: a `Neon` backend was checked for NEON and `aes` when it was made.
            BackendKind::Neon => unsafe { scalar::mul_pmull(a.0, b.0) },
            other => unreachable!("a `{other}` backend cannot be made on this architecture"),
        })
    }

    /// `row[i] ← t·row[i]`.
    pub fn mul_row(self, row: &mut [u64], t: u64) {
        dispatch!(self, mul_row(row, t, self.columns))
    }

    /// Forward butterfly over equal-length rows: `u ← u + t·v`, then `v ← v + u`.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn butterfly(self, u: &mut [u64], v: &mut [u64], t: u64) {
        assert_eq!(u.len(), v.len(), "butterfly rows differ in length");
        dispatch!(self, butterfly(u, v, t, self.columns))
    }

    /// Inverse butterfly: `v ← v + u`, then `u ← u + t·v` (undoes [`Backend::butterfly`]).
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn inverse_butterfly(self, u: &mut [u64], v: &mut [u64], t: u64) {
        assert_eq!(u.len(), v.len(), "butterfly rows differ in length");
        dispatch!(self, inverse_butterfly(u, v, t, self.columns))
    }

    /// Two butterfly layers on a block of four equal segments q0..q3 (`block.len() % 4 == 0`),
    /// all four held in registers: (q0,q2),(q1,q3) with `tw[0]`; then (q0,q1) with `tw[1]` and
    /// (q2,q3) with `tw[2]`.
    ///
    /// # Panics
    /// If `block.len()` is not a multiple of 4.
    pub fn radix4(self, block: &mut [u64], tw: [u64; 3]) {
        assert_eq!(block.len() % 4, 0, "radix-4 block is not 4 equal segments");
        dispatch!(self, radix4(block, tw, self.columns))
    }

    /// Undoes [`Backend::radix4`] with the same twiddles (inverse butterflies, layers reversed).
    ///
    /// # Panics
    /// If `block.len()` is not a multiple of 4.
    pub fn inverse_radix4(self, block: &mut [u64], tw: [u64; 3]) {
        assert_eq!(block.len() % 4, 0, "radix-4 block is not 4 equal segments");
        dispatch!(self, inverse_radix4(block, tw, self.columns))
    }

    /// Three butterfly layers on a block of eight equal segments s0..s7 (`block.len() % 8 == 0`),
    /// all eight held in registers across the twelve butterflies; twiddles in breadth-first
    /// order: layer ℓ pairs (i, i+4) with `tw[0]`; layer ℓ+1 pairs (0,2),(1,3) with `tw[1]` and
    /// (4,6),(5,7) with `tw[2]`; layer ℓ+2 pairs (0,1),(2,3),(4,5),(6,7) with `tw[3..7]`.
    ///
    /// # Panics
    /// If `block.len()` is not a multiple of 8.
    pub fn radix8(self, block: &mut [u64], tw: [u64; 7]) {
        assert_eq!(block.len() % 8, 0, "radix-8 block is not 8 equal segments");
        dispatch!(self, radix8(block, tw, self.columns))
    }

    /// Undoes [`Backend::radix8`] with the same twiddles (inverse butterflies, layers reversed).
    ///
    /// # Panics
    /// If `block.len()` is not a multiple of 8.
    pub fn inverse_radix8(self, block: &mut [u64], tw: [u64; 7]) {
        assert_eq!(block.len() % 8, 0, "radix-8 block is not 8 equal segments");
        dispatch!(self, inverse_radix8(block, tw, self.columns))
    }

    /// A radix-2, 4 or 8 group (`tw.len()` = 1, 3 or 7 twiddles, in the order of
    /// [`Backend::butterfly`], [`Backend::radix4`] and [`Backend::radix8`]) over rows that need
    /// not be contiguous: the group's R segments of `rows.seg_rows` rows each are read from
    /// `rows.src` and written to `rows.dst` (see [`StridedRows`]). The same bytes as gathering
    /// the rows into a contiguous block, running the contiguous group and scattering them, with
    /// the gather folded into the loads and the scatter into the stores; every backend has it.
    ///
    /// Short source rows (up to 4 KiB) are prefetched one row ahead where the ISA has a
    /// prefetch hint: strided rows that short start a fresh page each, which the hardware
    /// prefetchers do not follow.
    ///
    /// With `stream`, full columns are stored non-temporally where the backend has such stores
    /// and the destination stride is a whole number of vectors (otherwise plainly); call
    /// [`Backend::stream_fence`] before any other thread reads the rows.
    ///
    /// # Safety
    /// Every source row (`rows.rows(R)` of them, `rows.width` words each at `rows.src_stride`)
    /// is valid for reads, every destination row valid for writes, and a destination row
    /// overlaps no other source or destination row of the call except its own source row (in
    /// place is allowed). Nothing else accesses the destination rows during the call.
    ///
    /// # Panics
    /// If `tw.len()` is not 1, 3 or 7.
    pub unsafe fn radix_rows(self, rows: StridedRows, tw: &[u64], stream: bool) {
        assert!(
            matches!(tw.len(), 1 | 3 | 7),
            "a radix-2/4/8 group takes 1, 3 or 7 twiddles, not {}",
            tw.len()
        );
        if rows.width == 0 || rows.seg_rows == 0 {
            return;
        }
        dispatch!(self, radix_rows(rows, tw, stream, self.columns))
    }

    /// Copies `src` to `src.len()` words at `dst`, non-temporally where the backend has such
    /// stores when `stream` (the vector-aligned middle; plain stores at the ragged ends). Unlike
    /// [`Backend::copy_streaming`], `dst` may be uninitialised and there is no fence: call
    /// [`Backend::stream_fence`] before any other thread reads the words.
    ///
    /// # Safety
    /// `dst` is valid for `src.len()` writes, does not overlap `src`, and nothing else accesses
    /// those words during the call.
    pub unsafe fn copy_rows(self, dst: *mut u64, src: &[u64], stream: bool) {
        dispatch!(self, copy_rows(dst, src, stream))
    }

    /// Orders this thread's earlier non-temporal stores ([`Backend::radix_rows`] and
    /// [`Backend::copy_rows`] with `stream`) before its later stores: once per task, before the
    /// task's rows are handed to other threads. A no-op where the backend has no such stores.
    pub fn stream_fence(self) {
        dispatch!(self, stream_fence())
    }

    /// Asks for the cache lines of `words` to be brought into L2 ahead of their use (x86_64:
    /// `prefetcht1` per line; elsewhere nothing). For reads the hardware prefetchers miss, such
    /// as one short run from each of many lanes. A hint: it changes no memory.
    pub fn prefetch_l2(self, words: &[u64]) {
        for line in words.chunks(8) {
            simd::prefetch_line(line.as_ptr(), simd::CacheLevel::L2);
        }
    }

    /// Copies `src` into `dst` (equal lengths), with non-temporal stores where the backend has
    /// them (x86: the vector-aligned middle of `dst`; the ragged head and tail use plain
    /// stores); ordered (`sfence`) before the call returns.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn copy_streaming(self, dst: &mut [u64], src: &[u64]) {
        assert_eq!(dst.len(), src.len(), "copy_streaming lengths differ");
        dispatch!(self, copy_streaming(dst, src))
    }

    /// Transposes a `rows × cols` block of words: `dst[j·dst_stride + i] = src[i·src_stride + j]`
    /// for i < rows, j < cols, in 8×8 register tiles where the backend has them (AVX-512) and word
    /// by word at the ragged edges. This is the lane-major ↔ row-major gather: with `src` holding
    /// lane `i` at `src[i·src_stride ..]`, `dst` gets row `j` at `dst[j·dst_stride ..]`.
    ///
    /// # Panics
    /// If either block reaches past its slice, or `dst_stride < rows` (overlapping output rows).
    pub fn transpose(
        self,
        src: &[u64],
        src_stride: usize,
        dst: &mut [u64],
        dst_stride: usize,
        rows: usize,
        cols: usize,
    ) {
        if rows == 0 || cols == 0 {
            return;
        }
        assert!(
            dst_stride >= rows,
            "transpose: dst_stride {dst_stride} < rows {rows}"
        );
        assert!(
            src.len() >= (rows - 1) * src_stride + cols,
            "transpose: source block out of bounds"
        );
        assert!(
            dst.len() >= (cols - 1) * dst_stride + rows,
            "transpose: destination block out of bounds"
        );
        let (full_rows, full_cols) = (rows - rows % 8, cols - cols % 8);
        for i in (0..full_rows).step_by(8) {
            for j in (0..full_cols).step_by(8) {
                self.transpose8x8(
                    &src[i * src_stride + j..],
                    src_stride,
                    &mut dst[j * dst_stride + i..],
                    dst_stride,
                );
            }
        }
        // The edges: the last `cols % 8` columns of every row, then the last `rows % 8` rows.
        for i in 0..rows {
            let first_col = if i < full_rows { full_cols } else { 0 };
            for j in first_col..cols {
                dst[j * dst_stride + i] = src[i * src_stride + j];
            }
        }
    }

    /// Transposes an 8×8 tile of words: `dst[j·dst_stride + i] = src[i·src_stride + j]` for
    /// i, j < 8. In registers on AVX-512 and AVX2, word by word elsewhere.
    ///
    /// # Panics
    /// If either tile reaches past its slice, or `dst_stride < 8` (overlapping output rows).
    pub fn transpose8x8(self, src: &[u64], src_stride: usize, dst: &mut [u64], dst_stride: usize) {
        assert!(dst_stride >= 8, "transpose8x8: dst_stride {dst_stride} < 8");
        assert!(
            src.len() >= 7 * src_stride + 8,
            "transpose8x8: source tile out of bounds"
        );
        assert!(
            dst.len() >= 7 * dst_stride + 8,
            "transpose8x8: destination tile out of bounds"
        );
        match self.kind {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx512` backend exists only where AVX-512F was detected; both tiles
            // were bounds-checked above.
            BackendKind::Avx512 => unsafe {
                transpose::transpose8x8_avx512(src.as_ptr(), src_stride, dst.as_mut_ptr(), dst_stride)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx2` backend exists only where AVX2 was detected; both tiles were
            // bounds-checked above.
            BackendKind::Avx2 => unsafe {
                transpose::transpose8x8_avx2(src.as_ptr(), src_stride, dst.as_mut_ptr(), dst_stride)
            },
            _ => transpose::transpose8x8_scalar(src, src_stride, dst, dst_stride),
        }
    }
}
