//! How a codeword is cut between ranks: rank p of P = 2^k owns the contiguous rows
//! `[p·2^d, (p+1)·2^d)` with `d = log_rows − k`, which are the evaluations on the coset
//! `point(p·2^d) + span(β_0, …, β_{d−1})` of the domain.
//!
//! When `d ≥ m` (the message's log rows; P at most the inverse rate) the share is whole cosets:
//! the message encoded at rate 1/2^(d−m) on that coset. When `d < m` the share is part of one
//! coset, and there the basis polynomials of the high message rows are constants (see
//! [`crate::fold`]): the message folds to 2^d rows, encoded at rate 1. Either way a rank needs no
//! other rank's data, and its share is one contiguous byte range of the codeword.
//!
//! For the chunk tree a share must also be whole 1 KiB chunks, so that it hashes into whole
//! nodes of the codeword's BLAKE3 tree. A row tree needs nothing more: `2^d` aligned rows are a
//! subtree of it whatever their size.

use ntt_pcs::{Domain, Scheme, Shape};

/// Why a codeword cannot be split between this many ranks.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SplitError {
    /// Ranks must be a power of two: each owns an aligned power-of-two block of rows.
    #[error("{ranks} ranks: the rank count must be a power of two (1, 2, 4, …)")]
    RanksNotPowerOfTwo {
        /// The rank count.
        ranks: usize,
    },
    /// More ranks than codeword rows.
    #[error("{ranks} ranks for a codeword of {rows} rows: at most one rank per row")]
    MoreRanksThanRows {
        /// The rank count.
        ranks: usize,
        /// The codeword's rows.
        rows: u64,
    },
    /// A share that is not a whole number of 1 KiB BLAKE3 chunks cannot be hashed on its own
    /// into the chunk tree.
    #[error(
        "a shape too small to split: {ranks} ranks would own {share_bytes} bytes each, not a \
         multiple of the 1024-byte BLAKE3 chunk (use fewer ranks or a larger witness)"
    )]
    ShareNotChunkAligned {
        /// The rank count.
        ranks: usize,
        /// Bytes of each rank's share.
        share_bytes: u64,
    },
    /// The domain's basis spans fewer rows than the codeword has.
    #[error("2^{log_rows} rows is more than the domain's basis of {basis_len} vectors spans")]
    DomainTooSmall {
        /// Log of the codeword's rows.
        log_rows: u32,
        /// Vectors in the basis.
        basis_len: usize,
    },
}

/// One rank's part of a codeword (a valid split: checked once, trusted after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    shape: Shape,
    log_ranks: u32,
    rank: usize,
}

impl Split {
    /// Rank `rank` of `ranks` committing to a codeword of `shape` on `domain` with `scheme`'s
    /// tree.
    ///
    /// # Errors
    /// A [`SplitError`] when the ranks are not a power of two, outnumber the rows, would own
    /// shares that are not whole leaves of the tree (1 KiB chunks in the chunk tree), or the domain is too small for
    /// the codeword.
    pub fn new(
        shape: Shape,
        ranks: usize,
        rank: usize,
        domain: &Domain,
        scheme: Scheme,
    ) -> Result<Self, SplitError> {
        assert!(rank < ranks, "rank {rank} of {ranks}");
        if !ranks.is_power_of_two() {
            return Err(SplitError::RanksNotPowerOfTwo { ranks });
        }
        let log_ranks = ranks.trailing_zeros();
        if log_ranks > shape.log_rows() {
            return Err(SplitError::MoreRanksThanRows {
                ranks,
                rows: 1u64 << shape.log_rows(),
            });
        }
        if shape.log_rows() > domain.max_log_rows() {
            return Err(SplitError::DomainTooSmall {
                log_rows: shape.log_rows(),
                basis_len: domain.basis().len(),
            });
        }
        let split = Self {
            shape,
            log_ranks,
            rank,
        };
        let row_bytes = shape.lanes() as u64 * 8;
        if ranks > 1 && !split.share_bytes().is_multiple_of(scheme.leaf_bytes(row_bytes)) {
            return Err(SplitError::ShareNotChunkAligned {
                ranks,
                share_bytes: split.share_bytes(),
            });
        }
        Ok(split)
    }

