//! Every public function of the verifier, driven with arbitrary arguments: a clean `None` or
//! `Err` is fine, a panic, abort or hang is not. What holds of the results is checked too.

use ntt_verify::tree::{CHUNK_BYTES, ChunkSet, TreeShape, fold_root, parent_cv, root_hash, subtree_cv};
use ntt_verify::{CodewordShape, Commitment, Opening, verify};
use proptest::prelude::*;

/// Numbers near the edges as often as anywhere else.
fn edgy_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        0u64..4096,
        (0u32..64).prop_map(|k| 1u64 << k),
        (0u32..64, -2i64..=2).prop_map(|(k, d)| (1u64 << k).wrapping_add_signed(d)),
        (0u64..4).prop_map(|d| u64::MAX - d),
    ]
}

fn edgy_u32() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..70, any::<u32>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn tree_shapes(len in edgy_u64(), h in edgy_u32(), i in edgy_u64()) {
        let Some(shape) = TreeShape::new(len) else {
            prop_assert_eq!(len, 0);
            return Ok(());
        };
        prop_assert_eq!(shape.len(), len);
        prop_assert!(shape.top() <= 54);
        match shape.level_len(h) {
            Some(n) => prop_assert!(h <= shape.top() && n >= 1 && n <= shape.chunks()),
            None => prop_assert!(h > shape.top()),
        }
        if let Some((start, end)) = shape.node_bytes(h, i) {
            prop_assert!(start < end && end <= len, "({h}, {i}): {start}..{end} of {len}");
            prop_assert_eq!(start % CHUNK_BYTES, 0);
        }
        if let Some(promoted) = shape.is_promoted(h, i) {
            prop_assert!(h >= 1 && shape.node_bytes(h, i).is_some());
            // A promoted node's bytes are its left child's.
            if promoted {
                prop_assert_eq!(shape.node_bytes(h, i), shape.node_bytes(h - 1, 2 * i));
            }
        }
    }

    #[test]
    fn chunk_sets(
        row_bytes in edgy_u64(),
        rows in proptest::collection::vec(edgy_u64(), 0..6),
        len in edgy_u64(),
        probe in edgy_u64(),
    ) {
        let Some(set) = ChunkSet::of_rows(row_bytes, rows.iter().copied()) else {
            return Ok(());
        };
        let count = set.count();
        let listed: Vec<u64> = set.iter().take(64).collect();
        prop_assert!(listed.windows(2).all(|w| w[0] < w[1]));
        for (k, &c) in listed.iter().enumerate() {
            prop_assert_eq!(set.position(c), Some(k as u64));
        }
        if let Some(p) = set.position(probe) {
            prop_assert!(p < count);
        }
        if let Some(shape) = TreeShape::new(len)
            && let Some(bytes) = set.byte_len(&shape)
        {
            prop_assert!(bytes <= len);
            prop_assert!(bytes <= count.saturating_mul(CHUNK_BYTES));
        }
    }

    #[test]
    fn folds(
        len in edgy_u64(),
        nodes in proptest::collection::vec((edgy_u64(), any::<[u8; 32]>()), 0..6),
        sibling in any::<[u8; 32]>(),
    ) {
        let Some(shape) = TreeShape::new(len) else { return Ok(()) };
        let mut asked = 0u64;
        let root = fold_root(&shape, nodes.clone(), |h, i| {
            asked += 1;
            assert!(shape.node_bytes(h, i).is_some(), "asked for ({h}, {i}), not a node");
            Ok::<_, ()>(sibling)
        });
        let valid = shape.top() > 0
            && !nodes.is_empty()
            && nodes.windows(2).all(|w| w[0].0 < w[1].0)
            && nodes.last().is_some_and(|n| n.0 < shape.chunks());
        prop_assert_eq!(root.expect("the sibling source never fails").is_some(), valid);
        prop_assert!(asked <= 64 * nodes.len() as u64);
    }

    #[test]
    fn nodes(offset in edgy_u64(), bytes in proptest::collection::vec(any::<u8>(), 0..2100)) {
        if let Some(cv) = subtree_cv(offset, &bytes) {
            prop_assert!(!bytes.is_empty() && offset % CHUNK_BYTES == 0);
            let _ = (parent_cv(&cv, &cv), root_hash(&cv, &cv));
        }
    }

    #[test]
    fn proofs_decode_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(opening) = Opening::from_bytes(&bytes) {
            prop_assert_eq!(opening.to_bytes(), bytes);
        }
    }

    #[test]
    fn verify_never_panics(
        log_rows in 0u32..64,
        lanes in prop_oneof![1usize..80, any::<usize>()],
        asked in proptest::collection::vec(prop_oneof![0usize..64, any::<usize>()], 0..5),
        opening_log_rows in prop_oneof![Just(None), (0u32..64).prop_map(Some)],
        opening_lanes in prop_oneof![Just(None), any::<u64>().prop_map(Some)],
        claimed_rows in prop_oneof![Just(None), proptest::collection::vec(any::<u64>(), 0..5).prop_map(Some)],
        chunk_bytes in proptest::collection::vec(any::<u8>(), 0..3000),
        siblings in proptest::collection::vec(any::<[u8; 32]>(), 0..8),
        root in any::<[u8; 32]>(),
    ) {
        let Ok(shape) = CodewordShape::new(log_rows, lanes) else { return Ok(()) };
        let commitment = Commitment::new(root, shape);
        let opening = Opening::new(
            opening_log_rows.unwrap_or(log_rows),
            opening_lanes.unwrap_or(lanes as u64),
            claimed_rows.unwrap_or_else(|| asked.iter().map(|&r| r as u64).collect()),
            chunk_bytes,
            siblings,
        );
        if let Ok(rows) = verify(&commitment, &asked, &opening) {
            prop_assert_eq!(rows.len(), asked.len());
            prop_assert!(rows.iter().all(|r| r.len() == lanes));
        }
    }
}

