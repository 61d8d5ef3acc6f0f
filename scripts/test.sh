#!/usr/bin/env bash
# The whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo test --workspace --all-targets
cargo test --workspace --doc
