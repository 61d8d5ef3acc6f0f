#!/usr/bin/env bash
# Installs the Rust toolchain pieces a script uses, idempotently. rustup on CI machines does not
# install what rust-toolchain.toml lists (RUSTUP_AUTO_INSTALL=0), so every script asks for what it
# needs before using it.
#
#   scripts/install-rust.sh                     the pinned toolchain with rustfmt and clippy
#   scripts/install-rust.sh --target T ...      also the pinned toolchain's target T
#   scripts/install-rust.sh --nightly C ...     the dated nightly of scripts/nightly.env with
#                                               components C (miri, rust-src)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=nightly.env
source scripts/nightly.env

command -v rustup >/dev/null 2>&1 || { echo "rustup is required (https://rustup.rs)" >&2; exit 1; }

# The channel pinned in rust-toolchain.toml, e.g. 1.95.0.
pinned=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
[[ -n $pinned ]] || { echo "no channel in rust-toolchain.toml" >&2; exit 1; }

has_toolchain() { rustup toolchain list | grep -q "^$1"; }
has_component() { rustup component list --installed --toolchain "$1" 2>/dev/null | grep -q "^$2"; }
has_target() { rustup target list --installed --toolchain "$1" 2>/dev/null | grep -qx "$2"; }

ensure() { # ensure TOOLCHAIN [component...]: the toolchain and those components
    local toolchain=$1
    shift
    has_toolchain "$toolchain" || rustup toolchain install "$toolchain" --profile minimal --no-self-update
    for component in "$@"; do
        has_component "$toolchain" "$component" || rustup component add --toolchain "$toolchain" "$component"
    done
}

ensure "$pinned" rustfmt clippy
while [[ $# -gt 0 ]]; do
    case $1 in
        --target)
            has_target "$pinned" "$2" || rustup target add --toolchain "$pinned" "$2"
            shift 2
            ;;
        --nightly)
            shift
            components=()
            while [[ $# -gt 0 && $1 != --* ]]; do components+=("$1"); shift; done
            ensure "$NIGHTLY" "${components[@]}"
            ;;
        *)
            echo "install-rust.sh: unknown argument $1" >&2
            exit 2
            ;;
    esac
done