#[test]
fn the_cases_the_report_named() {
    assert_eq!(TreeShape::new(0), None);
    let one_chunk = TreeShape::new(1000).expect("not empty");
    assert_eq!(
        fold_root(&one_chunk, vec![(0, [0; 32])], |_, _| Ok::<_, ()>([0; 32])),
        Ok(None)
    );
    let set = ChunkSet::of_rows(64, [0, 100]).expect("rows");
    assert_eq!(set.position(5), None);
    assert_eq!(set.position(u64::MAX), None);
    assert_eq!(ChunkSet::of_rows(0, [1]), None);
    assert_eq!(ChunkSet::of_rows(u64::MAX, [u64::MAX]), None);
    let shape = TreeShape::new(1 << 20).expect("not empty");
    assert_eq!(shape.level_len(64), None);
    assert_eq!(shape.node_bytes(60, u64::MAX), None);
}

#[test]
fn a_row_fold_bounds_its_levels_and_nodes() {
    use ntt_verify::{HashKind, MAX_LOG_ROWS, fold_to_cap};
    // A sibling supply that gives out after a few calls: an unbounded walk ends with its error
    // instead of the `None` a refused fold returns at once.
    let fold = |levels: u32, nodes: Vec<(u64, [u8; 32])>| {
        let mut calls = 0;
        fold_to_cap(HashKind::Blake3, levels, nodes, |_, _| {
            calls += 1;
            if calls > 2 * MAX_LOG_ROWS {
                Err(calls)
            } else {
                Ok([7; 32])
            }
        })
    };
    assert_eq!(fold(u32::MAX, vec![(0, [0; 32])]), Ok(None));
    assert_eq!(fold(MAX_LOG_ROWS + 1, vec![(0, [0; 32])]), Ok(None));
    assert_eq!(fold(u32::MAX, Vec::new()), Ok(None));
    assert_eq!(
        fold(3, vec![(5, [0; 32]), (2, [0; 32])]),
        Ok(None),
        "not increasing"
    );
    assert_eq!(fold(3, vec![(2, [0; 32]), (2, [0; 32])]), Ok(None), "repeated");
    assert_eq!(fold(3, vec![(u64::MAX, [0; 32])]), Ok(None), "past any codeword");
    // The largest fold still runs, one sibling per level.
    let reached = fold(MAX_LOG_ROWS, vec![((1 << MAX_LOG_ROWS) - 1, [0; 32])]).expect("siblings");
    assert_eq!(reached.map(|nodes| nodes.len()), Some(1));
    // A cap: leaves past 2^levels fold to the cap's nodes.
    let reached = fold(1, vec![(6, [0; 32])]).expect("siblings").expect("a fold");
    assert_eq!(reached.iter().map(|&(i, _)| i).collect::<Vec<_>>(), [3]);
}
