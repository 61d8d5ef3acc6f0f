//! The message a rank encodes: the whole message when its share is whole cosets, else the
//! message folded onto its part of one coset.
//!
//! The codeword's row k is `f(x_k)` with `f = Σ_i m_i·X_i` in the novel basis,
//! `X_i = Π_{j ∈ bits(i)} ŝ_j`. On a rank's rows `x_p + span(β_0, …, β_{d−1})`, every ŝ_j with
//! `j ≥ d` is constant: s_j is GF(2)-linear and vanishes on `span(β_0, …, β_{j−1})`, which holds
//! the span, so `ŝ_j(x_p + w) = ŝ_j(x_p)`. Writing `i = i_lo + 2^d·i_hi`, the share is therefore
//! the rate-1 encode, on the share's coset, of the 2^d-row message
//! `g_{i_lo} = Σ_{i_hi} m_{i_lo + 2^d·i_hi} · Π_{j ∈ bits(i_hi)} ŝ_{d+j}(x_p)`:
//! a weighted sum of the message's 2^(m−d) aligned blocks of rows, read piece by piece.

use std::io;
use std::sync::Mutex;

use ntt_kernels::{Backend, Gf64};
use ntt_pcs::{Domain, MessageLayout};
use ntt_runtime::ThreadPool;

use crate::source::MessageSource;
use crate::split::Split;

/// Words of the folded message one task computes: 512 KiB, so its reads are large and the
/// pieces many enough for every worker.
const PIECE_WORDS: usize = 1 << 16;

/// ŝ_0(x), …, ŝ_{count−1}(x) for the basis `basis`: s_0(X) = X,
/// s_{i+1} = s_i·(s_i + s_i(β_i)), each normalised by s_i(β_i).
fn normalized_subspace_values(basis: &[u64], x: u64, count: usize) -> Vec<Gf64> {
    let mut at_point = Gf64(x);
    let mut at_basis: Vec<Gf64> = basis[..count].iter().map(|&b| Gf64(b)).collect();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        out.push(at_point * at_basis[i].inverse());
        let s_beta = at_basis[i];
        at_point = at_point * (at_point + s_beta);
        for b in at_basis.iter_mut() {
            *b = *b * (*b + s_beta);
        }
    }
    out
}

/// The weight of each of the message's 2^(m−d) blocks in this rank's folded message.
pub fn fold_weights(split: &Split, domain: &Domain) -> Vec<u64> {
    let d = split.log_share_rows() as usize;
    let m = split.shape().log_message_rows() as usize;
    if m <= d {
        return vec![1];
    }
    let s_hat = normalized_subspace_values(&domain.basis().vectors(), domain.point(split.first_row()), m);
    let mut weights = vec![Gf64::ONE];
    for c in &s_hat[d..m] {
        let doubled: Vec<Gf64> = weights.iter().map(|w| *w * *c).collect();
        weights.extend(doubled);
    }
    weights.into_iter().map(|w| w.0).collect()
}

/// The message this rank encodes, in `layout`: the whole message read from `source`, or its
/// fold onto the share (2^d rows) when the share is less than a coset, computed on `pool` in
/// column pieces (each reads its columns of every block, weighs and adds them).
///
/// # Errors
/// The source's read errors.
pub fn share_message(
    split: &Split,
    domain: &Domain,
    layout: MessageLayout,
    source: &(impl MessageSource + Sync + ?Sized),
    (pool, backend): (&ThreadPool, Backend),
) -> io::Result<Vec<u64>> {
    let shape = split.shape();
    let lanes = shape.lanes();
    if split.log_fold() == 0 {
        let mut msg = vec![0u64; shape.message_words()];
        source.read_words(0, &mut msg)?;
        return Ok(msg);
    }
    let share_rows = 1usize << split.log_share_rows();
    // The message as segments of 2^(m−d) blocks each: one segment of row blocks (row-major),
    // or one per lane (lane-major). A block is a power of two times the lanes (or 1), so pieces
    // of `block >> s` words tile it.
    let block = match layout {
        MessageLayout::Rows => share_rows * lanes,
        _ => share_rows,
    };
    let shrink = (block / PIECE_WORDS)
        .max(1)
        .trailing_zeros()
        .min(split.log_share_rows());
    let piece = block >> shrink;
    let weights = fold_weights(split, domain);
    let blocks = weights.len();
    let mut acc = vec![0u64; lanes * share_rows];
    let failed: Mutex<Option<io::Error>> = Mutex::new(None);
    pool.chunks_mut(&mut acc, piece, |i, out, _| {
        let at = i * piece;
        let (segment, column) = (at / block, at % block);
        let mut buf = vec![0u64; out.len()];
        for (b, &w) in weights.iter().enumerate() {
            let offset = ((segment * blocks + b) * block + column) as u64;
            if let Err(e) = source.read_words(offset, &mut buf) {
                failed.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                return;
            }
            if w != 1 {
                backend.mul_row(&mut buf, w);
            }
            out.iter_mut().zip(&buf).for_each(|(o, p)| *o ^= p);
        }
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(acc),
    }
}
