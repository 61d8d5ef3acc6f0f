//! Openings of committed codewords: round trips, tampering, malformed proofs.

use ntt_pcs::{CodewordShape, CodewordShapeError};
use ntt_pcs::{
    Commitment, OpenError, Opening, Proof, ProofDecodeError, ProverData, VerifyError, commit_codeword, verify,
};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};

/// A chunk-tree commitment's opening, as the chunk tree's own type.
trait OpenChunks {
    fn open_chunks(&self, rows: &[usize]) -> Result<Opening, OpenError>;
}

impl OpenChunks for ProverData {
    fn open_chunks(&self, rows: &[usize]) -> Result<Opening, OpenError> {
        self.open(rows).map(|proof| match proof {
            Proof::Chunks(opening) => opening,
            _ => panic!("a chunk-tree proof"),
        })
    }
}

fn committed(rng: &mut ChaCha8Rng, log_rows: u32, lanes: usize) -> (Commitment, ProverData) {
    let codeword: Vec<u64> = (0..lanes << log_rows).map(|_| rng.random()).collect();
    commit_codeword(codeword, lanes).expect("valid shape")
}

fn row(prover: &ProverData, r: usize) -> Vec<u64> {
    let lanes = prover.commitment().lanes();
    prover.codeword()[r * lanes..][..lanes].to_vec()
}

/// Random index sets with the edge cases: first, last, repeats, unsorted.
fn index_sets(rng: &mut ChaCha8Rng, rows: usize) -> Vec<Vec<usize>> {
    let mut sets = vec![vec![0], vec![rows - 1], vec![rows - 1, 0, rows - 1, 0]];
    for _ in 0..4 {
        let n = rng.random_range(1..=8);
        sets.push((0..n).map(|_| rng.random_range(0..rows)).collect());
    }
    let all: Vec<usize> = (0..rows).collect();
    sets.push(all.sample(rng, rows.min(40)).copied().collect());
    sets
}

#[test]
fn openings_verify_and_return_the_rows_asked() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for lanes in [1usize, 2, 3, 5, 7, 16, 17, 31, 64, 70, 129, 300] {
        for log_rows in [0u32, 1, 2, 4, 6, 9, 12] {
            let (commitment, prover) = committed(&mut rng, log_rows, lanes);
            for rows in index_sets(&mut rng, 1 << log_rows) {
                let opening = prover.open_chunks(&rows).expect("rows in range");
                let decoded = Opening::from_bytes(&opening.to_bytes()).expect("own encoding decodes");
                assert_eq!(decoded, opening);
                let got = verify(&commitment, &rows, &decoded)
                    .unwrap_or_else(|e| panic!("lanes {lanes} log_rows {log_rows} rows {rows:?}: {e}"));
                let want: Vec<Vec<u64>> = rows.iter().map(|&r| row(&prover, r)).collect();
                assert_eq!(got, want);
            }
        }
    }
}

#[test]
fn shared_siblings_are_sent_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (_, prover) = committed(&mut rng, 12, 64); // 2 rows per chunk, 2^11 chunks, top = 11
    let single = prover.open_chunks(&[100]).expect("in range");
    assert_eq!(single.siblings().len(), 11);
    let pair = prover.open_chunks(&[100, 102]).expect("in range"); // neighbouring chunks: siblings shared
    assert_eq!(pair.siblings().len(), 10);
    let same_chunk = prover.open_chunks(&[100, 101, 100]).expect("in range");
    assert_eq!(same_chunk.siblings().len(), 11);
    assert_eq!(same_chunk.chunk_bytes().len(), 1024);
}

fn tamper_cases() -> Vec<(Commitment, ProverData, Vec<usize>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut cases = Vec::new();
    for (log_rows, lanes, rows) in [
        (0u32, 3usize, vec![0usize]), // a single short chunk: the root is the chunk
        (3, 3, vec![7, 0]),           // 192 bytes
        (7, 3, vec![5, 127, 5, 60]),  // 3 KiB: straddling chunks
        (9, 5, vec![0, 511, 200]),    // 20 KiB, odd lanes
        (6, 70, vec![63, 1, 2]),      // 560-byte rows
        (2, 300, vec![3, 1]),         // rows of several chunks
    ] {
        let (commitment, prover) = committed(&mut rng, log_rows, lanes);
        cases.push((commitment, prover, rows));
    }
    cases
}

