//! Obviously correct encoders that every fast path is tested against.
//!
//! * [`evaluate_definition_on`]: codeword\[k\] = Σ_i m_i · X_i(shift + ω_k), with
//!   X_i = Π_{j ∈ bits(i)} ŝ_j and ŝ_j evaluated by the subspace-polynomial recursion itself from
//!   the basis vectors (no table, no linearity), so it shares nothing with the fast transform but
//!   the field multiply. Cost 2^(2·log_rows): small sizes only. [`evaluate_definition`] is the
//!   polynomial basis, unshifted.
//! * [`forward_oracle_on`] / [`inverse_oracle_on`] (and the polynomial basis's [`forward_oracle`]
//!   / [`inverse_oracle`]): one butterfly at a time, layer by layer, block by
//!   block, row pair by row pair, lane by lane, with the bitwise multiply.
//! * [`encode_reference`]: the Reed-Solomon encode by the oracle (zero-pad, then transform).
//!
//! Layout: `lanes` words per row, word `row·lanes + lane`; message rows first.

use crate::domain::Domain;
use crate::twiddle::Twiddles;
use ntt_kernels::Gf64;
use ntt_kernels::reference::mul_bitwise;

/// ŝ_0(ω), …, ŝ_{count−1}(ω) straight from s_0(X) = X, s_i = s_{i−1}·(s_{i−1} + s_{i−1}(β_{i−1})),
/// normalised by s_i(β_i).
fn normalized_subspace_values(basis: &[u64], omega: u64, count: usize) -> Vec<Gf64> {
    // s_i at the point and at each basis element that later normalisations need.
    let mut at_point = Gf64(omega);
    let mut at_basis: Vec<Gf64> = basis[..count].iter().map(|&b| Gf64(b)).collect();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        out.push(at_point * at_basis[i].inverse());
        let shift = at_basis[i];
        at_point = at_point * (at_point + shift);
        for b in at_basis.iter_mut() {
            *b = *b * (*b + shift);
        }
    }
    out
}

/// The transform from its definition: `coeffs` (2^log_rows rows × `lanes`) in the novel basis,
/// evaluated at ω_0 … ω_{2^log_rows − 1} (the polynomial basis: ω_k = k).
pub fn evaluate_definition(coeffs: &[u64], lanes: usize, log_rows: u32) -> Vec<u64> {
    evaluate_definition_on(&Domain::polynomial(), coeffs, lanes, log_rows)
}

/// The transform from its definition on `domain`: `coeffs` (2^log_rows rows × `lanes`) in the
/// novel basis of the domain's basis, evaluated at shift + ω_k for k < 2^log_rows.
pub fn evaluate_definition_on(domain: &Domain, coeffs: &[u64], lanes: usize, log_rows: u32) -> Vec<u64> {
    let rows = 1usize << log_rows;
    assert_eq!(coeffs.len(), rows * lanes);
    assert!(log_rows <= domain.max_log_rows());
    let basis = domain.basis().vectors();
    // The point of row k from its bits, not from the domain's own helper.
    let point = |k: usize| {
        (0..log_rows as usize)
            .filter(|j| (k >> j) & 1 == 1)
            .fold(domain.shift(), |acc, j| acc ^ basis[j])
    };
    let mut out = vec![0u64; rows * lanes];
    for k in 0..rows {
        let s_hat = normalized_subspace_values(&basis, point(k), log_rows as usize);
        for i in 0..rows {
            let basis_value = (0..log_rows as usize)
                .filter(|j| (i >> j) & 1 == 1)
                .fold(Gf64::ONE, |acc, j| acc * s_hat[j]);
            for lane in 0..lanes {
                out[k * lanes + lane] ^= (Gf64(coeffs[i * lanes + lane]) * basis_value).0;
            }
        }
    }
    out
}

/// The forward transform of `data` (2^log_rows rows × `lanes`) from layer `first_layer` on, one
/// butterfly `u' = u + t·v, v' = v + u'` at a time (the polynomial basis, unshifted).
pub fn forward_oracle(data: &mut [u64], lanes: usize, log_rows: u32, first_layer: u32) {
    forward_oracle_on(&Domain::polynomial(), data, lanes, log_rows, first_layer);
}

/// [`forward_oracle`] on `domain`.
pub fn forward_oracle_on(domain: &Domain, data: &mut [u64], lanes: usize, log_rows: u32, first_layer: u32) {
    each_butterfly(
        domain,
        data,
        lanes,
        log_rows,
        first_layer..log_rows,
        |data, u, v, tw| {
            data[u] ^= mul_bitwise(tw, data[v]);
            data[v] ^= data[u];
        },
    );
}

/// The inverse of the full transform: layers in reverse, `v' = v + u, u' = u + t·v'`.
pub fn inverse_oracle(data: &mut [u64], lanes: usize, log_rows: u32) {
    inverse_oracle_on(&Domain::polynomial(), data, lanes, log_rows);
}

/// [`inverse_oracle`] on `domain`.
pub fn inverse_oracle_on(domain: &Domain, data: &mut [u64], lanes: usize, log_rows: u32) {
    each_butterfly(
        domain,
        data,
        lanes,
        log_rows,
        (0..log_rows).rev(),
        |data, u, v, tw| {
            data[v] ^= data[u];
            data[u] ^= mul_bitwise(tw, data[v]);
        },
    );
}

