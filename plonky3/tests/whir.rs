//! Plonky3's binary WHIR end to end with the engine's NTT: commit and open with
//! `BinaryWhirDomain<Poly64, EngineNtt>`, verify with Plonky3's default domain (`LchNtt`), and the
//! serialised commitment and proof equal, byte for byte, those Plonky3 makes from the same seed.
//! The setup (Keccak Merkle tree, hash challenger, prefix and suffix provers, folding schedules)
//! is the one Plonky3's own WHIR tests use.

mod common;

use common::{Challenger, Instance, challenger};
use ntt_plonky3::EngineNtt;
use p3_binary_field::{Poly64, Poly192};
use p3_binary_pcs::whir::{BinaryWhirDomain, recommended_cap_height};
use p3_commit::MultilinearPcs;
use p3_keccak::Keccak256Hash;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_sumcheck::layout::{Layout, PrefixProver, SuffixProver, Witness};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use p3_whir::WhirProver;

type Hash = SerializingHasher<Keccak256Hash>;
type Compress = CompressionFunctionFromHasher<Keccak256Hash, 2, 32>;
type Mmcs = MerkleTreeMmcs<Poly64, u8, Hash, Compress, 2, 32>;
type PlonkyDomain = BinaryWhirDomain;
type EngineDomain = BinaryWhirDomain<Poly64, EngineNtt>;
type Pcs<D, L> = WhirProver<Poly192, Poly64, D, Mmcs, Challenger, L>;

const fn mmcs(cap_height: usize) -> Mmcs {
    Mmcs::new(Hash::new(Keccak256Hash), Compress::new(Keccak256Hash), cap_height)
}

/// Commits and opens with `pcs`; returns the serialised commitment and proof, and the proof.
fn prove<P>(pcs: &P, witness: P::Witness, protocol: P::OpeningProtocol) -> (Vec<u8>, Vec<u8>, P::Proof)
where
    P: MultilinearPcs<Poly192, Challenger, Val = Poly64>,
{
    let mut challenger = challenger();
    let (commitment, data) = pcs.commit(witness, &mut challenger).expect("commit");
    let proof = pcs.open(data, protocol, &mut challenger).expect("open");
    (
        postcard::to_allocvec(&commitment).expect("serialise"),
        postcard::to_allocvec(&proof).expect("serialise"),
        proof,
    )
}

/// Proves `instance` with both NTTs under the layout `L`; checks that Plonky3 verifies the
/// engine's proof, that both proofs are the same bytes, and that a tampered proof is refused.
fn check<L: Layout<Poly64, Poly192>>(instance: &Instance, witness: impl Fn() -> Witness<Poly64>) {
    let plonky_domain = PlonkyDomain::default();
    let engine_domain = EngineDomain::new(EngineNtt::with_workers(2));
    let committed = witness().num_variables();
    let config = instance.config(committed, &plonky_domain);
    let cap = recommended_cap_height(&config);
    let plonky: Pcs<PlonkyDomain, L> = Pcs::new(config, plonky_domain, mmcs(cap));
    let engine: Pcs<EngineDomain, L> = Pcs::new(
        instance.config(committed, &engine_domain),
        engine_domain,
        mmcs(cap),
    );

    let (engine_commitment, engine_bytes, engine_proof) = prove(&engine, witness(), instance.protocol());
    let (plonky_commitment, plonky_bytes, _) = prove(&plonky, witness(), instance.protocol());
    assert!(
        engine_commitment == plonky_commitment,
        "{instance:?}: commitments differ"
    );
    assert!(engine_bytes == plonky_bytes, "{instance:?}: proofs differ");

    let commitment = postcard::from_bytes(&engine_commitment).expect("deserialise");
    plonky
        .verify(&commitment, &engine_proof, &mut challenger(), instance.protocol())
        .expect("Plonky3 verifies the engine's proof");

    let mut tampered = engine_proof;
    common::change_final_poly(&mut tampered);
    assert!(
        plonky
            .verify(&commitment, &tampered, &mut challenger(), instance.protocol())
            .is_err(),
        "{instance:?}: a tampered proof verifies"
    );
}

common::whir_schedule_tests!(check);
