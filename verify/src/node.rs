//! Chaining values of single nodes of the BLAKE3 tree (through `blake3::hazmat`).

use blake3::hazmat::{ChainingValue, HasherExt, Mode, merge_subtrees_non_root, merge_subtrees_root};

/// The chaining value of the subtree whose input starts at byte `offset` and holds `bytes`, one
/// whole node of the tree (or the clipped last node). `None` when no node could be that: no
/// bytes, an offset that is not a multiple of 1 KiB, or more bytes than a node starting there
/// holds (2^k KiB for an offset of an odd multiple of 2^k KiB; any number at offset 0).
pub fn subtree_cv(offset: u64, bytes: &[u8]) -> Option<ChainingValue> {
    let chunk = blake3::CHUNK_LEN as u64;
    if bytes.is_empty() || !offset.is_multiple_of(chunk) {
        return None;
    }
    let counter = offset / chunk;
    // `counter < 2^54`, so the largest node starting there is at most 2^53 KiB = 2^63 bytes.
    if counter != 0 && bytes.len() as u64 > (1u64 << counter.trailing_zeros()) * chunk {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.set_input_offset(offset);
    hasher.update(bytes);
    Some(hasher.finalize_non_root())
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
        let left = subtree_cv(0, &input[..2048]).expect("a node");
        let right = subtree_cv(2048, &input[2048..]).expect("a node");
        assert_eq!(root_hash(&left, &right), *blake3::hash(&input).as_bytes());
        let c0 = subtree_cv(0, &input[..1024]).expect("a node");
        let c1 = subtree_cv(1024, &input[1024..2048]).expect("a node");
        assert_eq!(parent_cv(&c0, &c1), left);
    }

    #[test]
    fn bytes_no_node_could_hold_give_none() {
        let input = [7u8; 3000];
        assert_eq!(subtree_cv(0, &[]), None);
        assert_eq!(subtree_cv(1, &input[..10]), None);
        assert_eq!(subtree_cv(1024, &input[..1025]), None);
        assert_eq!(subtree_cv(3072, &input[..2048]), None);
        assert!(subtree_cv(2048, &input[..2048]).is_some());
        assert!(subtree_cv(u64::MAX - 1023, &input[..1024]).is_some());
        assert_eq!(subtree_cv(u64::MAX - 1023, &input[..1025]), None);
    }
}
