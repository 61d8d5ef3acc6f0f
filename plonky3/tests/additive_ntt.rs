//! `EngineNtt` through Plonky3's `AdditiveNtt` trait alone, against `LchNtt<Poly64>`: random
//! widths 1–64, heights 2^0–2^16, random shifts, every method, forward and inverse.

use ntt_plonky3::EngineNtt;
use p3_binary_dft::{AdditiveNtt, LchNtt};
use p3_binary_field::Poly64;
use p3_matrix::dense::RowMajorMatrix;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Most words a random matrix may have, so the suite stays quick on two cores.
const MAX_WORDS: usize = 1 << 17;

fn matrix(rng: &mut ChaCha8Rng, log_height: usize, width: usize) -> RowMajorMatrix<Poly64> {
    let values = (0..width << log_height)
        .map(|_| Poly64::new(rng.random()))
        .collect();
    RowMajorMatrix::new(values, width)
}

fn engines() -> [EngineNtt; 2] {
    [EngineNtt::with_workers(1), EngineNtt::with_workers(2)]
}

#[test]
fn every_method_equals_lch() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x15);
    let lch = LchNtt::<Poly64>::default();
    let engines = engines();
    for case in 0..80 {
        let log_height = rng.random_range(0..=16usize);
        let width = rng
            .random_range(1..=64usize)
            .min((MAX_WORDS >> log_height).max(1));
        let ntt = &engines[case % 2];
        let shift = Poly64::new(rng.random());
        let mat = matrix(&mut rng, log_height, width);
        let what = format!("case {case}: 2^{log_height} × {width}");

        let forward = ntt.shifted_ntt_batch(mat.clone(), shift);
        assert!(
            forward == lch.shifted_ntt_batch(mat.clone(), shift),
            "{what}: shifted ntt"
        );
        assert!(
            ntt.shifted_intt_batch(forward, shift) == mat,
            "{what}: shifted round trip"
        );
        assert!(
            ntt.shifted_intt_batch(mat.clone(), shift) == lch.shifted_intt_batch(mat.clone(), shift),
            "{what}: shifted intt"
        );
        assert!(
            ntt.ntt_batch(mat.clone()) == lch.ntt_batch(mat.clone()),
            "{what}: ntt"
        );
        assert!(
            ntt.intt_batch(mat.clone()) == lch.intt_batch(mat.clone()),
            "{what}: intt"
        );

        let r = rng.random_range(0..=log_height.min(4));
        let mut padded = mat.clone();
        let message = padded.values.len() >> r;
        padded.values[message..].fill(Poly64::new(0));
        assert!(
            ntt.ntt_batch_padded(padded.clone(), r) == lch.ntt_batch_padded(padded, r),
            "{what}: padded at r {r}"
        );

        let rows = (mat.values.len() / width) >> r.min(log_height);
        let message = RowMajorMatrix::new(mat.values[..rows * width].to_vec(), width);
        let added = rng.random_range(0..=3usize);
        assert!(
            ntt.ntt_batch_borrowed(message.as_view(), added)
                == lch.ntt_batch_borrowed(message.as_view(), added),
            "{what}: borrowed at r {added}"
        );
        assert!(
            ntt.shifted_lde_batch(message.clone(), added, shift)
                == lch.shifted_lde_batch(message.clone(), added, shift),
            "{what}: shifted lde by {added}"
        );
        assert!(
            ntt.lde_batch(message.clone(), added) == lch.lde_batch(message, added),
            "{what}: lde by {added}"
        );
    }
}

/// The widths a WHIR prover passes (a `Poly192` column is three base columns), small heights.
#[test]
fn prover_widths_and_tiny_heights() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x16);
    let lch = LchNtt::<Poly64>::default();
    let ntt = EngineNtt::with_workers(2);
    for width in [1, 2, 3, 6, 8, 24, 48] {
        for log_height in 0..=6 {
            let mat = matrix(&mut rng, log_height, width);
            assert!(
                ntt.ntt_batch(mat.clone()) == lch.ntt_batch(mat.clone()),
                "{width} × 2^{log_height}"
            );
            for r in 0..=log_height.min(3) {
                let rows = (1 << log_height) >> r;
                let message = RowMajorMatrix::new(mat.values[..rows * width].to_vec(), width);
                assert!(
                    ntt.ntt_batch_borrowed(message.as_view(), r)
                        == lch.ntt_batch_borrowed(message.as_view(), r),
                    "{width} × 2^{log_height} borrowed at r {r}"
                );
            }
        }
    }
}

#[test]
#[should_panic = "not a power of two"]
fn a_height_that_is_no_power_of_two_panics_as_documented() {
    let mat = RowMajorMatrix::new(vec![Poly64::new(1); 6], 2);
    let _ = EngineNtt::with_workers(1).ntt_batch(mat);
}

#[test]
#[should_panic = "padding exceeds matrix height"]
fn padding_past_the_height_panics_as_documented() {
    let mat = RowMajorMatrix::new(vec![Poly64::new(1); 8], 2);
    let _ = EngineNtt::with_workers(1).ntt_batch_padded(mat, 3);
}

#[test]
fn an_lde_by_nothing_keeps_the_allocation() {
    let mat = RowMajorMatrix::new(vec![Poly64::new(3); 16], 4);
    let ptr = mat.values.as_ptr();
    let out = EngineNtt::with_workers(1).lde_batch(mat, 0);
    assert_eq!(out.values.as_ptr(), ptr);
}

/// `with_workers` keeps its idle workers looking for the next call for `IDLE_SPIN` (a prover's
/// calls come milliseconds apart), unless `NTT_IDLE_SPIN_US` says otherwise.
#[test]
fn with_workers_spins_between_calls() {
    if std::env::var_os(ntt_runtime::IDLE_SPIN_ENV).is_some() {
        return; // the environment overrides the default this test checks
    }
    // One worker: a pool never oversubscribes a machine then, which would switch the spin off.
    let ntt = EngineNtt::with_workers(1);
    assert_eq!(ntt.encoder().pool().idle_spin(), ntt_plonky3::IDLE_SPIN);
    assert!(!ntt_plonky3::IDLE_SPIN.is_zero());
}
