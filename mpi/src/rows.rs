//! The row tree over MPI: Plonky3's `MerkleTreeMmcs` of the codeword, computed by the ranks.
//!
//! A row tree's digests do not depend on where a row sits: a leaf is the hash of the row's
//! bytes, a node the hash of its two children. So rank p's `2^d` aligned rows are exactly
//! subtree p at level `d` of the codeword's tree, and each rank commits its share as a codeword
//! of its own, hashing rows in the encoder's tasks as one machine does. A rank sends rank 0 the
//! digests at the top of its subtree: its root, or, when the cap is wider than the ranks are
//! many (`2^c > P`), its `2^(c − k)` digests of the cap. Rank 0 hashes the `k − c` levels above
//! the shares (if any) into the cap and sends the cap to every rank: `32 · 2^c` bytes.
//!
//! An opening walks each rank's subtree for the opened rows it owns (the siblings below the
//! shares' tops lie inside the owner's subtree: aligned subtrees pair only with their own
//! nodes), and rank 0 walks the levels above, kept from the commit.

use std::collections::HashMap;

use mpi::traits::*;
use ntt_pcs::HashKind;
use ntt_pcs::ntt_verify::fold_to_cap;
use ntt_pcs::ntt_verify::row_hash::{Digest, leaf_digest, node_digest};
use ntt_pcs::{
    CommitParams, Commitment, Committer, Encoder, Expansion, MessageLayout, ProverData, RowOpening, Scheme,
};

use crate::comm::{self, Traffic};
use crate::error::Error;
use crate::share::ShareError;
use crate::split::Split;
use crate::tree::TreeError;

/// A rank's share committed as a row tree of its own.
#[derive(Debug)]
pub(crate) struct RowShare {
    /// The share's rows and its subtree, up to the share's top.
    pub data: ProverData,
    /// Levels of the codeword's tree between the shares' tops and the cap (rank 0 only; empty
    /// elsewhere, and when every rank's top is already part of the cap).
    pub upper: Vec<Vec<Digest>>,
}

/// Log of the number of ranks.
fn log_ranks(split: &Split) -> u32 {
    split.shape().log_rows() - split.log_share_rows()
}

/// The cap height a rank commits its share with: the part of the codeword's cap inside its
/// subtree (0, its root alone, when the cap is no wider than the ranks are many).
fn share_cap_height(split: &Split, scheme: Scheme) -> u32 {
    let cap = scheme.cap_height().min(split.shape().log_rows());
    cap.saturating_sub(log_ranks(split))
}

/// Encodes this rank's share from `msg` (as [`crate::encode_share`] does) and commits to it
/// with a row tree of `scheme`'s hash, whose top is this rank's part of the codeword's tree.
pub(crate) fn commit_share(
    encoder: &Encoder,
    split: &Split,
    msg: &[u64],
    layout: MessageLayout,
    scheme: Scheme,
) -> Result<ProverData, ShareError> {
    let share_scheme = Scheme::rows(scheme.hash(), share_cap_height(split, scheme))
        .expect("no higher than the codeword's cap");
    let params = CommitParams::lanes(split.shape().lanes())
        .log_inv_rate(split.share_log_inv_rate())
        .layout(layout)
        .scheme(share_scheme);
    let committer = Committer::new(encoder.clone().with_domain(split.share_domain(encoder.domain())))
        // The whole codeword's expansion was checked; a share's rate is never lower.
        .with_expansion(Expansion::Unbounded);
    let (_, data) = committer.commit(msg, params)?;
    Ok(data)
}

