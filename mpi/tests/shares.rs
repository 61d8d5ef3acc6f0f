//! Every rank's share, computed here one rank after another without MPI, merges into the root
//! one machine commits to, and the shares are exactly the codeword's rows: for random shapes,
//! rates, bases, layouts and rank counts, both sides of P = inverse rate (whole cosets, folds).

use ntt_mpi::tree::NodeSet;
use ntt_mpi::{Split, SplitError, encode_share, fold::share_message};
use ntt_pcs::{CommitParams, Committer, Domain, Encoder, Expansion, MessageLayout, Scheme, Shape};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn check(
    encoder: &Encoder,
    witness: &[u64],
    lanes: usize,
    log_inv_rate: u32,
    layout: MessageLayout,
    ranks: usize,
) -> bool {
    let params = CommitParams::lanes(lanes)
        .log_inv_rate(log_inv_rate)
        .layout(layout);
    let (expected, prover) = Committer::new(encoder.clone())
        .commit(witness, params)
        .expect("one machine commits");
    let shape = Shape::of_witness(witness.len(), lanes, log_inv_rate, Expansion::Bounded).unwrap();
    let mut set = NodeSet::new(shape.codeword_bytes());
    let mut rows = Vec::new();
    for rank in 0..ranks {
        let split = match Split::new(shape, ranks, rank, encoder.domain(), Scheme::chunks()) {
            Ok(split) => split,
            Err(SplitError::ShareNotChunkAligned { .. } | SplitError::MoreRanksThanRows { .. }) => {
                return false;
            }
            Err(e) => panic!("{e}"),
        };
        let msg = share_message(
            &split,
            encoder.domain(),
            layout,
            witness,
            (encoder.pool().as_ref(), encoder.backend()),
        )
        .unwrap();
        let share = encode_share(encoder, &split, &msg, layout).unwrap();
        set.extend(share.nodes);
        rows.extend_from_slice(&share.rows);
    }
    let label = format!(
        "{lanes} lanes, rate 1/2^{log_inv_rate}, {layout:?}, {ranks} ranks, {} words",
        witness.len()
    );
    assert_eq!(rows, prover.codeword(), "{label}");
    let bytes: Vec<u8> = rows.iter().flat_map(|w| w.to_le_bytes()).collect();
    let single = (bytes.len() <= 1024).then_some(&bytes[..]);
    assert_eq!(set.root(single).unwrap(), expected.root(), "{label}");
    true
}

#[test]
fn shares_merge_into_one_machines_root() {
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let domains = [
        Domain::polynomial(),
        Domain::cantor(),
        Domain::polynomial().with_shift(0x1234_5678),
        Domain::new(
            ntt_pcs::Basis::custom(
                (0..20)
                    .map(|j| (0x9e37_79b9u64 << j) ^ (1 << (j + 40)))
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
    ];
    let mut checked = 0;
    for case in 0..48 {
        let domain = domains[case % domains.len()].clone();
        let encoder = Encoder::builder().workers(2).build().unwrap().with_domain(domain);
        let lanes = [1, 2, 3, 5, 8, 64][rng.random_range(0..6)];
        let log_inv_rate = rng.random_range(0..=3);
        let log_message_rows = rng.random_range(0..=11u32);
        let layout = if rng.random_bool(0.5) {
            MessageLayout::Lanes
        } else {
            MessageLayout::Rows
        };
        let witness: Vec<u64> = (0..lanes << log_message_rows).map(|_| rng.random()).collect();
        for log_ranks in 0..=6 {
            if check(&encoder, &witness, lanes, log_inv_rate, layout, 1 << log_ranks) {
                checked += 1;
            }
        }
    }
    // Most random cases split several ways; a change that refused them all would fail here.
    assert!(checked > 150, "only {checked} splits were checked");
}

#[test]
fn folds_cover_many_ranks_per_coset() {
    // 2^14 rows at rate 1/2 over 64 ranks: each rank owns 1/32 of a coset.
    let encoder = Encoder::builder().workers(2).build().unwrap();
    let witness: Vec<u64> = (0..8u64 << 13)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    assert!(check(&encoder, &witness, 8, 1, MessageLayout::Lanes, 64));
    assert!(check(&encoder, &witness, 8, 1, MessageLayout::Rows, 64));
}
