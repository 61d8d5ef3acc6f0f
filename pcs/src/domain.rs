//! Where the transform evaluates: the coset `shift + span(β_0, β_1, …)` of an ordered
//! GF(2)-basis of the field.
//!
//! Codeword row `k` is the evaluation at `shift + ω_k`, with `ω_k = Σ_j bit_j(k)·β_j`; the
//! coefficients are in the Lin-Chung-Han novel basis `X_i = Π_{j ∈ bits(i)} ŝ_j` of that basis
//! (ŝ_j the subspace polynomial of `span(β_0..β_{j−1})`, normalised to 1 at β_j). Only the
//! twiddles depend on the domain; kernels and plans do not.
//!
//! Two bases are named: [`Basis::Polynomial`] (β_j = x^j, the default: ω_k is the integer k) and
//! [`Basis::Cantor`] (β_0 = 1, β_j² + β_j = β_{j−1}, as Plonky3's `p3_binary_dft::domain_point`
//! spells it for `Poly64`, so every ŝ_j is already normalised).

use std::sync::Arc;

/// Most basis vectors a domain can have: the field's dimension.
pub const MAX_BASIS_LEN: usize = 64;

/// The Cantor basis of GF(2^64) modulo x^64 + x^4 + x^3 + x + 1, lowest vector first.
///
/// `β_0 = 1` and `β_j² + β_j = β_{j−1}`; each quadratic has two roots (r and r + 1), and these are
/// the roots Plonky3 chose (the image of its tower field's Cantor basis, whose roots have their
/// lowest bit clear), so a codeword on this basis equals Plonky3's. The unit tests check the
/// recurrence, and the Plonky3 adapter's tests compare the table with Plonky3's own.
pub const CANTOR_BASIS: [u64; 64] = include!("cantor_basis.in");

/// An ordered GF(2)-basis of (a subspace of) GF(2^64).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Basis {
    /// β_j = x^j: the point of row k is the integer k.
    #[default]
    Polynomial,
    /// The Cantor basis ([`CANTOR_BASIS`]), Plonky3's additive NTT domain.
    Cantor,
    /// Any linearly independent vectors (see [`Basis::custom`]).
    Custom(Arc<[u64]>),
}

/// The name of a basis, as the commitment and the JSON reports record it.
pub use ntt_verify::Basis as BasisName;

/// Why a custom basis was refused.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BasisError {
    /// Too few or too many vectors (the count given).
    #[error("a basis needs 1 to {MAX_BASIS_LEN} vectors, got {0}")]
    Length(usize),
    /// A vector lies in the span of the ones before it.
    #[error("basis vector {index} is a sum of the vectors before it (the basis is linearly dependent)")]
    Dependent {
        /// The first dependent vector's position.
        index: usize,
    },
}

impl Basis {
    /// A basis of the given vectors, in order.
    ///
    /// # Errors
    /// None or more than 64 vectors, or vectors that are linearly dependent.
    pub fn custom(vectors: impl Into<Vec<u64>>) -> Result<Self, BasisError> {
        let vectors: Vec<u64> = vectors.into();
        if vectors.is_empty() || vectors.len() > MAX_BASIS_LEN {
            return Err(BasisError::Length(vectors.len()));
        }
        // Gaussian elimination over GF(2): `pivots[b]` is a reduced vector whose top bit is b.
        let mut pivots = [0u64; 64];
        for (index, &v) in vectors.iter().enumerate() {
            let mut r = v;
            while r != 0 {
                let top = 63 - r.leading_zeros() as usize;
                if pivots[top] == 0 {
                    pivots[top] = r;
                    break;
                }
                r ^= pivots[top];
            }
            if r == 0 {
                return Err(BasisError::Dependent { index });
            }
        }
        Ok(Self::Custom(vectors.into()))
    }