/// Rank 0 gathers every rank's top digests, hashes them up to the cap and sends the cap to all.
/// Returns the commitment and, on rank 0, the levels it hashed.
pub(crate) fn merge_cap<C: Communicator>(
    world: &C,
    split: &Split,
    scheme: Scheme,
    share: &ProverData,
    traffic: &mut Traffic,
) -> Result<(Commitment, Vec<Vec<Digest>>), Error> {
    let shape = split.shape().codeword();
    let cap_len = scheme.cap_len(shape.log_rows());
    let gathered = comm::gather_bytes(world, share.commitment().cap().as_flattened().to_vec(), traffic);
    // Status byte (0: the cap follows), then the cap.
    let mut message = vec![0u8; 1 + 32 * cap_len];
    let mut upper = Ok(Vec::new());
    if world.rank() == 0 {
        upper = fold_tops(scheme.hash(), share.commitment().cap().len(), cap_len, &gathered).map(
            |(cap, levels)| {
                message[1..].copy_from_slice(cap.as_flattened());
                levels
            },
        );
        // Every rank waits for the broadcast, so rank 0 sends one even when it failed.
        message[0] = u8::from(upper.is_err());
    }
    comm::broadcast(world, &mut message, traffic);
    let upper = upper?;
    if message[0] != 0 {
        return Err(Error::OtherRank {
            rank: 0,
            bad_input: false,
        });
    }
    let cap = message[1..]
        .chunks_exact(32)
        .map(|d| Digest::try_from(d).expect("32 bytes"))
        .collect();
    let commitment = Commitment::with_cap(scheme, cap, shape)
        .map_err(|_| TreeError::Malformed)?
        .with_basis(share.commitment().basis());
    Ok((commitment, upper))
}

/// Rank 0's part of [`merge_cap`]: the ranks' `tops` digests each, in rank order, hashed up to
/// `cap_len` digests. Returns the cap and the levels from the shares' tops up to below the cap.
fn fold_tops(
    hash: HashKind,
    tops: usize,
    cap_len: usize,
    gathered: &[Vec<u8>],
) -> Result<(Vec<Digest>, Vec<Vec<Digest>>), TreeError> {
    let mut level: Vec<Digest> = Vec::with_capacity(tops * gathered.len());
    for bytes in gathered {
        if bytes.len() != 32 * tops {
            return Err(TreeError::Malformed);
        }
        level.extend(
            bytes
                .chunks_exact(32)
                .map(|d| Digest::try_from(d).expect("32 bytes")),
        );
    }
    if !level.len().is_power_of_two() || level.len() < cap_len {
        return Err(TreeError::Malformed);
    }
    let mut upper = Vec::new();
    while level.len() > cap_len {
        let parents = level
            .chunks_exact(2)
            .map(|pair| node_digest(hash, &pair[0], &pair[1]))
            .collect();
        upper.push(std::mem::replace(&mut level, parents));
    }
    Ok((level, upper))
}

/// Opens `rows` (checked: in range, not empty) of a row-tree commitment: each rank opens the
/// rows it owns in its subtree and sends rank 0 that opening; rank 0 puts the proof together.
pub(crate) fn open<C: Communicator>(
    world: &C,
    split: &Split,
    commitment: &Commitment,
    share: &RowShare,
    rows: &[u64],
) -> Result<Option<RowOpening>, Error> {
    let first = split.first_row();
    let end = first + (1u64 << split.log_share_rows());
    let mine: Vec<usize> = rows
        .iter()
        .filter(|&&r| (first..end).contains(&r))
        .map(|&r| (r - first) as usize)
        .collect();
    let (local, failure) = if mine.is_empty() {
        (Vec::new(), None)
    } else {
        match share.data.open(&mine) {
            Ok(opening) => (opening.to_bytes(), None),
            Err(e) => (Vec::new(), Some(e)),
        }
    };
    // Every rank takes part in the gather, even one that failed (rank 0 then finds rows missing).
    let mut traffic = Traffic::default();
    let gathered = comm::gather_bytes(world, local, &mut traffic);
    if let Some(e) = failure {
        return Err(Error::Rows(e.to_string()));
    }
    if world.rank() != 0 {
        return Ok(None);
    }
    Ok(Some(assemble(split, commitment, &share.upper, &gathered, rows)?))
}

