#!/usr/bin/env bash
# Runs the commitment's lock-free streaming hasher and byte-view tests under Miri (the pinned
# nightly of scripts/nightly.env with its miri component, which this script installs when
# missing), which checks the atomics protocol for data races and the unsafe byte view for
# undefined behaviour. The large cross-shape tests are skipped under Miri.
#
#   NTT_MIRI_SEEDS=N   how many seeds (thread interleavings) to run: 0..N (default 3)
#   MIRIFLAGS          extra Miri flags, appended
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nightly.env
bash scripts/install-deps.sh --nightly miri rust-src
seeds=${NTT_MIRI_SEEDS:-3}
MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-many-seeds=0..$seeds -Zthreads=$(nproc) ${MIRIFLAGS:-}" \
    cargo "+$NIGHTLY" miri test --config 'profile.dev.package."*".opt-level=0' \
    --config profile.test.opt-level=0 -p ntt-pcs --lib commit::
