//! What every opening says about itself before its proof data, and the one check of a request
//! against it that both trees' verifiers share.

use crate::commitment::Commitment;
use crate::error::VerifyError;
use crate::scheme::{HashKind, Scheme};

/// The scheme an opening was made for, the codeword's shape it claims, and the rows it was
/// made for.
pub(crate) struct OpeningHeader<'a> {
    /// The scheme the opening carries (a chunk-tree opening carries none: it is
    /// [`Scheme::chunks`]), or the name of one that no commitment has (a row tree's cap height
    /// beyond [`MAX_CAP_HEIGHT`](crate::MAX_CAP_HEIGHT)).
    pub(crate) scheme: Result<Scheme, String>,
    pub(crate) log_rows: u32,
    pub(crate) lanes: u64,
    /// The rows the opening was made for, in the order they were asked.
    pub(crate) rows: &'a [u64],
}

impl OpeningHeader<'_> {
    /// The header of a chunk-tree opening.
    pub(crate) fn chunks(log_rows: u32, lanes: u64, rows: &[u64]) -> OpeningHeader<'_> {
        OpeningHeader {
            scheme: Ok(Scheme::chunks()),
            log_rows,
            lanes,
            rows,
        }
    }

    /// The header of a row-tree opening made with `hash` up to a cap of height `cap_height`.
    pub(crate) fn rows(
        hash: HashKind,
        cap_height: u32,
        log_rows: u32,
        lanes: u64,
        rows: &[u64],
    ) -> OpeningHeader<'_> {
        OpeningHeader {
            scheme: Scheme::rows(hash, cap_height)
                .map_err(|_| format!("{hash} row tree, cap height {cap_height}")),
            log_rows,
            lanes,
            rows,
        }
    }

    /// Checks a request for `rows` (any order, repeats allowed) of the codeword committed to by
    /// `commitment` against this opening: some rows, each in range, the commitment's scheme and
    /// shape, and the same rows as the opening was made for (as a set: the order and repeats of
    /// the request are the caller's). Returns the distinct rows in increasing order.
    ///
    /// # Errors
    /// [`VerifyError::NoRows`], [`VerifyError::RowOutOfRange`], [`VerifyError::SchemeMismatch`],
    /// [`VerifyError::ShapeMismatch`] or [`VerifyError::RowsMismatch`], in that order.
    pub(crate) fn check(&self, commitment: &Commitment, rows: &[usize]) -> Result<Vec<u64>, VerifyError> {
        let codeword = commitment.shape();
        let (log_rows, lanes, n_rows) = (codeword.log_rows(), codeword.lanes(), codeword.rows());
        if rows.is_empty() {
            return Err(VerifyError::NoRows);
        }
        if let Some(&row) = rows.iter().find(|&&row| row as u64 >= n_rows) {
            return Err(VerifyError::RowOutOfRange { row, rows: n_rows });
        }
        let scheme = commitment.scheme();
        if self.scheme.as_ref() != Ok(&scheme) {
            return Err(VerifyError::SchemeMismatch {
                committed: scheme.to_string(),
                opened: self.scheme.as_ref().map_or_else(Clone::clone, Scheme::to_string),
            });
        }
        if self.log_rows != log_rows || self.lanes != lanes as u64 {
            return Err(VerifyError::ShapeMismatch {
                log_rows,
                lanes,
                found_log_rows: self.log_rows,
                found_lanes: self.lanes,
            });
        }
        let distinct = distinct(rows.iter().map(|&r| r as u64));
        if distinct != self.distinct_rows() {
            return Err(VerifyError::RowsMismatch {
                found: self.rows.to_vec(),
            });
        }
        Ok(distinct)
    }

    /// The distinct rows the opening was made for, in increasing order.
    fn distinct_rows(&self) -> Vec<u64> {
        distinct(self.rows.iter().copied())
    }
}

/// The distinct values of `rows`, in increasing order.
fn distinct(rows: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut rows: Vec<u64> = rows.collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}