#[test]
fn every_bit_flip_in_the_proof_is_rejected() {
    for (commitment, prover, rows) in tamper_cases() {
        let bytes = prover.open_chunks(&rows).expect("in range").to_bytes();
        for bit in 0..bytes.len() * 8 {
            let mut forged = bytes.clone();
            forged[bit / 8] ^= 1 << (bit % 8);
            if let Ok(opening) = Opening::from_bytes(&forged) {
                assert!(
                    verify(&commitment, &rows, &opening).is_err(),
                    "flip of bit {bit} accepted"
                );
            }
        }
    }
}

#[test]
fn every_bit_flip_in_the_root_the_shape_or_the_indices_is_rejected() {
    for (commitment, prover, rows) in tamper_cases() {
        let opening = prover.open_chunks(&rows).expect("in range");
        verify(&commitment, &rows, &opening).expect("honest opening verifies");
        for bit in 0..256 {
            let mut root = commitment.root();
            root[bit / 8] ^= 1 << (bit % 8);
            let forged = Commitment::new(root, commitment.shape());
            assert_eq!(verify(&forged, &rows, &opening), Err(VerifyError::RootMismatch));
        }
        for bit in 0..32 {
            // A shape outside the limits cannot even be a commitment.
            if let Ok(shape) = CodewordShape::new(commitment.log_rows() ^ (1 << bit), commitment.lanes()) {
                let forged = Commitment::new(commitment.root(), shape);
                assert!(verify(&forged, &rows, &opening).is_err());
            }
        }
        for bit in 0..usize::BITS {
            if let Ok(shape) = CodewordShape::new(commitment.log_rows(), commitment.lanes() ^ (1 << bit)) {
                let forged = Commitment::new(commitment.root(), shape);
                assert!(verify(&forged, &rows, &opening).is_err());
            }
        }
        for k in 0..rows.len() {
            for bit in 0..usize::BITS {
                let mut asked = rows.clone();
                asked[k] ^= 1 << bit;
                assert!(
                    verify(&commitment, &asked, &opening).is_err(),
                    "index {k} bit {bit}"
                );
            }
        }
    }
}

#[test]
fn truncated_or_extended_proofs_are_decode_errors() {
    for (_, prover, rows) in tamper_cases() {
        let bytes = prover.open_chunks(&rows).expect("in range").to_bytes();
        for len in 0..bytes.len() {
            assert!(matches!(
                Opening::from_bytes(&bytes[..len]),
                Err(ProofDecodeError::Truncated { .. })
            ));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Opening::from_bytes(&longer),
            Err(ProofDecodeError::TrailingBytes(1))
        );
    }
}

#[test]
fn bad_requests_are_clear_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let (commitment, prover) = committed(&mut rng, 4, 3);
    assert_eq!(prover.open_chunks(&[]), Err(OpenError::NoRows));
    assert_eq!(
        prover.open_chunks(&[3, 16]),
        Err(OpenError::RowOutOfRange { row: 16, rows: 16 })
    );
    let opening = prover.open_chunks(&[3]).expect("in range");
    assert_eq!(verify(&commitment, &[], &opening), Err(VerifyError::NoRows));
    assert_eq!(
        verify(&commitment, &[16], &opening),
        Err(VerifyError::RowOutOfRange { row: 16, rows: 16 })
    );
    assert!(matches!(
        verify(&commitment, &[4], &opening),
        Err(VerifyError::RowsMismatch { .. })
    ));
    // Commitments to shapes outside the limits cannot be made, so never reach the verifier.
    assert_eq!(
        CodewordShape::new(commitment.log_rows(), 0),
        Err(CodewordShapeError::ZeroLanes)
    );
    assert!(matches!(
        CodewordShape::new(70, commitment.lanes()),
        Err(CodewordShapeError::TooLarge { .. })
    ));
    let mut other = prover.open_chunks(&[3]).expect("in range").to_bytes();
    other[0] = b'X';
    assert_eq!(Opening::from_bytes(&other), Err(ProofDecodeError::BadMagic));
}