/// Rank 0's part of [`open`]: the proof of `rows` from each rank's opening of the rows it owns
/// (`gathered`, in rank order; empty where a rank owns none) and the levels above the shares.
fn assemble(
    split: &Split,
    commitment: &Commitment,
    upper: &[Vec<Digest>],
    gathered: &[Vec<u8>],
    rows: &[u64],
) -> Result<RowOpening, TreeError> {
    let scheme = commitment.scheme();
    let hash = scheme.hash();
    let log_rows = split.shape().log_rows();
    let d = split.log_share_rows();
    let share_levels = d - share_cap_height(split, scheme);

    // Every opened row (its values and leaf digest) and every sibling below the shares' tops,
    // by global position.
    let mut opened: Vec<(u64, Vec<u64>, Digest)> = Vec::new();
    let mut below: HashMap<(u32, u64), Digest> = HashMap::new();
    for (rank, bytes) in gathered.iter().enumerate() {
        if bytes.is_empty() {
            continue;
        }
        let opening = RowOpening::from_bytes(bytes).map_err(|_| TreeError::Malformed)?;
        let lanes = opening.lanes() as usize;
        let mut distinct = opening.rows().to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let offset = (rank as u64) << d;
        let leaves = distinct
            .iter()
            .zip(opening.values().chunks_exact(lanes.max(1)))
            .map(|(&r, row)| {
                let leaf = leaf_digest(hash, row);
                opened.push((offset + r, row.to_vec(), leaf));
                (r, leaf)
            })
            .collect();
        let mut siblings = opening.siblings().iter();
        fold_to_cap(hash, share_levels, leaves, |h, i| {
            let digest = *siblings.next().ok_or(TreeError::Malformed)?;
            below.insert((h, ((rank as u64) << (d - h)) + i), digest);
            Ok::<_, TreeError>(digest)
        })?
        .ok_or(TreeError::Malformed)?;
    }
    opened.sort_unstable_by_key(|(r, _, _)| *r);
    let mut wanted = rows.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    if !opened.iter().map(|(r, _, _)| *r).eq(wanted) {
        return Err(TreeError::Malformed);
    }

    // The codeword's walk, as one machine's: siblings from the shares below their tops, from
    // the levels rank 0 hashed above them.
    let leaves = opened.iter().map(|&(r, _, leaf)| (r, leaf)).collect();
    let cap_levels = log_rows - scheme.cap_height().min(log_rows);
    let mut siblings = Vec::new();
    let reached = fold_to_cap(hash, cap_levels, leaves, |h, i| {
        let digest = if h < share_levels {
            below.get(&(h, i)).copied()
        } else {
            upper
                .get((h - share_levels) as usize)
                .and_then(|level| level.get(i as usize))
                .copied()
        }
        .ok_or(TreeError::Malformed)?;
        siblings.push(digest);
        Ok::<_, TreeError>(digest)
    })?
    .ok_or(TreeError::Malformed)?;
    if reached
        .iter()
        .any(|&(i, digest)| commitment.cap().get(i as usize) != Some(&digest))
    {
        return Err(TreeError::Malformed);
    }
    Ok(RowOpening::new(
        scheme,
        log_rows,
        split.shape().lanes() as u64,
        rows.to_vec(),
        opened.into_iter().flat_map(|(_, row, _)| row).collect(),
        siblings,
    ))
}

#[cfg(test)]
mod tests {
    //! Every rank's share, committed here one rank after another without MPI, folds into the
    //! cap one machine commits to, and the ranks' openings make one machine's proof bytes.

    use super::*;
    use crate::fold::share_message;
    use ntt_pcs::{Domain, Shape};
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    struct Case {
        lanes: usize,
        log_inv_rate: u32,
        layout: MessageLayout,
        scheme: Scheme,
        ranks: usize,
    }

