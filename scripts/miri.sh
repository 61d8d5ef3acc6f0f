#!/usr/bin/env bash
# Runs the runtime's reduced scheduler tests (tests/small_graphs.rs: small graphs, a panic, nested
# runs, closures of every size; tests/small_growth.rs: grown graphs and loops split on demand)
# under Miri, with the pinned nightly of scripts/nightly.env and its miri component, which this
# script installs when missing.
#
#   NTT_MIRI_SEEDS=N   how many seeds (thread interleavings) each test binary runs: 0..N
#                      (default 8, what CI runs; 32 or more for a longer search)
#   MIRIFLAGS          extra Miri flags, appended
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nightly.env
bash scripts/install-deps.sh --nightly miri rust-src
seeds=${NTT_MIRI_SEEDS:-8}
# crossbeam-epoch (under crossbeam-deque) casts integers to pointers, which Stacked Borrows
# rejects inside crossbeam itself; Tree Borrows with permissive provenance checks our code and
# accepts crossbeam's. crossbeam-epoch also leaves its deferred frees (deque buffers, epoch
# records) uncollected at exit, hence -Zmiri-ignore-leaks. -Zmiri-many-seeds runs each test
# binary once per seed (on every core: -Zthreads) and stops at the first seed that fails.
# Miri ignores the opt-level; opt-level 0 only makes the host crates (proc macros, build
# scripts) build faster.
MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks -Zmiri-many-seeds=0..$seeds -Zthreads=$(nproc) ${MIRIFLAGS:-}" \
    cargo "+$NIGHTLY" miri test --config 'profile.dev.package."*".opt-level=0' \
    --config profile.test.opt-level=0 -p ntt-runtime --test small_graphs --test small_growth
