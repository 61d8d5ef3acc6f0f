//! The WHIR setups both end-to-end suites run (`whir.rs` with Plonky3's Keccak Merkle tree,
//! `whir_blake3_mmcs.rs` with `Blake3Mmcs`): the hash challenger, the instances and their
//! configuration, the prefix and suffix witnesses, and the folding schedules of Plonky3's own
//! WHIR tests.

use p3_binary_field::{BinaryChallenger, Poly64, Poly192};
use p3_challenger::HashChallenger;
use p3_keccak::Keccak256Hash;
use p3_sumcheck::layout::{Layout, PrefixProver, SuffixProver, Table, Witness};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, TableShape, TableSpec};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig};
use rand::SeedableRng;
use rand::rngs::SmallRng;

pub(crate) type Challenger = BinaryChallenger<Poly64, HashChallenger<u8, Keccak256Hash, 32>>;

pub(crate) const fn challenger() -> Challenger {
    Challenger::from_hasher(Vec::new(), Keccak256Hash)
}

/// One WHIR instance: `columns` random columns of `num_variables` variables, opened at every
/// column.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    pub num_variables: usize,
    pub columns: usize,
    pub folding: FoldingFactor,
    /// The first round's folding factor (the witness is laid out for it).
    pub first_folding: usize,
    pub starting_log_inv_rate: usize,
    pub seed: u64,
}

impl Instance {
    pub(crate) fn protocol(&self) -> OpeningProtocol {
        OpeningProtocol::new(vec![TableSpec::new(
            TableShape::new(self.num_variables, self.columns),
            vec![OpeningBatch::new((0..self.columns).collect(), vec![])],
        )])
    }

    pub(crate) fn config<D>(
        &self,
        committed_variables: usize,
        domain: &D,
    ) -> WhirConfig<Poly192, Poly64, Challenger>
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

    fn table(&self) -> Table<Poly64> {
        let mut rng = SmallRng::seed_from_u64(self.seed);
        Table::rand(&mut rng, self.columns, self.num_variables)
    }

    /// The seeded witness laid out for the prefix prover (the same every call).
    pub(crate) fn prefix_witness(&self) -> Witness<Poly64> {
        PrefixProver::<Poly64, Poly192>::new_witness(vec![self.table()], self.first_folding)
    }

    /// The seeded witness laid out for the suffix prover (the same every call).
    pub(crate) fn suffix_witness(&self) -> Witness<Poly64> {
        SuffixProver::<Poly64, Poly192>::new_witness(vec![self.table()], self.first_folding)
    }
}

/// Prefix prover, folding 3 in every round, rate 1/2, three sizes and widths.
pub(crate) fn constant_folding() -> Vec<Instance> {
    [(12, 2, 0x00B1_A47E), (9, 1, 1), (15, 3, 2)]
        .into_iter()
        .map(|(num_variables, columns, seed)| Instance {
            num_variables,
            columns,
            folding: FoldingFactor::Constant(3),
            first_folding: 3,
            starting_log_inv_rate: 1,
            seed,
        })
        .collect()
}

/// Suffix prover, folding 3 then 2, rate 1/4, two sizes.
pub(crate) fn mixed_folding() -> Vec<Instance> {
    [(12, 2, 0x5AFF_1CED), (14, 1, 3)]
        .into_iter()
        .map(|(num_variables, columns, seed)| Instance {
            num_variables,
            columns,
            folding: FoldingFactor::ConstantFromSecondRound(3, 2),
            first_folding: 3,
            starting_log_inv_rate: 2,
            seed,
        })
        .collect()
}

/// Prefix prover, folding 4, 16 variables in one column.
pub(crate) fn folding_four() -> Instance {
    Instance {
        num_variables: 16,
        columns: 1,
        folding: FoldingFactor::Constant(4),
        first_folding: 4,
        starting_log_inv_rate: 1,
        seed: 4,
    }
}

/// Adds one to the first coefficient of the proof's final polynomial.
pub(crate) fn change_final_poly<M: p3_commit::Mmcs<Poly64>>(
    proof: &mut p3_whir::PcsProof<Poly64, Poly192, M>,
) {
    proof
        .whir
        .final_poly
        .as_mut()
        .expect("a final polynomial")
        .as_mut_slice()[0] += <Poly192 as p3_field::PrimeCharacteristicRing>::ONE;
}

/// The three tests of Plonky3's WHIR schedules (prefix prover with constant folding, suffix
/// prover with mixed folding, prefix prover with folding 4), each calling
/// `$check::<Layout>(&instance, witness)` for every instance of its schedule.
macro_rules! whir_schedule_tests {
    ($check:ident) => {
        #[test]
        fn prefix_prover_constant_folding() {
            for instance in common::constant_folding() {
                $check::<PrefixProver<Poly64, Poly192>>(&instance, || instance.prefix_witness());
            }
        }

        #[test]
        fn suffix_prover_mixed_folding() {
            for instance in common::mixed_folding() {
                $check::<SuffixProver<Poly64, Poly192>>(&instance, || instance.suffix_witness());
            }
        }

        #[test]
        fn prefix_prover_folding_four() {
            let instance = common::folding_four();
            $check::<PrefixProver<Poly64, Poly192>>(&instance, || instance.prefix_witness());
        }
    };
}
pub(crate) use whir_schedule_tests;
