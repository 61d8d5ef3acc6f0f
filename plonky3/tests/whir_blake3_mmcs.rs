//! Plonky3's binary WHIR end to end on the engine: `EngineNtt` for the NTT and `Blake3Mmcs` in
//! place of the Keccak `MerkleTreeMmcs`. The proof verifies (with Plonky3's own `LchNtt` domain
//! on the verifier's side), equals byte for byte the proof made with `LchNtt` and the same Mmcs,
//! and is refused once its final polynomial, an opened row, an opening's chunk bytes or
//! siblings, or the commitment is tampered with. Setups (hash challenger, prefix and suffix
//! provers, folding schedules) as in `whir.rs`, Plonky3's own WHIR test setups.

mod common;

use common::{Challenger, Instance, challenger};
use ntt_plonky3::{Blake3Mmcs, Blake3Proof, EngineNtt};
use p3_binary_field::{Poly64, Poly192};
use p3_binary_pcs::whir::BinaryWhirDomain;
use p3_commit::MultilinearPcs;
use p3_field::PrimeCharacteristicRing;
use p3_sumcheck::layout::{Layout, PrefixProver, SuffixProver, Witness};
use p3_whir::{PcsProof, QueryOpenings, WhirProver};

type PlonkyDomain = BinaryWhirDomain;
type EngineDomain = BinaryWhirDomain<Poly64, EngineNtt>;
type Pcs<D, L> = WhirProver<Poly192, Poly64, D, Blake3Mmcs, Challenger, L>;
type Proof = PcsProof<Poly64, Poly192, Blake3Mmcs>;

/// Commits and opens with `pcs`; returns the commitment, the serialised proof, and the proof.
fn prove<P>(pcs: &P, witness: P::Witness, protocol: P::OpeningProtocol) -> (P::Commitment, Vec<u8>, P::Proof)
where
    P: MultilinearPcs<Poly192, Challenger, Val = Poly64>,
{
    let mut challenger = challenger();
    let (commitment, data) = pcs.commit(witness, &mut challenger).expect("commit");
    let proof = pcs.open(data, protocol, &mut challenger).expect("open");
    let bytes = postcard::to_allocvec(&proof).expect("serialise");
    (commitment, bytes, proof)
}

/// The query openings of the first round that has them (the final round's when no other has).
fn first_openings(proof: &mut Proof) -> &mut QueryOpenings<Poly64, Poly192, Blake3Proof> {
    match proof.whir.rounds.first_mut() {
        Some(round) => &mut round.openings,
        None => &mut proof.whir.final_openings,
    }
}

/// Adds one to the first value of the first opened row.
fn change_first_row(openings: &mut QueryOpenings<Poly64, Poly192, Blake3Proof>) {
    match openings {
        QueryOpenings::Base(o) => o.rows[0][0] += Poly64::ONE,
        QueryOpenings::Extension(o) => o.rows[0][0] += Poly192::ONE,
    }
}

/// The Mmcs proof of some query openings.
fn mmcs_proof(openings: &mut QueryOpenings<Poly64, Poly192, Blake3Proof>) -> &mut Blake3Proof {
    match openings {
        QueryOpenings::Base(o) => &mut o.proof,
        QueryOpenings::Extension(o) => &mut o.proof,
    }
}

/// Proves `instance` with the engine's NTT and with Plonky3's, both with `Blake3Mmcs`; checks
/// that the proofs are the same bytes, that Plonky3's domain verifies the engine's proof, and
/// that tampered proofs and commitments are refused.
fn check<L: Layout<Poly64, Poly192>>(instance: &Instance, witness: impl Fn() -> Witness<Poly64>) {
    let ntt = EngineNtt::with_workers(2);
    let mmcs = Blake3Mmcs::sharing_pool_of(&ntt);
    let plonky_domain = PlonkyDomain::default();
    let engine_domain = EngineDomain::new(ntt);
    let committed = witness().num_variables();
    let plonky: Pcs<PlonkyDomain, L> = Pcs::new(
        instance.config(committed, &plonky_domain),
        plonky_domain,
        mmcs.clone(),
    );
    let engine: Pcs<EngineDomain, L> =
        Pcs::new(instance.config(committed, &engine_domain), engine_domain, mmcs);

    let (commitment, engine_bytes, proof) = prove(&engine, witness(), instance.protocol());
    let (plonky_commitment, plonky_bytes, _) = prove(&plonky, witness(), instance.protocol());
    assert!(
        commitment == plonky_commitment,
        "{instance:?}: commitments differ"
    );
    assert!(engine_bytes == plonky_bytes, "{instance:?}: proofs differ");

    let verify = |proof: &Proof, commitment| {
        plonky
            .verify(commitment, proof, &mut challenger(), instance.protocol())
            .is_ok()
    };
    let decoded: Proof = postcard::from_bytes(&engine_bytes).expect("deserialise");
    assert!(
        verify(&decoded, &commitment),
        "{instance:?}: the proof does not verify"
    );

    let mut tampered = proof.clone();
    common::change_final_poly(&mut tampered);
    assert!(
        !verify(&tampered, &commitment),
        "{instance:?}: a changed final polynomial verifies"
    );

    let mut tampered = proof.clone();
    change_first_row(first_openings(&mut tampered));
    assert!(
        !verify(&tampered, &commitment),
        "{instance:?}: a changed opened row verifies"
    );

    // Chunk bytes besides the opened rows, and siblings, exist unless the queries cover a whole
    // small codeword; instances of 12 variables and more have both.
    let mut tampered = proof.clone();
    let rest = &mut mmcs_proof(first_openings(&mut tampered)).openings[0].rest;
    assert!(
        instance.num_variables < 12 || !rest.is_empty(),
        "{instance:?}: no chunk bytes to change"
    );
    if let Some(byte) = rest.last_mut() {
        *byte ^= 1;
        assert!(
            !verify(&tampered, &commitment),
            "{instance:?}: changed chunk bytes verify"
        );
    }
    let mut tampered = proof.clone();
    let siblings = &mut mmcs_proof(first_openings(&mut tampered)).openings[0].siblings;
    assert!(
        instance.num_variables < 12 || !siblings.is_empty(),
        "{instance:?}: no sibling to change"
    );
    if let Some(sibling) = siblings.last_mut() {
        sibling[0] ^= 1;
        assert!(
            !verify(&tampered, &commitment),
            "{instance:?}: a changed sibling verifies"
        );
    }

    let mut root = *commitment.as_ref();
    root[31] ^= 1;
    assert!(
        !verify(&proof, &root.into()),
        "{instance:?}: another commitment verifies"
    );
}

common::whir_schedule_tests!(check);