#[test]
fn openings_and_commitments_round_trip_through_json() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let (commitment, prover) = committed(&mut rng, 8, 5);
    let opening = prover.open_chunks(&[9, 200]).expect("in range");
    let json = serde_json::to_string(&opening).expect("serializes");
    assert_eq!(
        serde_json::from_str::<Opening>(&json).expect("deserializes"),
        opening
    );
    let json = serde_json::to_string(&commitment).expect("serializes");
    assert!(json.contains(&commitment.root_hex()));
    assert_eq!(
        serde_json::from_str::<Commitment>(&json).expect("deserializes"),
        commitment
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Opening::from_bytes(&bytes);
    }

    #[test]
    fn decoding_arbitrary_headers_never_panics_or_over_allocates(
        counts in proptest::array::uniform4(any::<u64>()),
        tail in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut bytes = b"B3RO\x01\x00\x00\x00".to_vec();
        bytes.extend_from_slice(&(counts[0] as u32).to_le_bytes());
        for count in counts {
            bytes.extend_from_slice(&count.to_le_bytes());
        }
        bytes.extend_from_slice(&tail);
        let _ = Opening::from_bytes(&bytes);
    }

    #[test]
    fn mutated_proofs_never_panic_and_never_verify(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let (commitment, prover) = committed(&mut rng, 7, 3);
        let rows = [5usize, 127, 5];
        let honest = prover.open_chunks(&rows).expect("in range").to_bytes();
        let mut bytes = honest.clone();
        for (at, value) in edits {
            let at = at.index(bytes.len());
            bytes[at] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        if let Ok(opening) = Opening::from_bytes(&bytes) {
            let result = verify(&commitment, &rows, &opening);
            prop_assert_eq!(result.is_ok(), bytes == honest);
        }
    }
}

#[test]
fn huge_claimed_shapes_fail_fast_without_allocating() {
    // A commitment claiming 2^50 lanes (a 2^56-byte codeword) and an opening forged to match:
    // the verifier sizes the opened chunks (2^43 of them) arithmetically and rejects the proof.
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let (commitment, prover) = committed(&mut rng, 3, 2);
    let lanes: u64 = 1 << 50;
    let claimed = Commitment::new(
        commitment.root(),
        CodewordShape::new(commitment.log_rows(), lanes as usize).expect("2^56 bytes is within the limits"),
    );
    let honest = prover.open_chunks(&[1]).expect("in range");
    assert!(matches!(
        verify(&claimed, &[1], &honest),
        Err(VerifyError::ShapeMismatch { .. })
    ));
    let mut bytes = honest.to_bytes();
    bytes[12..20].copy_from_slice(&lanes.to_le_bytes());
    let forged = Opening::from_bytes(&bytes).expect("structurally fine");
    assert!(matches!(
        verify(&claimed, &[1], &forged),
        Err(VerifyError::ChunkBytes { .. })
    ));
}

#[test]
fn binary_layout_is_as_documented() {
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    let (_, prover) = committed(&mut rng, 7, 3); // 3 KiB: 3 chunks, top = 2
    let opening = prover.open_chunks(&[42, 42]).expect("in range"); // bytes 1008..1032: chunks 0 and 1
    let bytes = opening.to_bytes();
    assert_eq!(&bytes[..8], b"B3RO\x01\x00\x00\x00");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 7);
    let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!((field(12), field(20), field(28), field(36)), (3, 2, 2048, 1));
    assert_eq!((field(44), field(52)), (42, 42));
    assert_eq!(&bytes[60..60 + 2048], opening.chunk_bytes());
    assert_eq!(bytes.len(), 44 + 16 + 2048 + 32);
}
