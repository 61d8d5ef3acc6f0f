#!/usr/bin/env bash
# Runs the ntt-kernels tests (NEON + PMULL backend included) for aarch64 under qemu-user.
# Needs Debian's qemu-user and gcc-aarch64-linux-gnu (installed here when missing) and the
# aarch64-unknown-linux-gnu Rust target (both installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
if [ "${#need[@]}" -gt 0 ]; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}"
fi
bash scripts/install-deps.sh --target aarch64-unknown-linux-gnu

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
cargo test --target aarch64-unknown-linux-gnu -p ntt-kernels "$@"
