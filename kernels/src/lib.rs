//! GF(2^64) arithmetic and the SIMD row kernels of the additive NTT.
//!
//! The field is GF(2)\[x\] / (x^64 + x^4 + x^3 + x + 1); an element is a `u64` whose bit i is
//! the coefficient of x^i. [`Gf64`] is the scalar type. [`Backend`] is a row-kernel implementation
//! chosen once at run time ([`Backend::detect`], or [`Backend::from_env`] to honour
//! `NTT_BACKEND=portable|pclmul|avx2|avx512|neon`) and stored by the caller; every kernel works on
//! `u64` slices of any length and alignment.
//!
//! ```
//! use ntt_kernels::{Backend, Gf64};
//!
//! let backend = Backend::detect();
//! let (mut u, mut v) = (vec![1u64, 2, 3], vec![4u64, 5, 6]);
//! backend.butterfly(&mut u, &mut v, 7);
//! assert_eq!(Gf64(u[0]), Gf64(1) + Gf64(7) * Gf64(4));
//! assert_eq!(v[0], 4 ^ u[0]);
//! ```
//!
//! Each kernel is written once, generic over a small per-ISA vector trait (carry-less multiply, XOR,
//! shifts, loads and stores with masked or buffered tails), and
//! instantiated inside one `#[target_feature]` entry point per ISA. [`reference`](mod@reference) holds the
//! obviously correct scalar code every fast path is tested against.

#![deny(missing_docs)]

mod across;
mod backend;
mod backend_across;
mod columns;
mod dispatch;
mod dispatch_across;
mod field;
mod groups;
mod names;
pub mod reference;
mod rows;
mod scalar;
mod simd;
mod strided;
mod transpose;

pub use backend::{Backend, BackendError, BackendKind};
pub use columns::{ColumnStart, LONG_ROW_WORDS, UnknownColumnStart};
pub use field::Gf64;
pub use strided::StridedRows;
