#!/usr/bin/env python3
"""Compare the per-crate compile times of two cargo builds (`cargo build --timings`).

Reads each build's `target/cargo-timings/cargo-timing.html` and sums the durations of the
units both builds finished, apart for the crates named in `--crates` (for example those a
profile override changes) and for the rest. Meant for two builds run side by side with the
same `-j` and niceness, so that each crate had the same share of the machine.

    python3 bench/build_timings.py /tmp/tgt-a/cargo-timings/cargo-timing.html \
        /tmp/tgt-b/cargo-timings/cargo-timing.html --crates-from-profile Cargo.toml
"""

import argparse
import json
import re
import tomllib


def unit_data(path):
    """The per-unit records (`UNIT_DATA`) that a `cargo-timing.html` page embeds."""
    text = open(path).read()
    return json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S).group(1))


def units(path):
    """(name, version, target, mode) -> seconds, for each unit with a duration."""
    out = {}
    for u in unit_data(path):
        key = (u["name"], u["version"], u.get("target", ""), u.get("mode", ""))
        out[key] = out.get(key, 0) + u["duration"]
    return {k: v for k, v in out.items() if v > 0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--crates-from-profile", help="Cargo.toml whose [profile.release.package] names the crates")
    a = ap.parse_args()
    named = set()
    if a.crates_from_profile:
        with open(a.crates_from_profile, "rb") as f:
            named = set(tomllib.load(f)["profile"]["release"].get("package", {}))
    ua, ub = units(a.a), units(a.b)
    common = [k for k in ua if k in ub]
    for label, keep in (("named crates", lambda k: k[0] in named), ("other crates", lambda k: k[0] not in named)):
        ks = [k for k in common if keep(k)]
        sa, sb = sum(ua[k] for k in ks), sum(ub[k] for k in ks)
        if ks:
            print(f"{label}: {len(ks)} units, {sa:.0f} s -> {sb:.0f} s ({sb / sa:.2f}x)")


if __name__ == "__main__":
    main()
