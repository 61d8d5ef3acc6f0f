//! The row tree against Plonky3's `MerkleTreeMmcs` (the oracle): same cap, same paths; and the
//! engine's fused commit against committing the finished codeword.

use p3_binary_field::Poly64;
use p3_commit::Mmcs;
use p3_matrix::dense::RowMajorMatrix;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{
    CompressionFunctionFromHasher, CryptographicHasher, PseudoCompressionFunction, SerializingHasher,
};
use proptest::prelude::*;

use crate::commit::commit_codeword_with;
use crate::test_words::words;
use crate::{CommitParams, Committer, Encoder};
use ntt_verify::{HashKind, Proof, Scheme, verify};

type P3Mmcs<H, C> = MerkleTreeMmcs<Poly64, u8, SerializingHasher<H>, C, 2, 32>;

/// Plonky3's cap, and each row's path, for `codeword` as a matrix of width `lanes`, leaves
/// hashed with `h` and nodes with `c`.
fn plonky3<H, C>(
    h: H,
    c: C,
    codeword: &[u64],
    lanes: usize,
    cap_height: usize,
    rows: &[usize],
) -> (Vec<[u8; 32]>, Vec<Vec<[u8; 32]>>)
where
    H: Clone + Sync + CryptographicHasher<u8, [u8; 32]>,
    C: Clone + Sync + PseudoCompressionFunction<[u8; 32], 2>,
{
    let mmcs = P3Mmcs::new(SerializingHasher::new(h), c, cap_height);
    let matrix = RowMajorMatrix::new(codeword.iter().map(|&w| Poly64::new(w)).collect(), lanes);
    let (cap, data) = mmcs.commit_matrix(matrix);
    let paths = rows
        .iter()
        .map(|&r| mmcs.open_batch(r, &data).opening_proof)
        .collect();
    (cap.roots().to_vec(), paths)
}

fn check(hash: HashKind, log_rows: u32, lanes: usize, cap_height: u32, rows: &[usize], seed: u64) {
    let codeword = words(lanes << log_rows, seed);
    let scheme = Scheme::rows(hash, cap_height).expect("cap height in range");
    let (commitment, prover) = commit_codeword_with(codeword.clone(), lanes, scheme).expect("commits");
    let cap_height_p3 = cap_height as usize;
    let (cap, paths) = match hash {
        HashKind::Keccak => {
            let h = p3_keccak::Keccak256Hash;
            let c = CompressionFunctionFromHasher::new(h);
            plonky3(h, c, &codeword, lanes, cap_height_p3, rows)
        }
        HashKind::Blake3 => {
            let h = p3_blake3::Blake3;
            let c = CompressionFunctionFromHasher::new(h);
            plonky3(h, c, &codeword, lanes, cap_height_p3, rows)
        }
        HashKind::Sha256 => {
            let c = p3_sha256::Sha256Compress;
            plonky3(p3_sha256::Sha256, c, &codeword, lanes, cap_height_p3, rows)
        }
    };
    assert_eq!(
        commitment.cap(),
        cap,
        "{hash} 2^{log_rows}x{lanes} cap {cap_height}"
    );

    // One row at a time, the opening's siblings are Plonky3's path.
    for (&row, path) in rows.iter().zip(&paths) {
        let Proof::Rows(opening) = prover.open(&[row]).expect("opens") else {
            panic!("a row-tree proof")
        };
        assert_eq!(opening.siblings(), path.as_slice(), "row {row}");
        assert_eq!(
            verify(&commitment, &[row], &opening).expect("holds"),
            [codeword[row * lanes..(row + 1) * lanes].to_vec()]
        );
    }
    // All together: shared siblings, never more than Plonky3's paths.
    let proof = prover.open(rows).expect("opens");
    let Proof::Rows(opening) = &proof else {
        panic!("a row-tree proof")
    };
    assert!(opening.siblings().len() <= paths.iter().map(Vec::len).sum::<usize>());
    let decoded = Proof::from_bytes(&proof.to_bytes()).expect("decodes");
    let opened = verify(&commitment, rows, &decoded).expect("holds");
    for (&row, words) in rows.iter().zip(opened) {
        assert_eq!(words, codeword[row * lanes..(row + 1) * lanes]);
    }
}

