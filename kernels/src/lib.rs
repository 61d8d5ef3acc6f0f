//! GF(2^64) arithmetic and the SIMD row kernels of the additive NTT.
//!
//! The field is GF(2)[x] / (x^64 + x^4 + x^3 + x + 1); an element is a `u64` whose bit i is
//! the coefficient of x^i. [`Gf64`] is the scalar type. [`Backend`] is a row-kernel implementation
//! chosen once at run time ([`Backend::detect`]) and stored by the caller; every kernel works on
//! slices of `u64` lanes of any length.

mod backend;
mod field;
pub mod reference;

pub use backend::{Backend, BackendError, BackendKind};
pub use field::Gf64;
