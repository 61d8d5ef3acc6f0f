#!/usr/bin/env bash
# Runs the runtime's reduced scheduler tests (small graphs; grown graphs and loops split on
# demand) under Miri (nightly toolchain with the miri component, which this script installs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --nightly miri rust-src
# crossbeam-epoch (under crossbeam-deque) casts integers to pointers, which Stacked Borrows
# rejects inside crossbeam itself; Tree Borrows with permissive provenance checks our code and
# accepts crossbeam's. crossbeam-epoch also leaves its deferred frees (deque buffers, epoch
# records) uncollected at exit, hence -Zmiri-ignore-leaks. A few seeds explore different
# thread interleavings.
for seed in ${MIRI_SEEDS:-0 1 2}; do
    MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks -Zmiri-seed=$seed ${MIRIFLAGS:-}" \
        cargo +nightly miri test -p ntt-runtime --test small_graphs --test small_growth
done
