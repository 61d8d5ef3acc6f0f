//! The `ntt` command line.

use clap::Parser;

/// ntt-engine: additive-NTT Reed-Solomon commitments over GF(2^64).
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
    println!("backend: {:?}", ntt_kernels::Backend::detect().kind());
}
