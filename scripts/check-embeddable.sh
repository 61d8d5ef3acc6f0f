#!/usr/bin/env bash
# The library crates embed without system packages: with default features neither ntt-pcs nor
# ntt-plonky3 depends on hwloc or libudev, a new crate depending on both builds and runs with
# hwloc's and libudev's pkg-config files out of sight, and ntt-runtime without its `hwloc`
# feature (sysfs, else documented defaults) passes clippy and its topology tests, synthetic
# what-if machines included.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

for crate in ntt-pcs ntt-plonky3; do
    if cargo tree -p "$crate" -e normal --prefix none | grep -Ei 'hwloc|udev'; then
        echo "error: $crate's default (normal) dependencies include the crates above" >&2
        exit 1
    fi
done

# Without the feature (a workspace-wide build turns it on through the benches and ntt-mpi; -p
# does not).
cargo clippy -p ntt-runtime --all-targets -- -D warnings
cargo test -p ntt-runtime --test topology --test pin_env --test what_if --test largest_machine

# A prover's crate, as its author would start it: both libraries by path, default features.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/prover/src" "$scratch/no-pkg-config"
cat >"$scratch/prover/Cargo.toml" <<EOF
[package]
name = "prover"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
ntt-pcs = { path = "$root/pcs" }
ntt-plonky3 = { path = "$root/plonky3" }

[workspace]
EOF
cat >"$scratch/prover/src/main.rs" <<'EOF'
use ntt_pcs::{CommitParams, verify};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let witness: Vec<u64> = (0..16u64 << 10).collect();
    let committer = ntt_pcs::committer()?;
    let (commitment, prover_data) = committer.commit(&witness, CommitParams::lanes(16).log_inv_rate(1))?;
    let opening = prover_data.open(&[3, 17])?;
    assert_eq!(verify(&commitment, &[3, 17], &opening)?.len(), 2);
    let topology = committer.encoder().pool().topology();
    let _ntt = ntt_plonky3::EngineNtt::with_workers(1);
    println!("committed and verified; topology from {:?}", topology.source);
    Ok(())
}
EOF
# The workspace's lock file, so the scratch crate builds the versions the workspace tests.
cp Cargo.lock "$scratch/prover/"
# pkg-config finds neither hwloc nor libudev: a build that needed them would fail here.
PKG_CONFIG_PATH="$scratch/no-pkg-config" PKG_CONFIG_LIBDIR="$scratch/no-pkg-config" \
    CARGO_TARGET_DIR="$root/target/embeddable" \
    cargo run --manifest-path "$scratch/prover/Cargo.toml"
if ldd "$root/target/embeddable/debug/prover" | grep -Ei 'hwloc|udev'; then
    echo "error: the prover links the libraries above" >&2
    exit 1
fi
