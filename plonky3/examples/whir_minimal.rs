//! Binary WHIR proved with `EngineNtt` and the engine's Keccak Merkle tree (rows hashed as the NTT
//! finishes them); the proof, as bytes, checked by Plonky3 alone (`LchNtt`, `MerkleTreeMmcs`).
use ntt_plonky3::{EngineNtt, Keccak256Hash, KeccakMerkleMmcs, PlonkyMerkleMmcs, Poly64, Poly192};
use p3_binary_field::BinaryChallenger;
use p3_binary_pcs::whir::BinaryWhirDomain;
use p3_challenger::HashChallenger;
use p3_commit::MultilinearPcs;
use p3_matrix::dense::RowMajorMatrix;
use p3_sumcheck::layout::{Layout, PrefixProver, Table};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, TableShape, TableSpec};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};

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
    let column = (0..1u64 << variables).map(|i| Poly64::new(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    let table = Table::new(RowMajorMatrix::new(column.collect(), 1 << variables)); // one polynomial
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
    let compress = CompressionFunctionFromHasher::new(Keccak256Hash);
    let mmcs = PlonkyMerkleMmcs::new(SerializingHasher::new(Keccak256Hash), compress, cap_height);
    let verifier: Whir<_, _> = WhirProver::new(config, domain, mmcs);
    let (commitment, proof) = postcard::from_bytes(&bytes).expect("deserialise");
    let verified = verifier.verify(&commitment, &proof, &mut challenger(), protocol());
    verified.expect("Plonky3 verifies");
    println!("{} proof bytes, verified by Plonky3", bytes.len());
}
