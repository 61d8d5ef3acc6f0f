//! The across-blocks radix-8 groups on every backend this CPU has, against the reference groups
//! one butterfly at a time with each block's twiddles computed from their definition
//! (`tw0 ⊕ Σ_{k ∈ bits(b)} steps[k]`): every segment length they take, several block counts,
//! misaligned buffers, edge-value twiddles; and the inverse undoes the forward groups.

mod common;

use common::*;
use ntt_kernels::Backend;
use rand::RngExt;

/// Block b's twiddles from the definition.
fn block_twiddles(tw0: [u64; 7], steps: &[[u64; 7]], b: usize) -> [u64; 7] {
    let mut tw = tw0;
    for (k, step) in steps.iter().enumerate() {
        if b >> k & 1 == 1 {
            for j in 0..7 {
                tw[j] ^= step[j];
            }
        }
    }
    tw
}

fn random_twiddles(rng: &mut rand::rngs::StdRng, zero_first: bool) -> [u64; 7] {
    let mut tw: [u64; 7] = core::array::from_fn(|_| {
        if rng.random_range(0..4) == 0 {
            EDGES[rng.random_range(0..EDGES.len())]
        } else {
            rng.random()
        }
    });
    if zero_first {
        // Block 0 of a step: twiddles 0, 1 and 3 are zero.
        tw[0] = 0;
        tw[1] = 0;
        tw[3] = 0;
    }
    tw
}

#[test]
fn across_groups_match_the_reference_groups() {
    let mut rng = rng(0xAC05);
    for seg in 1..=Backend::MAX_ACROSS_SEGMENT {
        for blocks in [8usize, 16, 64] {
            let bits = blocks.trailing_zeros() as usize;
            let tw0 = random_twiddles(&mut rng, seg % 2 == 1);
            let steps: Vec<[u64; 7]> = (0..bits).map(|_| random_twiddles(&mut rng, false)).collect();
            let data = row(&mut rng, blocks * 8 * seg);
            let mut want = data.clone();
            for (b, block) in want.chunks_exact_mut(8 * seg).enumerate() {
                group(block, 8, &RADIX8, &block_twiddles(tw0, &steps, b), true);
            }
            for backend in Backend::available() {
                for offset in [0usize, 3] {
                    let mut buf = vec![0x5A5A_5A5A_5A5A_5A5A; data.len() + offset + 2];
                    let body = offset..offset + data.len();
                    buf[body.clone()].copy_from_slice(&data);
                    backend.radix8_across(&mut buf[body.clone()], seg, tw0, &steps);
                    assert!(
                        buf[body.clone()] == want[..],
                        "{backend:?}: seg {seg}, {blocks} blocks, offset {offset}"
                    );
                    assert!(
                        buf[..offset]
                            .iter()
                            .chain(&buf[body.end..])
                            .all(|&w| w == 0x5A5A_5A5A_5A5A_5A5A),
                        "{backend:?}: wrote outside the buffer"
                    );
                    backend.inverse_radix8_across(&mut buf[body.clone()], seg, tw0, &steps);
                    assert!(
                        buf[body] == data[..],
                        "{backend:?} inverse: seg {seg}, {blocks} blocks, offset {offset}"
                    );
                }
            }
        }
    }
}

#[test]
fn across_groups_agree_with_the_per_block_kernel() {
    // Against the backend's own `radix8` block by block, with more steps than bits (the extra
    // ones must be ignored) on a 256-block buffer.
    let mut rng = rng(0xAC06);
    for seg in [1usize, 2, 3, 4, 6, 8, 12] {
        let tw0 = random_twiddles(&mut rng, false);
        let steps: Vec<[u64; 7]> = (0..12).map(|_| random_twiddles(&mut rng, false)).collect();
        let data = row(&mut rng, 256 * 8 * seg);
        for backend in Backend::available() {
            let mut want = data.clone();
            for (b, block) in want.chunks_exact_mut(8 * seg).enumerate() {
                backend.radix8(block, block_twiddles(tw0, &steps, b));
            }
            let mut got = data.clone();
            backend.radix8_across(&mut got, seg, tw0, &steps);
            assert!(got == want, "{backend:?}: seg {seg}");
        }
    }
}

#[test]
fn bad_shapes_are_refused() {
    let backend = Backend::detect();
    let steps = [[0u64; 7]; 8];
    for (len, seg, steps) in [
        (64usize, 0usize, &steps[..]),
        (64 * 17, 17, &steps[..]),
        (60, 1, &steps[..]),
        (64 * 2, 1, &steps[..2]),
        (128 * 2, 2, &steps[..3]),
    ] {
        let result = std::panic::catch_unwind(|| {
            let mut buf = vec![0u64; len];
            backend.radix8_across(&mut buf, seg, [0; 7], steps);
        });
        assert!(
            result.is_err(),
            "len {len}, seg {seg}, {} steps accepted",
            steps.len()
        );
    }
}
