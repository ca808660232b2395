#!/usr/bin/env python3
"""How much do our hooks slow `git checkout` down? Same repository, same session, with and
without the hooks installed.

Usage:
  python3 bench/hooks_overhead.py --git-dir PATH/TO/repo.git --rev-a v8.0.0 --rev-b v8.0.1
                                  [--bin target/release/git-codesearch] [--rounds 10]

Each round checks out REV_B then REV_A and times each `git checkout`. Between checkouts it
waits for any background index run to end, so a run started by the previous hook does not
steal CPU from the checkout being timed. Reports median checkout time without hooks, with
hooks, and the difference.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def checkout(wt, rev, env):
    t = time.perf_counter()
    subprocess.run(["git", "checkout", "-q", rev], cwd=wt, env=env, check=True)
    return time.perf_counter() - t


def wait_idle():
    while subprocess.run(["pgrep", "-f", "git-codesearch index"], capture_output=True).returncode == 0:
        time.sleep(0.1)


def rounds(wt, a, b, env, n):
    times = []
    for _ in range(n):
        for rev in (b, a):
            wait_idle()
            times.append(checkout(wt, rev, env))
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--rev-a", required=True)
    ap.add_argument("--rev-b", required=True)
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    tmp = tempfile.mkdtemp(prefix="cs-hooks-")
    wt = os.path.join(tmp, "wt")
    env = dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(tmp, "index"),
               PATH=os.path.dirname(binary) + os.pathsep + os.environ["PATH"])
    subprocess.run(["git", "clone", "-q", "--no-checkout", args.git_dir, wt], check=True)
    try:
        subprocess.run(["git", "checkout", "-q", "-b", "a", args.rev_a], cwd=wt, env=env, check=True)
        subprocess.run(["git", "branch", "b", args.rev_b], cwd=wt, env=env, check=True)
        without = rounds(wt, "a", "b", env, args.rounds)
        subprocess.run([binary, "index", "-q"], cwd=wt, env=env, check=True)
        subprocess.run([binary, "hooks", "install"], cwd=wt, env=env, check=True, capture_output=True)
        with_hooks = rounds(wt, "a", "b", env, args.rounds)
        wait_idle()
        m0, m1 = statistics.median(without), statistics.median(with_hooks)
        print(f"checkouts timed: {len(without)} without hooks, {len(with_hooks)} with hooks")
        print(f"median without hooks: {m0 * 1000:.1f} ms")
        print(f"median with hooks:    {m1 * 1000:.1f} ms")
        print(f"difference:           {(m1 - m0) * 1000:+.1f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
