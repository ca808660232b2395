#!/usr/bin/env python3
"""Simulate bringing a pasted issue's best lines inside its first result files (`search::infile`)
on the indexes a `bench/eval.py --work DIR` run of the pasted issues left, to choose how many
files bring theirs without building each variant.

For each issue: the binary's 50 hits, then for each of its first 3 result files the file's own
best hits (`--path FILE --mode bm25`); a variant adds the best K of each of the first N files
that overlap no hit, after that file's first hit, and scores Span@10 / Func@10 as `eval.py`
does. The choice of N is also made leaving each repository out in turn (chosen on the others,
scored on it). Run it with a binary without the stage (it would show the lines already).

Usage:
  python3 bench/infile_sim.py --bin BIN --set ../shared/eval/dev.jsonl --work /tmp/evi
"""

import argparse
import collections
import json
import os
import subprocess


def search(binary, work, item, extra):
    """The (path, start, end) of the hits of `item`'s query on its commit."""
    key = item["repo"].replace("/", "+")
    env = dict(os.environ, GIT_CODESEARCH_DIR=os.path.join(work, "index-" + key), NO_COLOR="1")
    p = subprocess.run([binary, "search", "--json", "-q", "--no-index", "-n", "50", *extra,
                        "--branch", "detached/" + item["commit"], "--", item["query"]],
                       cwd=os.path.join(work, "scratch-" + key), env=env, capture_output=True,
                       text=True)
    return [(h["path"], h["start_line"], h["end_line"]) for h in map(json.loads, p.stdout.splitlines())]


def overlaps(hit, ranges):
    return any(r["path"] == hit[0] and hit[1] <= r["end_line"] and hit[2] >= r["start_line"]
               for r in ranges)


def variant(hits, in_file, files, k):
    """`hits` with the best `k` free hits of each of the first `files` files' own searches."""
    out = list(hits)
    order = list(dict.fromkeys(h[0] for h in hits))
    for path in order[:files]:
        first = next(i for i, h in enumerate(out) if h[0] == path)
        free = [c for c in in_file.get(path, [])
                if not any(c[0] == h[0] and c[1] <= h[2] and h[1] <= c[2] for h in out)]
        out[first + 1:first + 1] = free[:k]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--work", required=True, help="the --work directory of an eval.py run")
    args = ap.parse_args()
    items = [json.loads(line) for line in open(args.set)]
    data = []
    for it in items:
        hits = search(args.bin, args.work, it, ["--mode", "hybrid"])
        order = list(dict.fromkeys(h[0] for h in hits))
        in_file = {p: search(args.bin, args.work, it, ["--path", p, "--mode", "bm25"])[:5]
                   for p in order[:3]}
        data.append((it, hits, in_file))

    def found(files, k):
        out = {}
        for it, hits, in_file in data:
            top = (variant(hits, in_file, files, k) if files else hits)[:10]
            spans, funcs = it.get("gold_spans") or [], it.get("gold_functions") or []
            out[it["id"]] = (any(overlaps(h, spans) for h in top),
                             any(overlaps(h, funcs) for h in top) if funcs else None)
        return out

    base = found(0, 0)
    runs = {(n, k): found(n, k) for n in (1, 2, 3) for k in (1, 2)}
    n_funcs = sum(v[1] is not None for v in base.values())
    for key, res in [((0, 0), base)] + list(runs.items()):
        spans = sum(v[0] for v in res.values())
        funcs = sum(bool(v[1]) for v in res.values())
        print(f"files {key[0]} each {key[1]}: Span@10 {spans / len(res):.3f} "
              f"Func@10 {funcs / n_funcs:.3f} ({spans - sum(v[0] for v in base.values()):+d} spans)")
    repo_of = {it["id"]: it["repo"] for it in items}
    picks, held_out = collections.Counter(), 0
    for repo in sorted(set(repo_of.values())):
        train = [i for i in base if repo_of[i] != repo]
        best = max((1, 2, 3), key=lambda n: (sum(runs[(n, 1)][i][0] for i in train), -n))
        picks[best] += 1
        held_out += sum(runs[(best, 1)][i][0] for i in base if repo_of[i] == repo)
    print(f"leaving each repository out: files chosen {dict(picks)}, "
          f"held-out Span@10 {held_out / len(base):.3f}")


if __name__ == "__main__":
    main()
