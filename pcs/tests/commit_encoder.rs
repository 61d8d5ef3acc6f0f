//! The committer wired to the encoder: on random shapes × plans × workers × backends the root is
//! BLAKE3 of the whole codeword and the codeword is the encoder's (the test vectors' roots are
//! checked in ntt-benches' `tests/vectors.rs`).

mod common;

use common::{encoder, words};
use ntt_kernels::Backend;
use ntt_pcs::CodewordShapeError;
use ntt_pcs::{CommitError, CommitParams, Committer, verify};
use ntt_pcs::{DeepBudget, Expansion, MessageLayout, PlanConfig, ShapeError};

fn blake3_of(words: &[u64]) -> [u8; 32] {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    *blake3::hash(&bytes).as_bytes()
}

fn configs() -> Vec<PlanConfig> {
    vec![
        PlanConfig::default(),
        // Tiny caches: small sink blocks, several passes.
        PlanConfig {
            l2_bytes: Some(1 << 10),
            l3_bytes: Some(1 << 14),
            wide: Some(true),
            ..PlanConfig::default()
        },
        PlanConfig {
            l2_bytes: Some(24 << 10),
            deep: Some(DeepBudget::L3),
            ..PlanConfig::default()
        },
        PlanConfig {
            l2_bytes: Some(3 << 12),
            wide: Some(false),
            stream: Some(true),
            ..PlanConfig::default()
        },
    ]
}

#[test]
fn random_shapes_plans_workers_and_backends_give_blake3_of_the_codeword() {
    let mut seed = 0;
    for (lanes, log_msg_rows, log_inv_rate) in [
        (1usize, 0u32, 0u32),
        (1, 3, 2),
        (3, 7, 1),
        (5, 9, 2),
        (7, 10, 1),
        (17, 8, 1),
        (33, 6, 3),
        (64, 9, 1),
        (70, 7, 1),
        (2, 13, 1),
        (9, 11, 1),
        (128, 5, 2),
    ] {
        seed += 1;
        let witness = words(seed, lanes << log_msg_rows);
        let mut roots = Vec::new();
        for backend in Backend::available() {
            for workers in [1, 2, 3] {
                for config in configs() {
                    for layout in [MessageLayout::Lanes, MessageLayout::Rows] {
                        let encoder = encoder(workers, backend).with_config(config.clone());
                        let committer = Committer::new(encoder.clone());
                        let what = format!(
                            "{lanes} lanes, 2^{log_msg_rows} rows, r={log_inv_rate}, {workers} workers, {config:?}, {layout}, {:?}",
                            backend.kind()
                        );
                        let (commitment, prover) = committer
                            .commit(
                                &witness,
                                CommitParams::lanes(lanes)
                                    .log_inv_rate(log_inv_rate)
                                    .layout(layout),
                            )
                            .expect(&what);
                        assert_eq!(commitment.root(), blake3_of(prover.codeword()), "{what}");
                        let mut plain = vec![std::mem::MaybeUninit::new(0u64); prover.codeword().len()];
                        encoder
                            .encode(
                                &witness,
                                &mut plain,
                                CommitParams::lanes(lanes)
                                    .log_inv_rate(log_inv_rate)
                                    .layout(layout),
                                None,
                            )
                            .expect(&what);
                        assert!(
                            plain.iter().zip(prover.codeword()).all(|(a, &b)| {
                                // SAFETY: every element was created with `MaybeUninit::new`.
                                unsafe { a.assume_init() == b }
                            }),
                            "{what}: codeword differs from the encode without a sink"
                        );
                        if layout == MessageLayout::Lanes {
                            roots.push(commitment.root());
                        }
                        let timings = prover.timings();
                        assert!(
                            timings.hash <= timings.total
                                && timings.allocate + timings.encode + timings.hash == timings.total,
                            "{what}: stages {timings:?} do not sum to the total"
                        );
                    }
                }
            }
        }
        assert!(roots.windows(2).all(|w| w[0] == w[1]));
    }
}

#[test]
fn reused_buffers_give_the_same_commitment() {
    let committer = Committer::new(encoder(2, Backend::detect()));
    let witness = words(99, 5 << 9);
    let (first, prover) = committer
        .commit(&witness, CommitParams::lanes(5).log_inv_rate(1))
        .expect("commits");
    let capacity = prover.codeword().as_ptr();
    let (second, prover) = committer
        .commit_reusing(&witness, CommitParams::lanes(5).log_inv_rate(1), prover)
        .expect("commits");
    assert_eq!(first, second);
    assert_eq!(prover.codeword().as_ptr(), capacity, "the buffer was reused");
    let other = words(100, 5 << 8);
    let (third, prover) = committer
        .commit_reusing(&other, CommitParams::lanes(5).log_inv_rate(2), prover)
        .expect("commits");
    assert_eq!(third.root(), blake3_of(prover.codeword()));
}