/// Calls `butterfly(data, u, v, twiddle)` for every word pair of every layer in `layers` order:
/// block by block, row pair by row pair, lane by lane.
fn each_butterfly(
    domain: &Domain,
    data: &mut [u64],
    lanes: usize,
    log_rows: u32,
    layers: impl Iterator<Item = u32>,
    mut butterfly: impl FnMut(&mut [u64], usize, usize, u64),
) {
    assert_eq!(data.len(), lanes << log_rows);
    let t = Twiddles::new(domain);
    for layer in layers {
        let depth = log_rows - layer - 1;
        let half = 1usize << depth;
        for block in 0..1usize << layer {
            let tw = t.twiddle(depth, block as u64);
            for r in block * 2 * half..block * 2 * half + half {
                for lane in 0..lanes {
                    butterfly(data, r * lanes + lane, (r + half) * lanes + lane, tw);
                }
            }
        }
    }
}

/// Reed-Solomon encode at rate 1/2^log_inv_rate: the message rows (row-major, `lanes` words a
/// row, 2^(log_rows − log_inv_rate) rows) zero-padded to 2^log_rows rows, then transformed.
pub fn encode_reference(msg_rows: &[u64], lanes: usize, log_rows: u32, log_inv_rate: u32) -> Vec<u64> {
    encode_reference_on(&Domain::polynomial(), msg_rows, lanes, log_rows, log_inv_rate)
}

/// [`encode_reference`] on `domain`.
pub fn encode_reference_on(
    domain: &Domain,
    msg_rows: &[u64],
    lanes: usize,
    log_rows: u32,
    log_inv_rate: u32,
) -> Vec<u64> {
    assert!(log_inv_rate <= log_rows);
    assert_eq!(msg_rows.len(), lanes << (log_rows - log_inv_rate));
    let mut data = vec![0u64; lanes << log_rows];
    data[..msg_rows.len()].copy_from_slice(msg_rows);
    forward_oracle_on(domain, &mut data, lanes, log_rows, 0);
    data
}

/// Row-major rows (`row·lanes + lane`) from a lane-major message (lane t = contiguous block t).
pub fn lanes_to_rows(msg_lanes: &[u64], lanes: usize) -> Vec<u64> {
    assert_eq!(msg_lanes.len() % lanes, 0);
    let rows = msg_lanes.len() / lanes;
    let mut out = vec![0u64; msg_lanes.len()];
    for lane in 0..lanes {
        for row in 0..rows {
            out[row * lanes + lane] = msg_lanes[lane * rows + row];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples() {
        let mut d = vec![3, 5];
        forward_oracle(&mut d, 1, 1, 0);
        assert_eq!(d, [3, 6]);
        let mut d = vec![1, 2, 3, 4];
        forward_oracle(&mut d, 1, 2, 0);
        assert_eq!(d, [1, 3, 0xe, 8]);
        let mut d: Vec<u64> = (1..=8).collect();
        forward_oracle(&mut d, 1, 3, 0);
        assert_eq!(d, [0x1, 0x3, 0xe, 0x8, 0xac, 0x80, 0xd8, 0xf8]);
        assert_eq!(encode_reference(&[5, 7], 1, 2, 1), [5, 2, 0xb, 0xc]);
        let msg = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            0x0f1e2d3c4b5a6978,
            0x8796a5b4c3d2e1f0,
        ];
        assert_eq!(
            encode_reference(&msg, 1, 3, 1),
            [
                0x0123456789abcdef,
                0xffffffffffffffff,
                0xfca95602a9fc0357,
                0x85e3492e1c7ad0b7,
                0x9dca3765c89f62a6,
                0x72615047362514bb,
                0x5cf509a6f65fa3f2,
                0x34c8cb30cb37341f
            ]
        );
    }

    #[test]
    fn definition_matches_oracle_on_every_domain() {
        let custom = crate::domain::Basis::custom(vec![3, 0x10, 0x101, 1 << 63, 7 << 20, 0xff, 0x1234])
            .expect("independent");
        let domains = [
            Domain::cantor(),
            Domain::cantor().with_shift(0x0123_4567_89ab_cdef),
            Domain::polynomial().with_shift(0x40),
            Domain::new(custom.clone()),
            Domain::new(custom).with_shift(0xfeed),
        ];
        for domain in &domains {
            for log_rows in 0..=6 {
                let lanes = 2;
                let coeffs: Vec<u64> = (0..lanes << log_rows)
                    .map(|i: usize| (i as u64 + 7).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .collect();
                let mut fast = coeffs.clone();
                forward_oracle_on(domain, &mut fast, lanes, log_rows, 0);
                assert_eq!(
                    fast,
                    evaluate_definition_on(domain, &coeffs, lanes, log_rows),
                    "{domain:?} log_rows {log_rows}"
                );
                inverse_oracle_on(domain, &mut fast, lanes, log_rows);
                assert_eq!(fast, coeffs);
            }
        }
        // The shift moves every point: a constant polynomial stays, X_1 = ŝ_0 = X/β_0 moves.
        let mut x1 = vec![0, 1];
        forward_oracle_on(&Domain::polynomial().with_shift(6), &mut x1, 1, 1, 0);
        assert_eq!(x1, [6, 7]);
    }

    #[test]
    fn definition_matches_oracle() {
        for log_rows in 0..=6 {
            for lanes in [1, 3] {
                let coeffs: Vec<u64> = (0..lanes << log_rows)
                    .map(|i: usize| (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .collect();
                let mut fast = coeffs.clone();
                forward_oracle(&mut fast, lanes, log_rows, 0);
                assert_eq!(
                    fast,
                    evaluate_definition(&coeffs, lanes, log_rows),
                    "log_rows {log_rows}"
                );
                inverse_oracle(&mut fast, lanes, log_rows);
                assert_eq!(fast, coeffs);
            }
        }
    }
}
