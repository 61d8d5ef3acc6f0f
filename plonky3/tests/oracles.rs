//! The engine's encoder on the Cantor basis and on any basis, against Plonky3's own transforms:
//! `<Poly64 as EncodableLevel>::Encoder` (Plonky3's Reed-Solomon encoder, `LchNtt` inside),
//! `NaiveAdditiveNtt` (the definition), and `BasisNtt` (an explicit basis and shift), on random
//! shapes × workers × backends × plan settings.

use ntt_kernels::Backend;
use ntt_pcs::{Basis, CANTOR_BASIS, CommitParams, Domain, Encoder, MessageLayout, PlanConfig};
use ntt_runtime::{ThreadPool, ThreadPoolBuilder};
use p3_binary_dft::{AdditiveNtt, BasisNtt, EncodableLevel, NaiveAdditiveNtt};
use p3_binary_field::{Poly64, TowerLevel};
use p3_commit::Encoder as _;
use p3_matrix::dense::RowMajorMatrix;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::mem::MaybeUninit;
use std::sync::Arc;

fn pool(workers: usize) -> Arc<ThreadPool> {
    Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("pool"),
    )
}

/// A row-major (in-place) encode of `lanes` lanes at rate 1/2^`log_inv_rate`.
fn rows(lanes: usize, log_inv_rate: u32) -> CommitParams {
    CommitParams::lanes(lanes)
        .log_inv_rate(log_inv_rate)
        .layout(MessageLayout::Rows)
}

/// An encoder with `backend` on `pool`.
fn encoder(pool: Arc<ThreadPool>, backend: Backend) -> Encoder {
    Encoder::builder()
        .pool(pool)
        .backend(backend)
        .build()
        .expect("an encoder on a given pool and backend sets up")
}

fn random_words(rng: &mut ChaCha8Rng, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.random()).collect()
}

fn polys(words: &[u64]) -> Vec<Poly64> {
    words.iter().map(|&w| Poly64::new(w)).collect()
}

fn bits(values: &[Poly64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn the_cantor_basis_is_plonky3s() {
    for (i, &v) in CANTOR_BASIS.iter().enumerate() {
        assert_eq!(Poly64::cantor_basis(i).to_bits(), v, "v_{i}");
        assert_eq!(
            p3_binary_dft::domain_point::<Poly64>(1 << i).to_bits(),
            v,
            "v_{i}"
        );
    }
}

/// Random shapes, worker counts, backends and cache budgets (so every plan family runs): the
/// engine on the Cantor basis equals Plonky3's Reed-Solomon encoder, for every entry point.
#[test]
fn cantor_codewords_equal_plonky3s_encoder() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let plonky3 = <Poly64 as EncodableLevel>::Encoder::default();
    let backends = Backend::available();
    let pools: Vec<_> = [1, 2, 3].map(pool).into();
    for case in 0..60 {
        let log_rows = rng.random_range(0..=15u32);
        let lanes = rng.random_range(1..=(70usize).min((1 << 16) >> log_rows).max(1));
        let r = rng.random_range(0..=log_rows.min(4));
        let l2 = (lanes * 8) << rng.random_range(1..=8);
        let config = PlanConfig {
            l2_bytes: Some(l2),
            l3_bytes: Some(l2 << rng.random_range(0..=4)),
            wide: Some(rng.random()),
            ..PlanConfig::default()
        };
        let backend = backends[case % backends.len()];
        let enc = encoder(pools[case % pools.len()].clone(), backend)
            .with_config(config)
            .with_domain(Domain::cantor());
        let msg = random_words(&mut rng, lanes << (log_rows - r));
        let expect = bits(
            &plonky3
                .encode_batch(RowMajorMatrix::new(polys(&msg), lanes), r as usize)
                .values,
        );
        let what = format!("case {case}: 2^{log_rows} × {lanes}, r {r}, {backend:?}");

        let mut data = vec![0u64; lanes << log_rows];
        data[..msg.len()].copy_from_slice(&msg);
        enc.encode_in_place(&mut data, rows(lanes, r), None)
            .expect("in place");
        assert!(data == expect, "{what}: in place");

        let mut out = vec![MaybeUninit::<u64>::uninit(); lanes << log_rows];
        enc.encode(&msg, &mut out, rows(lanes, r), None).expect("encode");
        // SAFETY: `encode` returned `Ok`: every word is written.
        let out: Vec<u64> = out.into_iter().map(|w| unsafe { w.assume_init() }).collect();
        assert!(out == expect, "{what}: separate message");

        enc.inverse_in_place(&mut data, lanes).expect("inverse");
        assert!(data[..msg.len()] == msg[..], "{what}: inverse");
        assert!(
            data[msg.len()..].iter().all(|&w| w == 0),
            "{what}: inverse padding"
        );
    }
}

/// The definition, shifted cosets included (Plonky3's naive transform sums the novel basis at
/// each point).
#[test]
fn shifted_cantor_codewords_equal_the_naive_transform() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for log_rows in 0..=7u32 {
        for lanes in [1usize, 3] {
            let shift: u64 = rng.random();
            let coeffs = random_words(&mut rng, lanes << log_rows);
            let expect = NaiveAdditiveNtt::<Poly64>::default()
                .shifted_ntt_batch(RowMajorMatrix::new(polys(&coeffs), lanes), Poly64::new(shift));
            for workers in [1, 2] {
                let enc =
                    encoder(pool(workers), Backend::detect()).with_domain(Domain::cantor().with_shift(shift));
                let mut data = coeffs.clone();
                enc.encode_in_place(&mut data, rows(lanes, 0), None)
                    .expect("encode");
                assert_eq!(data, bits(&expect.values), "2^{log_rows} × {lanes}");
            }
        }
    }
}

/// Any basis and shift: Plonky3's `BasisNtt` on the same ordered vectors.
#[test]
fn custom_bases_equal_plonky3s_basis_transform() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for case in 0..24 {
        let log_rows = rng.random_range(1..=12u32);
        let lanes = rng.random_range(1..=9usize);
        // Random vectors are independent with overwhelming probability; the constructor checks.
        let extra = rng.random_range(0..3);
        let vectors = random_words(&mut rng, log_rows as usize + extra);
        let basis = Basis::custom(vectors.clone()).expect("independent");
        let shift: u64 = if case % 2 == 0 { rng.random() } else { 0 };
        let coeffs = random_words(&mut rng, lanes << log_rows);
        let mut expect = polys(&coeffs);
        BasisNtt::new(&polys(&vectors[..log_rows as usize]), Poly64::new(shift))
            .transform_algebra::<Poly64, false>(&mut expect, lanes);
        let enc =
            encoder(pool(1 + case % 2), Backend::detect()).with_domain(Domain::new(basis).with_shift(shift));
        let mut data = coeffs.clone();
        enc.encode_in_place(&mut data, rows(lanes, 0), None)
            .expect("encode");
        assert_eq!(data, bits(&expect), "case {case}: 2^{log_rows} × {lanes}");
        enc.inverse_in_place(&mut data, lanes).expect("inverse");
        assert_eq!(data, coeffs, "case {case}: inverse");
    }
}
