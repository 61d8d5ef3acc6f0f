//! Random shapes × worker counts × narrow/wide × scaled-down budgets × backends × domains (the
//! polynomial and Cantor bases, a random basis, random shifts): every entry point gives the
//! reference codeword byte for byte, the sink's blocks tile the rows once, and
//! the inverse gives the message back.

mod common;

use common::{Recorder, assume_written, encoder, garbage_codeword, rows_to_lanes, words};
use ntt_kernels::Backend;
use ntt_pcs::reference::encode_reference_on;
use ntt_pcs::{Basis, CommitParams, DeepBudget, Domain, Expansion, MessageLayout, PlanConfig, Shape};
use proptest::prelude::*;

/// Most codeword words a random case may have, so the bitwise oracle stays fast.
const MAX_WORDS: usize = 1 << 15;
const WORKERS: [usize; 4] = [1, 2, 3, 8];

#[derive(Debug, Clone)]
struct Case {
    shape: Shape,
    workers: usize,
    config: PlanConfig,
    backend: Backend,
    domain: Domain,
    seed: u64,
}

/// A random basis of the whole field: the unit vectors mixed by random row operations (each
/// adds an earlier vector to a later one, or a later to an earlier, which keeps them independent).
fn random_basis(seed: u64) -> Basis {
    let mut v: Vec<u64> = (0..64).map(|j| 1u64 << j).collect();
    let mut x = seed | 1;
    for _ in 0..512 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = ((x % 64) as usize, ((x >> 8) % 64) as usize);
        if a != b {
            v[a] ^= v[b];
        }
    }
    v.swap(0, (seed % 64) as usize);
    Basis::custom(v).expect("row operations keep a basis")
}

fn domain() -> impl Strategy<Value = Domain> {
    (0u8..4, any::<u64>(), any::<bool>()).prop_map(|(kind, seed, shifted)| {
        let basis = match kind {
            0 | 1 => Basis::Polynomial,
            2 => Basis::Cantor,
            _ => random_basis(seed),
        };
        let domain = Domain::new(basis);
        if shifted {
            domain.with_shift(seed.rotate_left(17))
        } else {
            domain
        }
    })
}

fn case() -> impl Strategy<Value = Case> {
    (
        0u32..=16,
        1usize..=70,
        0u32..=4,
        prop::sample::select(&WORKERS[..]),
        any::<bool>(),
        1u32..=8,
        0u32..=4,
        prop::option::of(prop_oneof![Just(DeepBudget::L2), Just(DeepBudget::L3)]),
        any::<prop::sample::Index>(),
        (domain(), any::<u64>()),
        (prop::option::of(any::<bool>()), prop::option::of(1u32..=4)),
    )
        .prop_map(
            |(
                log_rows,
                lanes,
                r,
                workers,
                wide,
                log_l2_rows,
                log_l3_extra,
                deep,
                backend,
                (domain, seed),
                (transpose_first, gathered_passes),
            )| {
                let lanes = lanes.min((MAX_WORDS >> log_rows).max(1));
                let backends = common::backends();
                let l2_bytes = (lanes * 8) << log_l2_rows;
                Case {
                    shape: Shape::with_expansion(log_rows, lanes, r.min(log_rows), Expansion::Unbounded)
                        .expect("valid shape"),
                    workers,
                    config: PlanConfig {
                        l2_bytes: Some(l2_bytes),
                        l3_bytes: Some(l2_bytes << log_l3_extra),
                        wide: Some(wide),
                        log_residues: None,
                        deep,
                        stream: None,
                        transpose_first,
                        gathered_passes,
                    },
                    backend: *backend.get(&backends),
                    domain,
                    seed,
                }
            },
        )
}

