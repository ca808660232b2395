#!/usr/bin/env bash
# The test command (README.md and .ci/run run exactly this): prerequisites, formatting,
# lints, then the unit and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
