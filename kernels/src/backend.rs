//! Row-kernel backends, detected once at run time.
//!
//! API contract (kept stable for the encoder): every kernel takes `&self` of a `Backend` whose
//! existence proves the CPU has the features it needs.

use crate::reference;
use serde::{Deserialize, Serialize};

/// The instruction-set families the row kernels are written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    Portable,
    Pclmul,
    Avx2,
    Avx512,
    Neon,
}

/// Asking for a backend that cannot run here.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BackendError {
    #[error("backend `{0:?}` needs CPU features this machine lacks")]
    Unsupported(BackendKind),
    #[error("unknown backend name `{0}` (expected portable, pclmul, avx2, avx512 or neon)")]
    UnknownName(String),
}

/// A row-kernel implementation whose CPU features were checked when it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backend {
    kind: BackendKind,
}

impl Backend {
    /// The portable backend; runs everywhere.
    pub const fn portable() -> Self {
        Self {
            kind: BackendKind::Portable,
        }
    }

    /// The fastest backend this CPU supports.
    pub fn detect() -> Self {
        Self::portable()
    }

    /// The backend named by `NTT_BACKEND` when set, otherwise [`Backend::detect`].
    pub fn from_env() -> Result<Self, BackendError> {
        match std::env::var("NTT_BACKEND") {
            Ok(name) if !name.is_empty() => Self::new(name.parse()?),
            _ => Ok(Self::detect()),
        }
    }

    /// A specific backend, or an error when this CPU lacks its features.
    pub fn new(kind: BackendKind) -> Result<Self, BackendError> {
        match kind {
            BackendKind::Portable => Ok(Self::portable()),
            other => Err(BackendError::Unsupported(other)),
        }
    }

    /// Every backend this CPU can run, portable first.
    pub fn available() -> Vec<Self> {
        vec![Self::portable()]
    }

    pub const fn kind(self) -> BackendKind {
        self.kind
    }

    /// Lanes per vector register (1 for portable); a hint for tile sizes.
    pub const fn vector_lanes(self) -> usize {
        1
    }

    /// `row[i] ← t·row[i]`.
    pub fn mul_row(self, row: &mut [u64], t: u64) {
        for x in row {
            *x = reference::mul_bitwise(*x, t);
        }
    }

    /// Forward butterfly over equal-length rows: `u ← u + t·v`, then `v ← v + u`.
    pub fn butterfly(self, u: &mut [u64], v: &mut [u64], t: u64) {
        assert_eq!(u.len(), v.len());
        reference::butterfly(u, v, t);
    }

    /// Inverse butterfly: `v ← v + u`, then `u ← u + t·v`.
    pub fn inverse_butterfly(self, u: &mut [u64], v: &mut [u64], t: u64) {
        assert_eq!(u.len(), v.len());
        for (x, y) in u.iter_mut().zip(v.iter_mut()) {
            *y ^= *x;
            *x ^= reference::mul_bitwise(t, *y);
        }
    }

    /// Two butterfly layers on a block of four equal segments q0..q3 (`block.len() % 4 == 0`):
    /// (q0,q2),(q1,q3) with `tw[0]`; then (q0,q1) with `tw[1]` and (q2,q3) with `tw[2]`.
    pub fn radix4(self, block: &mut [u64], tw: [u64; 3]) {
        assert_eq!(block.len() % 4, 0);
        let q = block.len() / 4;
        let (lo, hi) = block.split_at_mut(2 * q);
        {
            let (a, b) = lo.split_at_mut(q);
            let (c, d) = hi.split_at_mut(q);
            self.butterfly(a, c, tw[0]);
            self.butterfly(b, d, tw[0]);
        }
        let (a, b) = lo.split_at_mut(q);
        self.butterfly(a, b, tw[1]);
        let (c, d) = hi.split_at_mut(q);
        self.butterfly(c, d, tw[2]);
    }

    /// Three butterfly layers on a block of eight equal segments s0..s7 (`block.len() % 8 == 0`),
    /// twiddles in breadth-first order: layer ℓ pairs (i, i+4) with `tw[0]`; layer ℓ+1 pairs
    /// (0,2),(1,3) with `tw[1]` and (4,6),(5,7) with `tw[2]`; layer ℓ+2 pairs (0,1),(2,3),(4,5),(6,7)
    /// with `tw[3..7]`.
    pub fn radix8(self, block: &mut [u64], tw: [u64; 7]) {
        assert_eq!(block.len() % 8, 0);
        let e = block.len() / 8;
        let (lo, hi) = block.split_at_mut(4 * e);
        for i in 0..4 {
            self.butterfly(&mut lo[i * e..(i + 1) * e], &mut hi[i * e..(i + 1) * e], tw[0]);
        }
        self.radix4(lo, [tw[1], tw[3], tw[4]]);
        self.radix4(hi, [tw[2], tw[5], tw[6]]);
    }

    /// Copies `src` into `dst` (equal lengths), with non-temporal stores where the backend has
    /// them; ordered before the call returns.
    pub fn copy_streaming(self, dst: &mut [u64], src: &[u64]) {
        dst.copy_from_slice(src);
    }

    /// Transposes an 8×8 tile of words: `dst[j·dst_stride + i] = src[i·src_stride + j]` for
    /// i, j < 8.
    pub fn transpose8x8(self, src: &[u64], src_stride: usize, dst: &mut [u64], dst_stride: usize) {
        for i in 0..8 {
            for j in 0..8 {
                dst[j * dst_stride + i] = src[i * src_stride + j];
            }
        }
    }
}

impl core::str::FromStr for BackendKind {
    type Err = BackendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "portable" => Ok(Self::Portable),
            "pclmul" => Ok(Self::Pclmul),
            "avx2" => Ok(Self::Avx2),
            "avx512" => Ok(Self::Avx512),
            "neon" => Ok(Self::Neon),
            _ => Err(BackendError::UnknownName(s.to_owned())),
        }
    }
}