fn check_case(case: &Case) -> Result<(), TestCaseError> {
    let (log_rows, n, r) = (
        case.shape.log_rows(),
        case.shape.lanes(),
        case.shape.log_inv_rate(),
    );
    let enc = encoder(case.workers, case.backend)
        .with_config(case.config.clone())
        .with_domain(case.domain.clone());
    let msg = words(case.seed, case.shape.message_words());
    let expect = encode_reference_on(&case.domain, &msg, n, log_rows, r);

    let mut data = vec![0u64; n << log_rows];
    data[..msg.len()].copy_from_slice(&msg);
    let sink = Recorder::default();
    enc.encode_in_place(
        &mut data,
        CommitParams::lanes(n).log_inv_rate(r).layout(MessageLayout::Rows),
        Some(&sink),
    )
    .expect("in place");
    prop_assert!(data == expect, "in place differs from the reference");
    sink.check(&data, n).map_err(TestCaseError::fail)?;

    for layout in [MessageLayout::Rows, MessageLayout::Lanes] {
        let input = match layout {
            MessageLayout::Rows => msg.clone(),
            MessageLayout::Lanes => rows_to_lanes(&msg, n),
        };
        let mut out = garbage_codeword(n << log_rows);
        let sink = Recorder::default();
        enc.encode(
            &input,
            &mut out,
            CommitParams::lanes(n).log_inv_rate(r).layout(layout),
            Some(&sink),
        )
        .expect("encode");
        let out = assume_written(out);
        prop_assert!(out == expect, "{layout} message differs from the reference");
        sink.check(&out, n).map_err(TestCaseError::fail)?;
    }

    enc.inverse_in_place(&mut data, n).expect("inverse");
    prop_assert!(
        data[..msg.len()] == msg[..],
        "inverse does not give the message back"
    );
    prop_assert!(
        data[msg.len()..].iter().all(|&w| w == 0),
        "inverse leaves non-zero padding"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_matches_the_reference(case in case()) {
        check_case(&case)?;
    }
}

/// The budgets above really produce the plan families the property test claims to cover.
#[test]
fn scaled_budgets_give_multi_pass_plans() {
    let enc = |config: PlanConfig| encoder(2, Backend::portable()).with_config(config);
    let shape = Shape::new(12, 3, 1).expect("valid shape");
    let small = PlanConfig {
        l2_bytes: Some((3 * 8) << 3),
        l3_bytes: Some((3 * 8) << 3),
        wide: Some(false),
        ..PlanConfig::default()
    };
    let plan = enc(small.clone()).plan(shape, MessageLayout::Lanes);
    assert!(plan.gathered.len() >= 2, "{plan}");
    assert!(plan.gathered.iter().all(|g| g.log_residues == 0), "{plan}");
    let wide = PlanConfig {
        l2_bytes: Some((3 * 8) << 6),
        wide: Some(true),
        ..small.clone()
    };
    let plan = enc(wide).plan(shape, MessageLayout::Lanes);
    assert!(plan.gathered.iter().any(|g| g.log_residues > 0), "{plan}");
    let l3 = PlanConfig {
        l3_bytes: Some((3 * 8) << 6),
        deep: Some(DeepBudget::L3),
        ..small
    };
    let plan = enc(l3).plan(shape, MessageLayout::Rows);
    let deep = plan.deep.as_ref().expect("deep pass");
    assert!(deep.inner_log_group_rows > 0, "{plan}");
}

/// Larger shapes than the property test reaches, one of each family, against the oracle.
#[test]
fn larger_shapes_match_the_reference() {
    for (log_rows, lanes, r, workers) in [(16, 1, 1, 3), (14, 5, 2, 2), (12, 64, 1, 2), (11, 70, 4, 8)] {
        let case = Case {
            shape: Shape::with_expansion(log_rows, lanes, r, Expansion::Unbounded).expect("valid shape"),
            workers,
            config: PlanConfig {
                l2_bytes: Some((lanes * 8) << 5),
                l3_bytes: Some((lanes * 8) << 8),
                ..PlanConfig::default()
            },
            backend: *Backend::available().last().expect("a backend"),
            domain: Domain::default(),
            seed: u64::from(log_rows),
        };
        check_case(&case).expect("matches");
    }
}

/// Message groups larger than a quarter of the L2 unit, with rows longer than a page, run tile
/// by tile (the last tile ragged when the width is not a multiple of the tile).
#[test]
fn column_tiles_match_the_reference() {
    for (log_rows, lanes, r) in [(14, 64, 1), (13, 70, 2)] {
        let shape = Shape::with_expansion(log_rows, lanes, r, Expansion::Unbounded).expect("valid shape");
        let config = PlanConfig {
            l2_bytes: Some((lanes * 8) << 8),
            wide: Some(true),
            log_residues: Some(4),
            ..PlanConfig::default()
        };
        let backend = *Backend::available().last().expect("a backend");
        let plan = encoder(2, backend)
            .with_config(config.clone())
            .plan(shape, MessageLayout::Rows);
        let first = plan.gathered.first().expect("a gathered pass");
        assert!(first.tile_columns < lanes << first.log_residues, "{plan}");
        let case = Case {
            shape,
            workers: 2,
            config,
            backend,
            domain: Domain::cantor().with_shift(u64::from(log_rows) << 40 | 0x1234),
            seed: u64::from(log_rows) << 8 | lanes as u64,
        };
        check_case(&case).expect("matches");
    }
}
