#!/usr/bin/env bash
# Runs the runtime's scheduler tests (small graphs, DAG order, join, panics, nested runs, pools
# crossing each other, graphs that grow, loops split on demand) under ThreadSanitizer, with the
# pinned nightly of scripts/nightly.env and its rust-src component, which this script installs
# when missing. The standard library is rebuilt with the sanitizer (-Zbuild-std), in target/tsan
# so the normal build is untouched.
#
#   scripts/tsan.sh          the runtime's tests (what CI runs)
#   scripts/tsan.sh --full   also ntt-pcs's unit tests (the streaming hasher's atomic meeting
#                            points fed from three threads, the encoder's kernels) and the commits
#                            through 1-3-worker pools of tests/commit_encoder.rs
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nightly.env
full=0
case ${1:-} in
    --full) full=1 ;;
    "") ;;
    *) echo "usage: scripts/tsan.sh [--full]" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh --nightly rust-src
# RUST_BACKTRACE=0: with backtraces on, a test that panics on purpose symbolizes its backtrace
# (std reads the loaded objects' names through dl_iterate_phdr) while another test's hwloc
# topology is dropped and dlclose frees a plugin's name. glibc orders the two with its loader
# lock, which ThreadSanitizer does not see, so it reports a race inside glibc (free in
# _dl_close_worker against strlen in std's symbolizer) that is not one. opt-level 1 (std
# included) builds faster than the test profile's 2 and keeps the tests quick.
tsan_test() {
    RUST_BACKTRACE=0 RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" \
        cargo "+$NIGHTLY" test -Zbuild-std --target x86_64-unknown-linux-gnu --target-dir target/tsan \
        --config 'profile.dev.package."*".opt-level=1' --config profile.test.opt-level=1 "$@"
}
tsan_test -p ntt-runtime --test small_graphs --test dag_order --test join --test panics \
    --test nested --test cross_pool --test grow --test small_growth --test adaptive
if [[ $full == 1 ]]; then
    tsan_test -p ntt-pcs --lib --test commit_encoder
fi