    /// The whole codeword's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        1 << self.log_ranks
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Log of the rows each rank owns (`d`).
    pub fn log_share_rows(&self) -> u32 {
        self.shape.log_rows() - self.log_ranks
    }

    /// The first codeword row this rank owns.
    pub fn first_row(&self) -> u64 {
        (self.rank as u64) << self.log_share_rows()
    }

    /// Words of each share.
    pub fn share_words(&self) -> usize {
        self.shape.lanes() << self.log_share_rows()
    }

    /// Bytes of each share.
    pub fn share_bytes(&self) -> u64 {
        self.share_words() as u64 * 8
    }

    /// Codeword bytes before this rank's share.
    pub fn share_offset(&self) -> u64 {
        self.rank as u64 * self.share_bytes()
    }

    /// Log of the rows of the message this rank encodes: the whole message (`m`) when its share
    /// is whole cosets, else the share's `d` rows the message folds to.
    pub fn log_share_message_rows(&self) -> u32 {
        self.shape.log_message_rows().min(self.log_share_rows())
    }

    /// The rate this rank encodes at: `d − m` when the share is whole cosets, else 0.
    pub fn share_log_inv_rate(&self) -> u32 {
        self.log_share_rows() - self.log_share_message_rows()
    }

    /// How many times the message halves before this rank encodes it (`m − d`, or 0).
    pub fn log_fold(&self) -> u32 {
        self.shape.log_message_rows() - self.log_share_message_rows()
    }

    /// The share's own domain: the same basis, shifted to the point of its first row.
    pub fn share_domain(&self, domain: &Domain) -> Domain {
        Domain::new(domain.basis().clone()).with_shift(domain.point(self.first_row()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::HashKind;

    #[test]
    fn refusals_name_the_problem() {
        let shape = Shape::new(10, 4, 2).unwrap();
        let poly = Domain::polynomial();
        assert_eq!(
            Split::new(shape, 3, 0, &poly, Scheme::chunks()),
            Err(SplitError::RanksNotPowerOfTwo { ranks: 3 })
        );
        assert_eq!(
            Split::new(shape, 2048, 0, &poly, Scheme::chunks()),
            Err(SplitError::MoreRanksThanRows {
                ranks: 2048,
                rows: 1024
            })
        );
        // 4 lanes × 2^10 rows = 32 KiB: 64 ranks would own 512 bytes each.
        assert_eq!(
            Split::new(shape, 64, 0, &poly, Scheme::chunks()),
            Err(SplitError::ShareNotChunkAligned {
                ranks: 64,
                share_bytes: 512
            })
        );
        let short = Domain::new(ntt_pcs::Basis::custom(vec![1, 2, 4]).unwrap());
        assert!(matches!(
            Split::new(shape, 2, 0, &short, Scheme::chunks()),
            Err(SplitError::DomainTooSmall { .. })
        ));
        // A row tree takes shares of any size, down to one row each.
        assert!(Split::new(shape, 1024, 0, &poly, Scheme::rows(HashKind::Keccak, 0).unwrap()).is_ok());
        // One rank takes any shape, even one smaller than a chunk.
        assert!(Split::new(Shape::new(1, 1, 1).unwrap(), 1, 0, &poly, Scheme::chunks()).is_ok());
    }

    #[test]
    fn shares_are_cosets_or_folds() {
        let shape = Shape::new(12, 3, 2).unwrap(); // m = 10
        let poly = Domain::polynomial();
        let s = Split::new(shape, 4, 3, &poly, Scheme::chunks()).unwrap();
        assert_eq!(
            (
                s.log_share_rows(),
                s.first_row(),
                s.share_log_inv_rate(),
                s.log_fold()
            ),
            (10, 3 << 10, 0, 0)
        );
        let s = Split::new(shape, 2, 1, &poly, Scheme::chunks()).unwrap();
        assert_eq!((s.share_log_inv_rate(), s.log_fold()), (1, 0));
        let s = Split::new(shape, 16, 5, &poly, Scheme::chunks()).unwrap();
        assert_eq!(
            (s.log_share_rows(), s.share_log_inv_rate(), s.log_fold()),
            (8, 0, 2)
        );
        assert_eq!(s.share_offset(), (5 * 3 * 8) << 8);
        assert_eq!(s.share_domain(&poly).shift(), 5 << 8);
    }
}
