#!/usr/bin/env python3
"""What vector search costs a user, as ratios to the lexical index in the same run (issue 34).

Usage:
  python3 bench/vectors_cost.py --git-dir MIRROR.git [--rev HEAD] [--provider static]
                                [--bin target/release/git-codesearch] [--json out.json]

The repository is checked out at REV into a temporary directory; every measurement uses the
same binary and work tree, each with an index directory of its own (`GIT_CODESEARCH_DIR`):

  lexical     cold `index --no-embed`: the baseline
  default     cold `index` with `codesearch.embedProvider=PROVIDER`: seconds until the command
              returns (embedding goes to the background), then seconds until the background
              run has embedded every file (`status --json`, polled)
  wait        cold `index --wait` (embedding in the foreground)
  queries     per-process p50 of `search` with vectors on and off (same index), and `git grep`
  size        the index directory with and without vectors
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

QUERIES = [
    "parse configuration file",
    "retry with backoff",
    "how are errors reported to the user",
    "read a file from disk",
    "unit conversion",
    "cache invalidation",
    "command line arguments",
    "logging setup",
    "serialize to json",
    "coordinate transformation",
]


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=True)


def timed(cmd, cwd, env):
    start = time.perf_counter()
    run(cmd, cwd, env)
    return time.perf_counter() - start


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def coverage(binary, wt, env):
    out = json.loads(run([binary, "status", "--json"], wt, env).stdout)
    v = out.get("vectors") or {}
    return v.get("embedded_files", 0), v.get("files_with_chunks", 0)


def p50(cmds, cwd, env):
    times = []
    for cmd in cmds:
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--provider", default="static")
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=3, help="query rounds over the query list")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    tmp = tempfile.mkdtemp(prefix="vcost-")
    try:
        result = bench(binary, a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


def bench(binary, a, tmp):
    wt = os.path.join(tmp, "wt")
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", a.git_dir, wt], check=True)
    subprocess.run(["git", "-C", wt, "checkout", "-q", a.rev], check=True)
    base = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    base.pop("GIT_CODESEARCH_BACKGROUND", None)

    def env_for(name):
        return dict(base, GIT_CODESEARCH_DIR=os.path.join(tmp, name))

    def provider(p):
        subprocess.run(["git", "-C", wt, "config", "codesearch.embedProvider", p], check=True)

    files = len(run(["git", "ls-files"], wt, base).stdout.splitlines())
    provider("none")
    lexical = timed([binary, "index", "-q", "--no-embed"], wt, env_for("lexical"))
    provider(a.provider)
    env = env_for("default")
    returned = timed([binary, "index", "-q"], wt, env)
    start = time.perf_counter()
    while True:
        done, total = coverage(binary, wt, env)
        if total and done >= total:
            break
        if time.perf_counter() - start > 3600:
            raise SystemExit(f"background embedding not done after an hour: {done}/{total}")
        time.sleep(0.2)  # polling interval
    background = time.perf_counter() - start
    wait = timed([binary, "index", "-q", "--wait"], wt, env_for("wait"))
    searches = [[binary, "search", "-q", "--no-index", "-n", "10", q] for q in QUERIES] * a.rounds
    greps = [["git", "grep", "-c", "-i", q.split()[0]] for q in QUERIES] * a.rounds
    on = p50(searches, wt, env)
    provider("none")
    off = p50(searches, wt, env)
    provider(a.provider)
    grep = p50(greps, wt, base)
    size_on, size_off = du(os.path.join(tmp, "default")), du(os.path.join(tmp, "lexical"))
    return {
        "repository": a.git_dir,
        "rev": a.rev,
        "files": files,
        "provider": a.provider,
        "lexical_index_s": round(lexical, 2),
        "default_index_returns_s": round(returned, 2),
        "default_over_lexical": round(returned / lexical, 3),
        "background_embedding_s": round(background, 2),
        "wait_index_s": round(wait, 2),
        "wait_over_lexical": round(wait / lexical, 3),
        "query_p50_ms_vectors_on": round(on, 1),
        "query_p50_ms_vectors_off": round(off, 1),
        "query_p50_ms_git_grep": round(grep, 1),
        "on_over_off": round(on / off, 3),
        "index_mb_with_vectors": round(size_on / 1e6, 1),
        "index_mb_without": round(size_off / 1e6, 1),
        "load_average": os.getloadavg()[0],
    }


if __name__ == "__main__":
    main()
