//! Where each matrix of a batch goes in Plonky3's binary tree, fixed by the heights alone: the
//! tallest are hashed into the leaves, shorter ones (on the `⌈max / 2^k⌉` ladder) injected at
//! the layer whose node count rounds up to the power of two their height rounds up to.

use std::cmp::Reverse;

/// Where each matrix of a batch goes, fixed by the heights alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerPlan {
    /// The matrices (indices into the batch, in batch order within a layer) whose rows are
    /// hashed into each layer; layer 0 holds the tallest.
    pub groups: Vec<Vec<usize>>,
    /// Nodes hashed at each layer; the layer is [`padded_len`] long.
    pub computed: Vec<usize>,
}

/// A layer of `raw` nodes as stored: padded to an even length unless it is the root.
pub const fn padded_len(raw: usize) -> usize {
    if raw <= 1 { raw } else { raw.div_ceil(2) * 2 }
}

/// `⌈log2 n⌉` (0 for n ≤ 1).
pub const fn log2_ceil(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Why a batch of heights makes no tree.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeightError {
    /// No matrix, or every matrix has no rows.
    Empty,
    /// `height` is not `⌈max_height / 2^k⌉` for any `k`.
    OffLadder {
        /// The height off the ladder.
        height: usize,
        /// The tallest matrix's height.
        max_height: usize,
    },
}

impl std::fmt::Display for HeightError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "all matrices have height 0"),
            Self::OffLadder { height, max_height } => write!(
                f,
                "matrix height {height} is not ⌈{max_height} / 2^k⌉ for any k (the tallest \
                 matrix has {max_height} rows)"
            ),
        }
    }
}

/// Plonky3's geometry gate: the tallest height, if every height sits on its ladder.
pub fn check_heights(heights: &[usize]) -> Result<usize, HeightError> {
    let max_height = heights
        .iter()
        .copied()
        .max()
        .filter(|&h| h > 0)
        .ok_or(HeightError::Empty)?;
    let log_max = log2_ceil(max_height);
    for &height in heights {
        let bits = log_max - log2_ceil(height);
        if height != ((max_height - 1) >> bits) + 1 {
            return Err(HeightError::OffLadder { height, max_height });
        }
    }
    Ok(max_height)
}

impl std::error::Error for HeightError {}

impl LayerPlan {
    /// The layers of a batch of these heights (checked with [`check_heights`]).
    pub fn new(heights: &[usize]) -> Self {
        let mut order: Vec<usize> = (0..heights.len()).collect();
        // Tallest first; a stable sort keeps batch order among equal heights, as Plonky3 does.
        order.sort_by_key(|&m| Reverse(heights[m]));
        let max_height = heights[order[0]];
        let mut rest = order.into_iter().peekable();
        let take = |rest: &mut std::iter::Peekable<std::vec::IntoIter<usize>>,
                    keep: &dyn Fn(usize) -> bool| {
            let mut group = Vec::new();
            while let Some(&m) = rest.peek() {
                if !keep(heights[m]) {
                    break;
                }
                group.push(m);
                rest.next();
            }
            group
        };
        let mut groups = vec![take(&mut rest, &|h| h == max_height)];
        let mut computed = vec![max_height];
        let mut len = padded_len(max_height);
        while len > 1 {
            let nodes = len / 2;
            let target = nodes.next_power_of_two();
            groups.push(take(&mut rest, &|h| h.next_power_of_two() == target));
            computed.push(nodes);
            len = padded_len(nodes);
        }
        Self { groups, computed }
    }

    /// Layers in the tree, the leaves and the root included.
    pub fn layers(&self) -> usize {
        self.computed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_on_the_ladder_are_accepted_and_others_refused() {
        assert_eq!(check_heights(&[8, 4, 2, 1]), Ok(8));
        assert_eq!(check_heights(&[17, 9, 5, 3, 2, 1]), Ok(17));
        assert_eq!(check_heights(&[6, 3]), Ok(6));
        assert_eq!(
            check_heights(&[6, 4]),
            Err(HeightError::OffLadder {
                height: 4,
                max_height: 6
            })
        );
        assert_eq!(check_heights(&[]), Err(HeightError::Empty));
        assert_eq!(check_heights(&[0]), Err(HeightError::Empty));
        assert!(check_heights(&[4, 0]).is_err());
    }

    #[test]
    fn plans_inject_shorter_matrices_where_their_height_lands() {
        let plan = LayerPlan::new(&[2, 8, 8, 4]);
        assert_eq!(plan.groups, vec![vec![1, 2], vec![3], vec![0], vec![]]);
        assert_eq!(plan.computed, vec![8, 4, 2, 1]);
        let odd = LayerPlan::new(&[13]);
        assert_eq!(odd.computed, vec![13, 7, 4, 2, 1]);
        assert_eq!(LayerPlan::new(&[1]).computed, vec![1]);
    }
}
