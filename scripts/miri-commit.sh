#!/usr/bin/env bash
# Runs the commitment's lock-free streaming hasher and byte-view tests under Miri (nightly
# toolchain with the miri component), which checks the atomics protocol for data races and the
# unsafe byte view for undefined behaviour. The large cross-shape tests are skipped under Miri.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --nightly miri rust-src
for seed in ${MIRI_SEEDS:-0 1 2}; do
    MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-seed=$seed ${MIRIFLAGS:-}" \
        cargo +nightly miri test -p ntt-pcs --lib commit::
done
