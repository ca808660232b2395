#!/usr/bin/env bash
# Install what building git-codesearch needs beyond Rust itself: protoc (the lance crates
# compile protobuf files) and git. Uses Debian's packages; does nothing if already present.
set -euo pipefail
need=()
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
command -v git >/dev/null 2>&1 || need+=(git)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
protoc --version >/dev/null
