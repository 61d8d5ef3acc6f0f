//! The row tree a prover keeps: every level's digests, from the leaves to the root.

use ntt_verify::row_hash::Digest;
use ntt_verify::{CodewordShape, RowOpening, Scheme, fold_to_cap};

/// Every level of a row tree (`levels[0]`: one leaf per row; the last: the root).
#[derive(Clone, Debug)]
pub(crate) struct RowTree {
    scheme: Scheme,
    shape: CodewordShape,
    levels: Vec<Vec<Digest>>,
}

impl RowTree {
    pub(crate) fn new(scheme: Scheme, shape: CodewordShape, levels: Vec<Vec<Digest>>) -> Self {
        debug_assert_eq!(levels.len() as u32, shape.log_rows() + 1);
        Self {
            scheme,
            shape,
            levels,
        }
    }

    /// Levels between the leaves and the cap.
    fn proof_levels(&self) -> u32 {
        let log_rows = self.shape.log_rows();
        log_rows - self.scheme.cap_height().min(log_rows)
    }

    /// The committed digests: the level `cap_height` below the root (the leaves at most).
    pub(crate) fn cap(&self) -> &[Digest] {
        &self.levels[self.proof_levels() as usize]
    }

    /// Bytes held by the digests.
    pub(crate) fn stored_bytes(&self) -> usize {
        self.levels.iter().map(|l| size_of_val(l.as_slice())).sum()
    }

    /// The opening of `rows` (in range, not empty) of `codeword`, the committed rows.
    pub(crate) fn open(&self, codeword: &[u64], rows: &[usize]) -> RowOpening {
        let lanes = self.shape.lanes();
        let mut distinct: Vec<u64> = rows.iter().map(|&r| r as u64).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut values = Vec::with_capacity(distinct.len() * lanes);
        for &row in &distinct {
            values.extend_from_slice(&codeword[row as usize * lanes..(row as usize + 1) * lanes]);
        }
        let leaves = distinct
            .iter()
            .map(|&r| (r, self.levels[0][r as usize]))
            .collect();
        let mut siblings = Vec::new();
        let reached = fold_to_cap(self.scheme.hash(), self.proof_levels(), leaves, |h, i| {
            let digest = self.levels[h as usize][i as usize];
            siblings.push(digest);
            Ok::<_, std::convert::Infallible>(digest)
        });
        debug_assert!(
            reached
                .is_ok_and(|nodes| nodes
                    .is_some_and(|nodes| nodes.iter().all(|&(i, d)| self.cap()[i as usize] == d))),
            "stored tree disagrees with its cap"
        );
        RowOpening::new(
            self.scheme,
            self.shape.log_rows(),
            lanes as u64,
            rows.iter().map(|&r| r as u64).collect(),
            values,
            siblings,
        )
    }
}
