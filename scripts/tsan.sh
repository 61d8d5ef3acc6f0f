#!/usr/bin/env bash
# Runs the runtime's scheduler tests, and the encoder's and streaming hasher's unit tests plus the
# commits through a pool (every worker hashing and merging), under ThreadSanitizer (nightly
# toolchain with rust-src:
# `rustup component add rust-src --toolchain nightly`). The standard library is rebuilt with
# the sanitizer, in target/tsan so the normal build is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --nightly rust-src
RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" \
    cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu --target-dir target/tsan \
    -p ntt-runtime --test small_graphs --test dag_order --test join --test panics --test nested \
    --test cross_pool
RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" \
    cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu --target-dir target/tsan \
    -p ntt-pcs --lib --test commit_encoder
