#!/usr/bin/env bash
# Runs the runtime's reduced scheduler tests under Miri (nightly toolchain with the miri
# component: `rustup component add miri --toolchain nightly`).
set -euo pipefail
cd "$(dirname "$0")/.."
# Many-seeds would be better but slow; a few seeds explore different interleavings.
for seed in ${MIRI_SEEDS:-0 1 2}; do
    MIRIFLAGS="-Zmiri-seed=$seed ${MIRIFLAGS:-}" \
        cargo +nightly miri test -p ntt-runtime --test small_graphs
done
