#!/usr/bin/env bash
# Every library crate packages for crates.io, and each package passes its own tests as a user
# who downloads it would run them. The five are packaged in one invocation, which (cargo 1.90
# and later) resolves their dependencies on one another to the crates just packaged rather than
# to crates.io, where they are not (yet); one `cargo package -p ntt-pcs` alone would fail there.
# ntt-cli, ntt-benches, ntt-plot, ntt-shell and ntt-mpi are `publish = false`.
#
# Then each .crate is unpacked into a scratch workspace whose [patch.crates-io] points the
# ntt-* dependencies at the unpacked siblings, and `cargo test` runs there once for all five:
# a file a test or doc test reads from outside its package shows up as a failure here. That
# build replaces `cargo package`'s own verification build (--no-verify), so the crates compile
# once. The workspace's Cargo.lock pins the third-party versions, so no network is needed
# beyond what the workspace's own build fetched; the scratch directory and its build are
# removed at the end (CI disks are small).
set -euo pipefail
cd "$(dirname "$0")/.."
crates=(ntt-kernels ntt-runtime ntt-verify ntt-pcs ntt-plonky3)
package_args=()
for crate in "${crates[@]}"; do package_args+=(-p "$crate"); done
cargo package --allow-dirty --no-verify "${package_args[@]}"

target="${CARGO_TARGET_DIR:-target}"
version="$(cargo pkgid -p ntt-pcs | sed 's/.*[@#]//')"
scratch="$target/package/unpacked"
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
{
    echo '[workspace]'
    echo 'resolver = "3"'
    printf 'members = ['
    for crate in "${crates[@]}"; do printf '"%s-%s", ' "$crate" "$version"; done
    echo ']'
    echo
    echo '[patch.crates-io]'
    for crate in "${crates[@]}"; do echo "$crate = { path = \"$crate-$version\" }"; done
    echo
    # The workspace's profiles (optimised tests): a package carries none of its own.
    sed -n '/^\[profile\./,$p' Cargo.toml
} >"$scratch/Cargo.toml"
for crate in "${crates[@]}"; do
    tar -xzf "$target/package/$crate-$version.crate" -C "$scratch"
done
cp Cargo.lock rust-toolchain.toml "$scratch/"
(
    cd "$scratch"
    # Its own target directory: the unpacked crates are other packages than the workspace's.
    CARGO_TARGET_DIR=target cargo test --offline --workspace
)
