//! The smallest Plonky3 prover on the engine: binary WHIR over `Poly64` committed with
//! `EngineNtt` and the engine's Keccak Merkle tree (rows hashed as the NTT finishes them), the
//! proof sent as bytes and checked by Plonky3's own verifier (`LchNtt`, `MerkleTreeMmcs`).
use ntt_plonky3::{EngineNtt, Keccak256Hash, KeccakMerkleMmcs, PlonkyMerkleMmcs, Poly64, Poly192};
use p3_binary_field::BinaryChallenger;
use p3_binary_pcs::whir::BinaryWhirDomain;
use p3_challenger::HashChallenger;
use p3_commit::MultilinearPcs;
use p3_sumcheck::layout::{Layout, PrefixProver, Table};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, TableShape, TableSpec};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};
use rand_p3::{SeedableRng, rngs::SmallRng};

type Challenger = BinaryChallenger<Poly64, HashChallenger<u8, Keccak256Hash, 32>>;
type Whir<D, M> = WhirProver<Poly192, Poly64, D, M, Challenger, PrefixProver<Poly64, Poly192>>;

fn main() {
    let (variables, folding, cap_height) = (16, 4, 0);
    let params = ProtocolParameters {
        security_level: 100,
        pow_bits: 0,
        round_log_inv_rates: vec![],
        folding_factor: FoldingFactor::Constant(folding),
        soundness_type: SecurityAssumption::JohnsonBound,
        starting_log_inv_rate: 1,
    };
    let protocol = || {
        let batch = OpeningBatch::new(vec![0], vec![]);
        OpeningProtocol::new(vec![TableSpec::new(TableShape::new(variables, 1), vec![batch])])
    };
    let challenger = || Challenger::from_hasher(Vec::new(), Keccak256Hash);
    let table = Table::rand(&mut SmallRng::seed_from_u64(1), 1, variables);
    let witness = PrefixProver::<Poly64, Poly192>::new_witness(vec![table], folding);

    // Prover: the engine's NTT, and its Merkle tree on the NTT's pool.
    let ntt = EngineNtt::default();
    let mmcs = KeccakMerkleMmcs::sharing_pool_of(&ntt, cap_height);
    let domain = BinaryWhirDomain::new(ntt);
    let config = WhirConfig::new_with_domain(variables, params.clone(), &domain).expect("config");
    let prover: Whir<_, _> = WhirProver::new(config, domain, mmcs);
    let mut transcript = challenger();
    let (commitment, data) = prover.commit(witness, &mut transcript).expect("commit");
    let proof = prover.open(data, protocol(), &mut transcript).expect("open");
    let bytes = postcard::to_allocvec(&(commitment, proof)).expect("serialise");

    // Verifier: Plonky3 alone, reading the bytes.
    let domain: BinaryWhirDomain = BinaryWhirDomain::default();
    let config = WhirConfig::new_with_domain(variables, params, &domain).expect("config");
    let (hash, compress) = (
        SerializingHasher::new(Keccak256Hash),
        CompressionFunctionFromHasher::new(Keccak256Hash),
    );
    let verifier: Whir<_, _> =
        WhirProver::new(config, domain, PlonkyMerkleMmcs::new(hash, compress, cap_height));
    let (commitment, proof) = postcard::from_bytes(&bytes).expect("deserialise");
    verifier
        .verify(&commitment, &proof, &mut challenger(), protocol())
        .expect("Plonky3 verifies");
    println!(
        "WHIR, 2^{variables} coefficients: a {}-byte proof, verified by Plonky3",
        bytes.len()
    );
}