#[test]
fn bad_witnesses_are_errors() {
    let committer = Committer::new(encoder(1, Backend::detect()));
    let witness = words(1, 48);
    let shape_error = |lanes, log_inv_rate| match committer
        .commit(&witness, CommitParams::lanes(lanes).log_inv_rate(log_inv_rate))
    {
        Err(CommitError::Shape(e)) => e,
        other => panic!("expected a shape error, got {other:?}"),
    };
    assert_eq!(shape_error(0, 1), CodewordShapeError::ZeroLanes.into());
    assert_eq!(shape_error(5, 1), ShapeError::RaggedRows { words: 48, lanes: 5 });
    assert!(matches!(
        shape_error(4, 1),
        ShapeError::RowsNotPowerOfTwo { rows: 12, .. }
    ));
    assert!(matches!(
        committer.commit(&[], CommitParams::lanes(4).log_inv_rate(1)),
        Err(CommitError::Shape(ShapeError::RowsNotPowerOfTwo { rows: 0, .. }))
    ));
    assert_eq!(shape_error(3, 5), ShapeError::LargeExpansion { log_inv_rate: 5 });
    assert_eq!(
        shape_error(3, u32::MAX),
        ShapeError::LargeExpansion {
            log_inv_rate: u32::MAX
        }
    );
    let unbounded = committer.clone().with_expansion(Expansion::Unbounded);
    assert!(matches!(
        unbounded.commit(
            &witness,
            CommitParams::lanes(3)
                .log_inv_rate(62)
                .layout(MessageLayout::Rows)
        ),
        Err(CommitError::Shape(ShapeError::Codeword(
            CodewordShapeError::TooLarge {
                log_rows: 66,
                lanes: 3
            }
        )))
    ));
}

#[test]
fn codewords_beyond_the_memory_are_refused_before_allocating() {
    // 2^4 rows × 3 lanes at rate 1/2^44: a codeword of 2^48 rows, 6 PiB, within the size limits
    // but beyond any machine's memory; refused with both sizes named, not aborted.
    let committer = Committer::new(encoder(1, Backend::detect())).with_expansion(Expansion::Unbounded);
    let witness = words(1, 48);
    match committer.commit(
        &witness,
        CommitParams::lanes(3)
            .log_inv_rate(44)
            .layout(MessageLayout::Rows),
    ) {
        Err(CommitError::Shape(ShapeError::ExceedsMemory {
            needed, available, ..
        })) => {
            assert_eq!(needed, (8 * 3) << 48);
            assert!(available < needed);
        }
        // Where the platform reports no memory figures the allocator refuses instead.
        Err(CommitError::Allocation { bytes }) => assert_eq!(bytes, (8 * 3) << 48),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The smallest codeword of 2^k rows × 1 lane whose row tree (8 times the codeword at one lane)
/// and codeword together clearly exceed `available`, while the codeword alone is at most a
/// quarter of it: `Some(log_rows)`, or `None` where the machine reports no memory figures.
fn log_rows_whose_row_tree_does_not_fit() -> Option<u32> {
    let available = ntt_pcs::memory::AvailableMemory::read().bytes()?;
    (20..=ntt_pcs::MAX_LOG_ROWS).find(|&log_rows| {
        let shape = ntt_pcs::CodewordShape::new(log_rows, 1).expect("within the limits");
        let both = shape.bytes() + ntt_pcs::row_tree_bytes(shape);
        both / 10 > available / 9
    })
}

#[test]
fn a_row_tree_is_counted_before_anything_is_allocated() {
    let Some(log_rows) = log_rows_whose_row_tree_does_not_fit() else {
        return;
    };
    let committer = Committer::new(encoder(1, Backend::detect())).with_expansion(Expansion::Unbounded);
    let witness = words(3, 1 << 10);
    let scheme = ntt_pcs::Scheme::rows(ntt_pcs::HashKind::Keccak, 0).expect("a scheme");
    let params = CommitParams::lanes(1).log_inv_rate(log_rows - 10).scheme(scheme);
    match committer.commit(&witness, params) {
        Err(CommitError::Shape(ShapeError::ExceedsMemory { what, needed, .. })) => {
            assert_eq!(what, "a codeword with its row tree");
            assert_eq!(needed, (8 << log_rows) + (32 << (log_rows + 1)) - 32);
        }
        other => panic!("expected the memory check to refuse the tree, got {other:?}"),
    }
    // A codeword already in memory (zero pages, never touched): the tree alone is refused.
    let codeword = vec![0u64; 1 << log_rows];
    match ntt_pcs::commit_codeword_with(codeword, 1, scheme) {
        Err(CommitError::Shape(ShapeError::ExceedsMemory { what, needed, .. })) => {
            assert_eq!((what, needed), ("a row tree", (32 << (log_rows + 1)) - 32));
        }
        other => panic!("expected the memory check to refuse the tree, got {other:?}"),
    }
}

#[test]
fn every_stored_level_gives_the_same_root_and_proofs() {
    let witness = words(7, 17 << 10);
    let encoder = encoder(2, Backend::detect());
    let rows = [0usize, 2047, 1000, 1000, 1];
    let mut reference = None;
    let mut previous_tree_bytes = usize::MAX;
    for level in [0u32, 2, 4, 6, 9, 20] {
        let committer = Committer::new(encoder.clone()).with_stored_level(level);
        let (commitment, prover) = committer
            .commit(&witness, CommitParams::lanes(17).log_inv_rate(1))
            .expect("commits");
        assert_eq!(commitment.root(), blake3_of(prover.codeword()), "level {level}");
        assert!(
            prover.tree_bytes() <= previous_tree_bytes,
            "coarser levels keep less"
        );
        previous_tree_bytes = prover.tree_bytes();
        let opening = prover.open(&rows).expect("opens");
        verify(&commitment, &rows, &opening).expect("verifies");
        let reference = reference.get_or_insert_with(|| (commitment.clone(), opening.to_bytes()));
        assert_eq!(
            (&reference.0, &reference.1),
            (&commitment, &opening.to_bytes()),
            "level {level}"
        );
    }
}
