//! Plonky3's binary WHIR with the engine's NTT and the engine's Merkle trees (`KeccakMerkleMmcs`,
//! `Blake3MerkleMmcs`, sharing the NTT's pool and taking the row digests its encoder hashed)
//! against Plonky3's `LchNtt` and `MerkleTreeMmcs` of the same hash: the serialised commitment
//! and proof are the same bytes, and Plonky3's prover verifies the engine's proof read back from
//! them, on Plonky3's own WHIR schedules.

mod common;

use common::{Challenger, Instance, challenger};
use ntt_plonky3::{EngineNtt, MerkleMmcs, PlonkyMerkleMmcs, RowHash};
use p3_binary_field::{Poly64, Poly192};
use p3_binary_pcs::whir::{BinaryWhirDomain, recommended_cap_height};
use p3_blake3::Blake3;
use p3_commit::MultilinearPcs;
use p3_keccak::Keccak256Hash;
use p3_sumcheck::layout::{Layout, PrefixProver, SuffixProver, Witness};
use p3_symmetric::MerkleCap;
use p3_symmetric::SerializingHasher;
use p3_whir::{PcsProof, WhirProver};

type PlonkyDomain = BinaryWhirDomain;
type EngineDomain = BinaryWhirDomain<Poly64, EngineNtt>;
type Pcs<D, M, L> = WhirProver<Poly192, Poly64, D, M, Challenger, L>;

/// Commits and opens with `pcs`; returns the serialised commitment and proof.
fn prove<P>(pcs: &P, witness: P::Witness, protocol: P::OpeningProtocol) -> Vec<u8>
where
    P: MultilinearPcs<Poly192, Challenger, Val = Poly64>,
{
    let mut challenger = challenger();
    let (commitment, data) = pcs.commit(witness, &mut challenger).expect("commit");
    let proof = pcs.open(data, protocol, &mut challenger).expect("open");
    postcard::to_allocvec(&(commitment, proof)).expect("serialise")
}

fn check_hash<H: RowHash, L: Layout<Poly64, Poly192>>(
    instance: &Instance,
    witness: impl Fn() -> Witness<Poly64>,
) {
    let ntt = EngineNtt::with_workers(2);
    let plonky_domain = PlonkyDomain::default();
    let committed = witness().num_variables();
    let config = instance.config(committed, &plonky_domain);
    let cap = recommended_cap_height(&config);
    let mmcs = MerkleMmcs::<H>::sharing_pool_of(&ntt, cap);
    let engine_domain = EngineDomain::new(ntt);
    let oracle = PlonkyMerkleMmcs::<H>::new(SerializingHasher::new(H::HASHER), H::COMPRESS, cap);
    let plonky: Pcs<PlonkyDomain, _, L> = Pcs::new(config, plonky_domain, oracle);
    let engine: Pcs<EngineDomain, _, L> = Pcs::new(
        instance.config(committed, &engine_domain),
        engine_domain,
        mmcs.clone(),
    );

    let engine_bytes = prove(&engine, witness(), instance.protocol());
    let plonky_bytes = prove(&plonky, witness(), instance.protocol());
    assert!(
        engine_bytes == plonky_bytes,
        "{instance:?}, {}: proofs differ",
        H::NAME
    );
    let stats = mmcs.stats();
    // The first codeword, and from 12 variables on a folded round too, come from the encoder.
    let rounds = if instance.num_variables >= 12 { 2 } else { 1 };
    assert!(
        stats.fused >= rounds,
        "{instance:?}: {stats:?}: too few commits were fused"
    );
    assert_eq!(stats.stale, 0);

    type Sent<H> = (
        MerkleCap<Poly64, [u8; 32]>,
        PcsProof<Poly64, Poly192, PlonkyMerkleMmcs<H>>,
    );
    let (commitment, mut proof): Sent<H> = postcard::from_bytes(&engine_bytes).expect("deserialise");
    plonky
        .verify(&commitment, &proof, &mut challenger(), instance.protocol())
        .expect("Plonky3 verifies the engine's proof");
    common::change_final_poly(&mut proof);
    assert!(
        plonky
            .verify(&commitment, &proof, &mut challenger(), instance.protocol())
            .is_err(),
        "{instance:?}: a tampered proof verifies"
    );
}

fn check<L: Layout<Poly64, Poly192>>(instance: &Instance, witness: impl Fn() -> Witness<Poly64>) {
    check_hash::<Keccak256Hash, L>(instance, &witness);
    check_hash::<Blake3, L>(instance, &witness);
    check_hash::<p3_sha256::Sha256, L>(instance, &witness);
}

common::whir_schedule_tests!(check);
