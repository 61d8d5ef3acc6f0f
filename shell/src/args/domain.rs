//! `--basis`: where the codeword is evaluated.

use clap::{Args, ValueEnum};

/// The evaluation domain's basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum BasisArg {
    /// β_j = x^j: row k is evaluated at the integer k.
    #[default]
    Polynomial,
    /// The Cantor basis: Plonky3's additive NTT domain.
    Cantor,
}

impl From<BasisArg> for ntt_pcs::Basis {
    fn from(basis: BasisArg) -> Self {
        match basis {
            BasisArg::Polynomial => ntt_pcs::Basis::Polynomial,
            BasisArg::Cantor => ntt_pcs::Basis::Cantor,
        }
    }
}

/// Where the codeword is evaluated.
#[derive(Clone, Debug, Args)]
pub struct DomainArgs {
    /// Basis of the evaluation domain.
    #[arg(long, value_enum, default_value_t = BasisArg::Polynomial)]
    pub basis: BasisArg,
}

impl DomainArgs {
    /// The domain `--basis` names.
    pub fn domain(&self) -> ntt_pcs::Domain {
        ntt_pcs::Domain::new(self.basis.into())
    }
}
