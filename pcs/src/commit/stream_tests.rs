use std::sync::atomic::{AtomicUsize, Ordering};

use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::shape::MAX_LOG_ROWS;

fn random_codeword(rng: &mut ChaCha8Rng, words: usize) -> Vec<u64> {
    (0..words).map(|_| rng.random()).collect()
}

fn shape(log_rows: u32, lanes: usize) -> CodewordShape {
    CodewordShape::new(log_rows, lanes).expect("valid")
}

fn blake3_of(words: &[u64]) -> [u8; 32] {
    *blake3::hash(&le_bytes(words)).as_bytes()
}

/// Feeds every block of `codeword` in a random order from `threads` threads.
fn stream(
    codeword: &[u64],
    (log_rows, lanes, log_block_rows, piece_level): (u32, usize, u32, u32),
    threads: usize,
    seed: u64,
) -> StreamingHasher {
    let hasher = StreamingHasher::with_piece_level(shape(log_rows, lanes), log_block_rows, piece_level)
        .expect("valid shape");
    let block_words = lanes << log_block_rows;
    let mut order: Vec<usize> = (0..1 << (log_rows - log_block_rows)).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&block) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    hasher
                        .absorb(
                            block << log_block_rows,
                            &codeword[block * block_words..][..block_words],
                        )
                        .expect("aligned blocks, each once");
                }
            });
        }
    });
    hasher
}

/// Every stored chaining value equals the node hashed directly from its bytes.
fn check_tree(tree: &ChainingTree, codeword: &[u64]) {
    let bytes = le_bytes(codeword);
    let shape = tree.shape();
    for h in 0..shape.top() {
        for i in 0..shape.level_len(h).expect("a level of the tree") {
            let (start, end) = shape.node_bytes(h, i).expect("a node of the tree");
            let direct = node_cv(start, &bytes[start as usize..end as usize]);
            assert_eq!(tree.node_cv(h, i, &bytes), direct, "node ({h}, {i})");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "too slow under Miri; see small_streams_from_three_threads")]
fn streamed_root_is_blake3_of_codeword_for_all_lane_counts_and_blocks() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for lanes in 1..=70usize {
        for log_rows in [0u32, 1, 2, 3, 4, 5, 7, 9] {
            let codeword = random_codeword(&mut rng, lanes << log_rows);
            let expected = blake3_of(&codeword);
            for log_block_rows in 0..=log_rows {
                let seed = rng.random();
                let piece_level = [0, 1, 2, 4, 6][rng.random_range(0..5)];
                let hasher = stream(&codeword, (log_rows, lanes, log_block_rows, piece_level), 3, seed);
                assert_eq!(
                    hasher.finish(),
                    Ok(expected),
                    "lanes {lanes}, log_rows {log_rows}, log_block_rows {log_block_rows}, piece {piece_level}"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "too slow under Miri; see small_streams_from_three_threads")]
fn streamed_root_matches_on_larger_codewords_and_keeps_a_correct_tree() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (lanes, log_rows) in [
        (64usize, 12u32),
        (3, 14),
        (17, 11),
        (1, 15),
        (70, 10),
        (128, 9),
        (5, 13),
    ] {
        let codeword = random_codeword(&mut rng, lanes << log_rows);
        let expected = blake3_of(&codeword);
        for log_block_rows in [0, 1, 3, 5, 6, 8, log_rows] {
            for piece_level in [2, DEFAULT_PIECE_LEVEL, 7] {
                let log_block_rows = log_block_rows.min(log_rows);
                let shape = (log_rows, lanes, log_block_rows, piece_level);
                let hasher = stream(&codeword, shape, 4, rng.random());
                let (root, tree) = hasher.into_tree(0).expect("complete");
                assert_eq!(
                    root, expected,
                    "(log_rows, lanes, log_block_rows, piece_level) = {shape:?}"
                );
                check_tree(&tree, &codeword);
            }
        }
    }
}

#[test]
fn finish_reports_missing_blocks() {
    let hasher = StreamingHasher::new(shape(4, 3), 1).expect("valid");
    let codeword = vec![7u64; 3 << 4];
    for block in 0..7 {
        hasher
            .absorb(block << 1, &codeword[block * 6..][..6])
            .expect("aligned");
    }
    assert_eq!(
        hasher.finish(),
        Err(CommitError::IncompleteStream {
            absorbed: 7,
            blocks: 8
        })
    );
}

#[test]
fn blocks_that_break_the_contract_are_refused_and_change_nothing() {
    let codeword: Vec<u64> = (0..3 << 4).map(|w| w * 0x9e37_79b9).collect();
    let hasher = StreamingHasher::new(shape(4, 3), 1).expect("valid");
    let block = |k: usize| &codeword[k * 6..][..6];
    hasher.absorb(2, block(1)).expect("first hand-over");
    let refusals = [
        (2, block(1), "handed over twice"),
        (1, block(0), "expected aligned blocks"),
        (4, &codeword[24..27], "expected aligned blocks"),
        (16, block(0), "past the codeword"),
        (usize::MAX - 1, block(0), "past the codeword"),
        (0, &[][..], "expected aligned blocks"),
    ];
    for (first_row, rows, why) in refusals {
        let err = hasher.absorb(first_row, rows).expect_err(why);
        assert!(err.reason().contains(why), "{err}");
    }
    for k in (0..8).filter(|&k| k != 1) {
        hasher.absorb(k << 1, block(k)).expect("aligned, once");
    }
    assert_eq!(hasher.finish(), Ok(blake3_of(&codeword)));
}

#[test]
fn states_too_large_for_the_machine_are_errors_not_aborts() {
    let refused = |log_rows, lanes, log_block_rows| {
        let result = StreamingHasher::new(shape(log_rows, lanes), log_block_rows);
        assert!(
            matches!(
                result,
                Err(CommitError::HasherAllocation { .. }
                    | CommitError::Shape(ShapeError::ExceedsMemory { .. }))
            ),
            "2^{log_rows} rows × {lanes} lanes in blocks of 2^{log_block_rows}: {result:?}"
        );
    };
    refused(59, 1, 0);
    refused(50, 64, 20);
    refused(MAX_LOG_ROWS, 1, MAX_LOG_ROWS);
    // Terabytes, within the address space: refused from what the system says it has.
    if cfg!(target_os = "linux") {
        refused(40, 1, 3);
    }
}

#[test]
fn blocks_larger_than_the_codeword_are_errors() {
    assert!(matches!(
        StreamingHasher::new(shape(4, 3), 5),
        Err(CommitError::BlockLargerThanCodeword { .. })
    ));
}

/// Small enough for Miri, which checks the atomics protocol for data races: every stitching
/// path (staged chunks, rendezvous, dense merges) across three threads.
#[test]
fn small_streams_from_three_threads() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for (log_rows, lanes, log_block_rows, piece_level) in
        [(7u32, 3usize, 2u32, 1u32), (6, 40, 3, 1), (4, 9, 1, 0)]
    {
        let codeword = random_codeword(&mut rng, lanes << log_rows);
        let hasher = stream(
            &codeword,
            (log_rows, lanes, log_block_rows, piece_level),
            3,
            rng.random(),
        );
        assert_eq!(hasher.finish(), Ok(blake3_of(&codeword)));
    }
}
