#!/usr/bin/env bash
# The main job: the topology report, then a commit of the built-in default workload.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Build progress on stderr: a first build takes a few minutes. With hwloc (installed above): the
# topology report's CPU kinds and cpusets as hwloc sees them.
cargo build --release -p ntt-cli --features hwloc
./target/release/ntt topology
./target/release/ntt commit
