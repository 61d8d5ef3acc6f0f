#!/usr/bin/env bash
# Installs what the build needs on a Debian machine, only when it is missing.
set -euo pipefail

need=()
pkg-config --exists hwloc 2>/dev/null || need+=(libhwloc-dev)
# hwlocality-sys links with `pkg-config --static` flags, which name hwloc's private libudev.
pkg-config --exists libudev 2>/dev/null || need+=(libudev-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# ntt-mpi: Open MPI (mpirun and the library rsmpi links), and libclang for the bindgen run of
# rsmpi's mpi-sys (the unversioned libclang.so and clang's headers come with libclang-dev).
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
pkg-config --exists ompi 2>/dev/null || need+=(libopenmpi-dev)
compgen -G "/usr/lib/llvm-*/lib/libclang.so" >/dev/null || need+=(libclang-dev)
if [ "${#need[@]}" -gt 0 ]; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" pkg-config
fi
# The pinned Rust toolchain with rustfmt and clippy (and any extra targets or nightly components
# passed through, see install-rust.sh).
bash "$(dirname "$0")/install-rust.sh" "$@"
