//! Chaining values of single nodes of the BLAKE3 tree (through `blake3::hazmat`).

use blake3::hazmat::{ChainingValue, HasherExt, Mode, merge_subtrees_non_root, merge_subtrees_root};

/// The chaining value of the subtree whose input starts at byte `offset` (a multiple of 1 KiB)
/// and holds `bytes`, which must be one whole node of the tree (or the clipped last node).
pub fn subtree_cv(offset: u64, bytes: &[u8]) -> ChainingValue {
    let mut hasher = blake3::Hasher::new();
    hasher.set_input_offset(offset);
    hasher.update(bytes);
    hasher.finalize_non_root()
}

/// The chaining value of a non-root parent.
pub fn parent_cv(left: &ChainingValue, right: &ChainingValue) -> ChainingValue {
    merge_subtrees_non_root(left, right, Mode::Hash)
}

/// The root hash of a parent at the top of the tree.
pub fn root_hash(left: &ChainingValue, right: &ChainingValue) -> [u8; 32] {
    *merge_subtrees_root(left, right, Mode::Hash).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtrees_and_merges_reproduce_blake3() {
        let input: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
        let left = subtree_cv(0, &input[..2048]);
        let right = subtree_cv(2048, &input[2048..]);
        assert_eq!(root_hash(&left, &right), *blake3::hash(&input).as_bytes());
        let c0 = subtree_cv(0, &input[..1024]);
        let c1 = subtree_cv(1024, &input[1024..2048]);
        assert_eq!(parent_cv(&c0, &c1), left);
    }
}
