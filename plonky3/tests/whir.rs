//! Plonky3's binary WHIR end to end with the engine's NTT: commit and open with
//! `BinaryWhirDomain<Poly64, EngineNtt>`, verify with Plonky3's default domain (`LchNtt`), and the
//! serialised commitment and proof equal, byte for byte, those Plonky3 makes from the same seed.
//! The setup (Keccak Merkle tree, hash challenger, prefix and suffix provers, folding schedules)
//! is the one Plonky3's own WHIR tests use.

use ntt_plonky3::EngineNtt;
use p3_binary_field::{BinaryChallenger, Poly64, Poly192};
use p3_binary_pcs::whir::{BinaryWhirDomain, recommended_cap_height};
use p3_challenger::HashChallenger;
use p3_commit::MultilinearPcs;
use p3_field::PrimeCharacteristicRing;
use p3_keccak::Keccak256Hash;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_sumcheck::layout::{Layout, PrefixProver, SuffixProver, Table, Witness};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, TableShape, TableSpec};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};
use rand_p3::SeedableRng;
use rand_p3::rngs::SmallRng;

type Hash = SerializingHasher<Keccak256Hash>;
type Compress = CompressionFunctionFromHasher<Keccak256Hash, 2, 32>;
type Mmcs = MerkleTreeMmcs<Poly64, u8, Hash, Compress, 2, 32>;
type Challenger = BinaryChallenger<Poly64, HashChallenger<u8, Keccak256Hash, 32>>;
type PlonkyDomain = BinaryWhirDomain;
type EngineDomain = BinaryWhirDomain<Poly64, EngineNtt>;
type Pcs<D, L> = WhirProver<Poly192, Poly64, D, Mmcs, Challenger, L>;

const fn challenger() -> Challenger {
    Challenger::from_hasher(Vec::new(), Keccak256Hash)
}

const fn mmcs(cap_height: usize) -> Mmcs {
    Mmcs::new(Hash::new(Keccak256Hash), Compress::new(Keccak256Hash), cap_height)
}

/// One WHIR instance: `columns` random columns of `num_variables` variables, opened at every
/// column.
#[derive(Clone, Debug)]
struct Instance {
    num_variables: usize,
    columns: usize,
    folding: FoldingFactor,
    /// The first round's folding factor (the witness is laid out for it).
    first_folding: usize,
    starting_log_inv_rate: usize,
    seed: u64,
}

impl Instance {
    fn protocol(&self) -> OpeningProtocol {
        OpeningProtocol::new(vec![TableSpec::new(
            TableShape::new(self.num_variables, self.columns),
            vec![OpeningBatch::new((0..self.columns).collect(), vec![])],
        )])
    }

    fn config<D>(&self, committed_variables: usize, domain: &D) -> WhirConfig<Poly192, Poly64, Challenger>
    where
        D: p3_whir::WhirDomain<Poly64, Poly192>,
    {
        WhirConfig::new_with_domain(
            committed_variables,
            ProtocolParameters {
                security_level: 32,
                pow_bits: 0,
                round_log_inv_rates: vec![],
                folding_factor: self.folding.clone(),
                soundness_type: SecurityAssumption::JohnsonBound,
                starting_log_inv_rate: self.starting_log_inv_rate,
            },
            domain,
        )
        .expect("config")
    }
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
    tampered
        .whir
        .final_poly
        .as_mut()
        .expect("a final polynomial")
        .as_mut_slice()[0] += Poly192::ONE;
    assert!(
        plonky
            .verify(&commitment, &tampered, &mut challenger(), instance.protocol())
            .is_err(),
        "{instance:?}: a tampered proof verifies"
    );
}

fn prefix(instance: Instance) {
    let witness = || {
        let mut rng = SmallRng::seed_from_u64(instance.seed);
        PrefixProver::<Poly64, Poly192>::new_witness(
            vec![Table::rand(&mut rng, instance.columns, instance.num_variables)],
            instance.first_folding,
        )
    };
    check::<PrefixProver<Poly64, Poly192>>(&instance, witness);
}

fn suffix(instance: Instance) {
    let witness = || {
        let mut rng = SmallRng::seed_from_u64(instance.seed);
        SuffixProver::<Poly64, Poly192>::new_witness(
            vec![Table::rand(&mut rng, instance.columns, instance.num_variables)],
            instance.first_folding,
        )
    };
    check::<SuffixProver<Poly64, Poly192>>(&instance, witness);
}

#[test]
fn prefix_prover_constant_folding() {
    for (num_variables, columns, seed) in [(12, 2, 0x00B1_A47E), (9, 1, 1), (15, 3, 2)] {
        prefix(Instance {
            num_variables,
            columns,
            folding: FoldingFactor::Constant(3),
            first_folding: 3,
            starting_log_inv_rate: 1,
            seed,
        });
    }
}

#[test]
fn suffix_prover_mixed_folding() {
    for (num_variables, columns, seed) in [(12, 2, 0x5AFF_1CED), (14, 1, 3)] {
        suffix(Instance {
            num_variables,
            columns,
            folding: FoldingFactor::ConstantFromSecondRound(3, 2),
            first_folding: 3,
            starting_log_inv_rate: 2,
            seed,
        });
    }
}

#[test]
fn prefix_prover_folding_four() {
    prefix(Instance {
        num_variables: 16,
        columns: 1,
        folding: FoldingFactor::Constant(4),
        first_folding: 4,
        starting_log_inv_rate: 1,
        seed: 4,
    });
}
