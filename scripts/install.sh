#!/usr/bin/env bash
# Install git-codesearch on a fresh machine: build prerequisites, then the binary into
# ~/.cargo/bin (so `git codesearch` works in any repository).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo install --locked --path .
echo "installed: $(command -v git-codesearch || echo ~/.cargo/bin/git-codesearch)"