const HASHES: [HashKind; 3] = [HashKind::Blake3, HashKind::Keccak, HashKind::Sha256];

#[test]
fn one_row_codewords_and_every_cap() {
    for hash in HASHES {
        for cap_height in 0..=4 {
            check(hash, 0, 3, cap_height, &[0], 1);
            check(hash, 2, 1, cap_height, &[0, 3, 1], 2);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_row_tree_is_plonky3s(
        which in 0usize..HASHES.len(),
        log_rows in 0u32..9,
        lanes in 1usize..70,
        cap_height in 0u32..=4,
        picks in prop::collection::vec(any::<u64>(), 1..6),
        seed in any::<u64>(),
    ) {
        let hash = HASHES[which];
        let rows: Vec<usize> = picks.iter().map(|p| (p % (1u64 << log_rows)) as usize).collect();
        check(hash, log_rows, lanes, cap_height, &rows, seed);
    }
}

#[test]
fn the_fused_commit_matches_the_finished_codeword_and_forgeries_fail() {
    for workers in [1, 2] {
        let committer = Committer::new(Encoder::builder().workers(workers).build().expect("encoder"));
        for (log_msg_rows, lanes, hash, cap_height) in [
            (7, 8, HashKind::Blake3, 0),
            (8, 64, HashKind::Keccak, 3),
            (10, 3, HashKind::Blake3, 1),
            (12, 16, HashKind::Keccak, 0),
            (9, 5, HashKind::Sha256, 2),
            (11, 64, HashKind::Sha256, 0),
        ] {
            let witness = words(lanes << log_msg_rows, log_msg_rows as u64);
            let scheme = Scheme::rows(hash, cap_height).expect("scheme");
            let params = CommitParams::lanes(lanes).log_inv_rate(1).scheme(scheme);
            let (commitment, prover) = committer.commit(&witness, params).expect("commits");
            let (again, _) =
                commit_codeword_with(prover.codeword().to_vec(), lanes, scheme).expect("commits");
            assert_eq!(
                commitment.cap(),
                again.cap(),
                "2^{log_msg_rows} x {lanes} {hash} on {workers} workers"
            );
            assert_eq!(commitment.scheme(), scheme);

            let rows = [0, 5, 5, 17];
            let proof = prover.open(&rows).expect("opens").to_bytes();
            let proof = Proof::from_bytes(&proof).expect("decodes");
            verify(&commitment, &rows, &proof).expect("holds");
            // A changed word, sibling or row index is refused.
            let Proof::Rows(opening) = proof else {
                panic!("row proof")
            };
            let mut bytes = opening.to_bytes();
            let at = bytes.len() - 1;
            bytes[at] ^= 1;
            let forged = Proof::from_bytes(&bytes).expect("decodes");
            assert!(verify(&commitment, &rows, &forged).is_err());
            let mut bytes = opening.to_bytes();
            bytes[44 + 8 * rows.len()] ^= 1;
            let forged = Proof::from_bytes(&bytes).expect("decodes");
            assert!(verify(&commitment, &rows, &forged).is_err());
            assert!(verify(&commitment, &[0, 5, 5, 16], &opening).is_err());
            // The same rows asked in another order, or with other repeats, are the same request.
            let shuffled = verify(&commitment, &[17, 5, 0], &opening).expect("holds");
            assert_eq!(shuffled[0], prover.codeword()[17 * lanes..18 * lanes]);
            // Every other hash refuses it too.
            for other in HASHES.into_iter().filter(|&h| h != hash) {
                let other = Scheme::rows(other, cap_height).expect("scheme");
                let (other_commitment, _) =
                    commit_codeword_with(prover.codeword().to_vec(), lanes, other).expect("commits");
                assert!(verify(&other_commitment, &rows, &opening).is_err());
            }
            assert!(matches!(prover.open(&rows), Ok(Proof::Rows(_))));
        }
    }
}
