#!/usr/bin/env bash
# The whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo test --workspace --all-targets
cargo test --workspace --doc
# The README's Plonky3 example: WHIR on the engine, verified by Plonky3.
cargo run --release -p ntt-plonky3 --example whir_minimal