    fn check(encoder: &Encoder, witness: &[u64], case: &Case, opened: &[u64]) {
        let params = CommitParams::lanes(case.lanes)
            .log_inv_rate(case.log_inv_rate)
            .layout(case.layout)
            .scheme(case.scheme);
        let (expected, prover) = Committer::new(encoder.clone()).commit(witness, params).unwrap();
        let shape =
            Shape::of_witness(witness.len(), case.lanes, case.log_inv_rate, Expansion::Bounded).unwrap();
        let label = format!(
            "{} lanes, rate 1/2^{}, {:?}, {:?}, {} ranks, {} words",
            case.lanes,
            case.log_inv_rate,
            case.layout,
            case.scheme,
            case.ranks,
            witness.len()
        );
        let mut splits = Vec::new();
        let mut shares = Vec::new();
        for rank in 0..case.ranks {
            let split = Split::new(shape, case.ranks, rank, encoder.domain(), case.scheme).unwrap();
            let pool = (encoder.pool().as_ref(), encoder.backend());
            let msg = share_message(&split, encoder.domain(), case.layout, witness, pool).unwrap();
            shares.push(commit_share(encoder, &split, &msg, case.layout, case.scheme).unwrap());
            splits.push(split);
        }
        let rows: Vec<u64> = shares.iter().flat_map(|s| s.codeword().iter().copied()).collect();
        assert_eq!(rows, prover.codeword(), "{label}");

        let tops = shares[0].commitment().cap().len();
        let gathered: Vec<Vec<u8>> = shares
            .iter()
            .map(|s| s.commitment().cap().as_flattened().to_vec())
            .collect();
        let cap_len = case.scheme.cap_len(shape.log_rows());
        let (cap, upper) = fold_tops(case.scheme.hash(), tops, cap_len, &gathered).unwrap();
        assert_eq!(cap, expected.cap(), "{label}");

        let openings: Vec<Vec<u8>> = splits
            .iter()
            .zip(&shares)
            .map(|(split, share)| {
                let first = split.first_row();
                let mine: Vec<usize> = opened
                    .iter()
                    .filter(|&&r| r >> split.log_share_rows() == split.rank() as u64)
                    .map(|&r| (r - first) as usize)
                    .collect();
                if mine.is_empty() {
                    Vec::new()
                } else {
                    share.open(&mine).unwrap().to_bytes()
                }
            })
            .collect();
        let proof = assemble(&splits[0], &expected, &upper, &openings, opened).unwrap();
        let one_machine: Vec<usize> = opened.iter().map(|&r| r as usize).collect();
        assert_eq!(
            proof.to_bytes(),
            prover.open(&one_machine).unwrap().to_bytes(),
            "{label}, rows {opened:?}"
        );
        // A rank whose opening went missing makes no proof.
        if let Some(k) = openings.iter().position(|o| !o.is_empty()) {
            let mut short = openings.clone();
            short[k].clear();
            assert!(
                assemble(&splits[0], &expected, &upper, &short, opened).is_err(),
                "{label}"
            );
        }
    }

    #[test]
    fn shares_make_one_machines_cap_and_proofs() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let domains = [Domain::polynomial(), Domain::cantor()];
        let encoder = |case: usize| {
            Encoder::builder()
                .workers(2)
                .build()
                .unwrap()
                .with_domain(domains[case % 2].clone())
        };
        let mut checked = 0;
        for n in 0..40 {
            let encoder = encoder(n);
            let lanes = [1, 2, 3, 5, 8, 64][rng.random_range(0..6)];
            let log_inv_rate = rng.random_range(0..=3);
            let log_message_rows = rng.random_range(0..=9u32);
            let layout = if rng.random_bool(0.5) {
                MessageLayout::Lanes
            } else {
                MessageLayout::Rows
            };
            let hash = if rng.random_bool(0.5) {
                HashKind::Keccak
            } else {
                HashKind::Blake3
            };
            let witness: Vec<u64> = (0..lanes << log_message_rows).map(|_| rng.random()).collect();
            let log_rows = log_message_rows + log_inv_rate;
            let rows = 1u64 << log_rows;
            let mut opened: Vec<u64> = (0..rng.random_range(1..6))
                .map(|_| rng.random_range(0..rows))
                .collect();
            opened.push(rows - 1);
            opened.push(opened[0]);
            for log_ranks in 0..=log_rows.min(5) {
                let case = Case {
                    lanes,
                    log_inv_rate,
                    layout,
                    scheme: Scheme::rows(hash, rng.random_range(0..=5)).unwrap(),
                    ranks: 1 << log_ranks,
                };
                check(&encoder, &witness, &case, &opened);
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} splits were checked");
    }
}
