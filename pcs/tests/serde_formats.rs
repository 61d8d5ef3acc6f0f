//! `Commitment` and `Opening` through serde: hex strings in human-readable formats (JSON), raw
//! bytes in binary ones (postcard), exact round trips in both.

mod common;

use common::{encoder, words};
use ntt_kernels::Backend;
use ntt_pcs::{CommitParams, Commitment, Committer, OpenError, Opening, Proof, ProverData, verify};

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

fn committed() -> (Commitment, Opening) {
    let committer = Committer::new(encoder(1, Backend::detect()));
    let (commitment, prover) = committer
        .commit(&words(5, 4 << 8), CommitParams::lanes(4).log_inv_rate(1))
        .expect("commits");
    let opening = prover.open_chunks(&[1, 300]).expect("opens");
    (commitment, opening)
}

#[test]
fn json_writes_bytes_as_hex_and_round_trips() {
    let (commitment, opening) = committed();
    let json = serde_json::to_value(&commitment).expect("serializes");
    assert_eq!(json["root"], commitment.root_hex());
    let back: Commitment = serde_json::from_value(json).expect("deserializes");
    assert_eq!(back, commitment);

    let json = serde_json::to_value(&opening).expect("serializes");
    let siblings = json["siblings"].as_array().expect("a list");
    assert!(!siblings.is_empty());
    assert!(siblings.iter().all(|s| s.as_str().is_some_and(|s| s.len() == 64)));
    let chunks = json["chunks"].as_str().expect("one hex string");
    assert_eq!(hex::decode(chunks).expect("hex").len() % 1024, 0);
    let back: Opening = serde_json::from_value(json).expect("deserializes");
    assert_eq!(back, opening);
    verify(&commitment, &[1, 300], &back).expect("the round-tripped opening verifies");
}

#[test]
fn binary_formats_carry_raw_bytes_and_round_trip() {
    let (commitment, opening) = committed();
    let bytes = postcard::to_allocvec(&commitment).expect("serializes");
    // A version varint, 1 length byte + 32 root bytes, two varints and the basis: no hex
    // doubling.
    assert!(bytes.len() <= 1 + 1 + 32 + 5 + 10 + 1, "{} bytes", bytes.len());
    assert!(bytes.windows(32).any(|w| w == commitment.root()), "the raw root");
    let back: Commitment = postcard::from_bytes(&bytes).expect("deserializes");
    assert_eq!(back, commitment);

    let bytes = postcard::to_allocvec(&opening).expect("serializes");
    let compact = opening.to_bytes();
    // The serde form holds the same payload as the compact format, plus a few length prefixes.
    assert!(
        bytes.len() < compact.len() + 64,
        "{} vs {}",
        bytes.len(),
        compact.len()
    );
    let back: Opening = postcard::from_bytes(&bytes).expect("deserializes");
    assert_eq!(back, opening);
    verify(&commitment, &[1, 300], &back).expect("the round-tripped opening verifies");
}

#[test]
fn malformed_bytes_are_errors_not_panics() {
    let (commitment, _) = committed();
    let mut json = serde_json::to_value(&commitment).expect("serializes");
    json["root"] = "abcd".into();
    assert!(serde_json::from_value::<Commitment>(json).is_err());

    let mut bytes = postcard::to_allocvec(&commitment).expect("serializes");
    bytes[0] = 31; // a 31-byte root
    bytes.remove(1);
    assert!(postcard::from_bytes::<Commitment>(&bytes).is_err());
}
