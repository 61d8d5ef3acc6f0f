#!/usr/bin/env bash
# The main job: the topology report, then a commit of the built-in default workload.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Build progress on stderr: a first build takes a few minutes.
cargo build --release -p ntt-cli
./target/release/ntt topology
./target/release/ntt commit
