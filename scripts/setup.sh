#!/usr/bin/env bash
# Install what building git-codesearch needs beyond Rust itself: protoc (the lance crates
# compile protobuf files) and git, and, unless `--build-only` (the install script), the S3 server
# the tests start. Uses Debian's and PyPI's packages; does nothing if already present.
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
# A cold build of the tests writes about 6 GB under target/ (a release build about 3 GB). On a
# fuller disk the linker dies with SIGBUS ("ld terminated with signal 7"), which names nothing:
# say so first. A warning, not a refusal: an incremental build needs far less.
# (A target directory not made yet is measured at its parent; no answer, no warning.)
target="${CARGO_TARGET_DIR:-$(dirname "$0")/..}"
[ -d "$target" ] || target="$(dirname "$target")"
free_kb=$(df -Pk "$target" 2>/dev/null | awk 'NR == 2 { print $4 }') || free_kb=
if [ -n "${free_kb:-}" ] && [ "$free_kb" -lt $((8 * 1024 * 1024)) ]; then
    echo "warning: $((free_kb / 1024 / 1024)) GB free for the build; a cold test build needs about 6 GB" >&2
fi
[ "${1:-}" = "--build-only" ] && exit 0
# The S3-compatible server the push/pull tests start on 127.0.0.1 (tests/it/s3server.rs):
# moto's `moto_server`, from PyPI. 5.1 or newer: its PUT honours `If-None-Match: *` (412 on an
# existing key), the conditional write a manifest version is landed with.
if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m, flask, flask_cors  # noqa: F401 (the server's dependencies)
major, minor = (int(x) for x in m.version("moto").split(".")[:2])
raise SystemExit(0 if (major, minor) >= (5, 1) else 1)
PY
then
    python3 -m pip install -q 'moto[server]>=5.1,<6'
fi
command -v moto_server >/dev/null
