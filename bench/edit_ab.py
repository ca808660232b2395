#!/usr/bin/env python3
"""An index run after one edited file, for two binaries, alternated: what a search on a
dirty work tree pays first (it brings the index up to date before it searches).

Usage:
  python3 bench/edit_ab.py --tree /tmp/one-astropy --file astropy/units/core.py \\
                           --bin-a OLD --index-a DIR_A --bin-b NEW --index-b DIR_B [--rounds 8]

Each binary keeps its own index directory (`GIT_CODESEARCH_DIR`), indexed and brought up to
date first. Each round appends a new function to FILE and times `index --no-embed -q` of
both binaries (their order reversed every other round); the file is restored at the end and
both indexes brought up to date again. Prints each median in milliseconds and B's over A's.
"""

import argparse
import os
import statistics
import subprocess
import time


def env(index_dir):
    """A lexical run on `index_dir`, with no user or system git config."""
    return dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
                GIT_CODESEARCH_BACKGROUND="0", GIT_CODESEARCH_DIR=index_dir,
                GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="codesearch.embedProvider",
                GIT_CONFIG_VALUE_0="none")


def index(binary, index_dir, tree):
    """Milliseconds of one `index` run; a failed run stops the benchmark."""
    t = time.perf_counter()
    subprocess.run([binary, "index", "--no-embed", "-q"], cwd=tree, env=env(index_dir),
                   check=True, capture_output=True)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--file", required=True, help="a source file of the tree, relative")
    ap.add_argument("--bin-a", required=True)
    ap.add_argument("--index-a", required=True)
    ap.add_argument("--bin-b", required=True)
    ap.add_argument("--index-b", required=True)
    ap.add_argument("--rounds", type=int, default=8)
    a = ap.parse_args()
    path = os.path.join(a.tree, a.file)
    with open(path, encoding="utf-8") as f:
        original = f.read()
    runs = [("a", a.bin_a, a.index_a), ("b", a.bin_b, a.index_b)]
    times = {"a": [], "b": []}
    try:
        for _, binary, index_dir in runs:
            index(binary, index_dir, a.tree)
        for r in range(a.rounds):
            with open(path, "w", encoding="utf-8") as f:
                f.write(original + f"\n\ndef added_function_{r}(x):\n    return x\n")
            for name, binary, index_dir in (runs if r % 2 == 0 else runs[::-1]):
                times[name].append(index(binary, index_dir, a.tree))
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)
        for _, binary, index_dir in runs:
            index(binary, index_dir, a.tree)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"a {a.bin_a}: {med['a']:.0f} ms {[round(x) for x in times['a']]}")
    print(f"b {a.bin_b}: {med['b']:.0f} ms {[round(x) for x in times['b']]}")
    print(f"b over a: {med['b'] / med['a']:.3f}")


if __name__ == "__main__":
    main()