    /// The vectors β_0, β_1, … (64 for the named bases).
    pub fn vectors(&self) -> std::borrow::Cow<'_, [u64]> {
        match self {
            Self::Polynomial => std::borrow::Cow::Owned((0..64).map(|j| 1u64 << j).collect()),
            Self::Cantor => std::borrow::Cow::Borrowed(&CANTOR_BASIS),
            Self::Custom(v) => std::borrow::Cow::Borrowed(v),
        }
    }

    /// Number of vectors: a domain of this basis has at most 2^len rows.
    pub fn len(&self) -> usize {
        match self {
            Self::Polynomial | Self::Cantor => MAX_BASIS_LEN,
            Self::Custom(v) => v.len(),
        }
    }

    /// Never true (a basis has at least one vector); for symmetry with [`Basis::len`].
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name reports and commitments record.
    pub fn name(&self) -> BasisName {
        match self {
            Self::Polynomial => BasisName::Polynomial,
            Self::Cantor => BasisName::Cantor,
            Self::Custom(_) => BasisName::Custom,
        }
    }
}

impl core::str::FromStr for Basis {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "polynomial" => Ok(Self::Polynomial),
            "cantor" => Ok(Self::Cantor),
            other => Err(format!("unknown basis `{other}` (expected polynomial or cantor)")),
        }
    }
}

/// The evaluation domain: `shift + span(basis)`, its first 2^log_rows points for a codeword of
/// 2^log_rows rows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Domain {
    basis: Basis,
    shift: u64,
}

impl Domain {
    /// The subspace spanned by `basis` (no shift).
    pub fn new(basis: Basis) -> Self {
        Self { basis, shift: 0 }
    }

    /// The polynomial basis, unshifted: the default, and every codeword before domains existed.
    pub fn polynomial() -> Self {
        Self::new(Basis::Polynomial)
    }

    /// The Cantor basis, unshifted: Plonky3's `AdditiveNtt` domain.
    pub fn cantor() -> Self {
        Self::new(Basis::Cantor)
    }

    /// The same basis, moved to the coset `shift + span(basis)`.
    pub fn with_shift(mut self, shift: u64) -> Self {
        self.shift = shift;
        self
    }

    /// The basis whose span the codeword's rows are evaluated on.
    pub fn basis(&self) -> &Basis {
        &self.basis
    }

    /// The coset's shift (0: the span itself).
    pub fn shift(&self) -> u64 {
        self.shift
    }

    /// Largest codeword (log rows) the basis spans.
    pub fn max_log_rows(&self) -> u32 {
        self.basis.len() as u32
    }

    /// The point of codeword row `k`: `shift + Σ_j bit_j(k)·β_j` (`k` below 2^len).
    pub fn point(&self, k: u64) -> u64 {
        let vectors = self.basis.vectors();
        let mut acc = self.shift;
        let mut bits = k;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            acc ^= vectors[j];
            bits &= bits - 1;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_kernels::Gf64;

    /// `a²` in the field, for the recurrence checks.
    fn square(a: u64) -> u64 {
        (Gf64(a) * Gf64(a)).0
    }

    #[test]
    fn cantor_basis_satisfies_its_recurrence() {
        assert_eq!(CANTOR_BASIS[0], 1);
        for j in 1..64 {
            assert_eq!(
                square(CANTOR_BASIS[j]) ^ CANTOR_BASIS[j],
                CANTOR_BASIS[j - 1],
                "β_{j}"
            );
        }
        assert!(Basis::custom(CANTOR_BASIS.to_vec()).is_ok());
    }

    #[test]
    fn custom_bases_are_validated() {
        assert_eq!(Basis::custom(vec![]), Err(BasisError::Length(0)));
        assert_eq!(Basis::custom(vec![1; 65]), Err(BasisError::Length(65)));
        assert_eq!(
            Basis::custom(vec![3, 5, 6]),
            Err(BasisError::Dependent { index: 2 })
        );
        assert_eq!(Basis::custom(vec![0]), Err(BasisError::Dependent { index: 0 }));
        let b = Basis::custom(vec![3, 5, 9]).unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(b.name(), BasisName::Custom);
    }

    #[test]
    fn points_are_shifted_sums_of_basis_vectors() {
        let d = Domain::polynomial();
        assert_eq!(
            (0..8).map(|k| d.point(k)).collect::<Vec<_>>(),
            (0..8).collect::<Vec<_>>()
        );
        let d = Domain::cantor().with_shift(0x100);
        assert_eq!(d.point(0), 0x100);
        assert_eq!(d.point(0b101), 0x100 ^ CANTOR_BASIS[0] ^ CANTOR_BASIS[2]);
        assert_eq!("Cantor".parse::<Basis>(), Ok(Basis::Cantor));
        assert!("tower".parse::<Basis>().is_err());
    }
}
