#!/usr/bin/env bash
# Every library crate packages for crates.io: `cargo package` builds each .crate and verifies it
# by building it alone from its contents. The five are packaged in one invocation, which (cargo
# 1.90 and later) resolves their dependencies on one another to the crates just packaged rather
# than to crates.io, where they are not (yet); one `cargo package -p ntt-pcs` alone would fail
# there. ntt-cli, ntt-benches and ntt-plot are `publish = false`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package --allow-dirty \
    -p ntt-kernels -p ntt-runtime -p ntt-verify -p ntt-pcs -p ntt-plonky3
