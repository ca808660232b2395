#!/usr/bin/env python3
"""What files changed together in the past could add to search: an offline simulation.

For every query of the set, takes the files git-codesearch ranks (over the indexes an
`eval.py --work` run left), mines the commits before the query's commit (`git log`, at
most `--commits`, merges and commits touching more than 20 files left out), and for each
of the top `--heads` result files puts the file most often changed with it (in at least
`--min-together` commits and 30 % of the head's commits) right after rank `--pos`.
Prints file-level R@10 and MRR@10 before and after. Only history before the query's
commit is used, so nothing of the fix leaks in.

    python3 bench/cochange_sim.py --set ../shared/eval/dev.jsonl --mirrors /work/.mirror --work /tmp/evalwork
"""

import argparse
import collections
import json
import os
import statistics
import subprocess

from eval import mirror_dir, reuse_setup, score

MAX_COMMIT_FILES = 20
MIN_SHARE = 0.3


def ranked_files(binary, wt, env, item):
    """Distinct paths of the results, best first."""
    p = subprocess.run([binary, "search", "--json", "-q", "--no-index", "-n", "50",
                        "--branch", "detached/" + item["commit"], "--", item["query"]],
                       cwd=wt, env=env, capture_output=True, text=True, check=False)
    out = []
    for line in p.stdout.splitlines():
        hit = json.loads(line)
        if "path" in hit and hit["path"] not in out:
            out.append(hit["path"])
    return out


def history(gitdir, commit, n):
    """The sets of paths changed by the last `n` non-merge commits up to `commit` (no rename
    detection: it reads blobs, and mirrors may lack the largest)."""
    p = subprocess.run(["git", "--git-dir", gitdir, "log", "--pretty=format:@@", "--name-only",
                        "--no-renames", "-n", str(n), "--no-merges", commit], capture_output=True, text=True, check=True)
    sets = [frozenset(l for l in chunk.splitlines() if l) for chunk in p.stdout.split("@@")]
    return [s for s in sets if 0 < len(s) <= MAX_COMMIT_FILES]


def with_partners(ranked, commits, heads, min_together, pos):
    """`ranked` with each head's most frequent partner moved or added after rank `pos`."""
    changes = collections.Counter()
    together = collections.defaultdict(collections.Counter)
    for c in commits:
        for h in ranked[:heads]:
            if h in c:
                changes[h] += 1
                together[h].update(f for f in c if f != h)
    extra = []
    for h in ranked[:heads]:
        for f, n in together[h].most_common(1):
            if n >= min_together and n / changes[h] >= MIN_SHARE and f not in ranked[:pos] and f not in extra:
                extra.append(f)
    rest = [f for f in ranked if f not in extra]
    return rest[:pos] + extra + rest[pos:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--work", required=True, help="the --work directory of an earlier eval.py run")
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--heads", type=int, default=3)
    ap.add_argument("--min-together", type=int, default=3)
    ap.add_argument("--pos", type=int, default=5)
    ap.add_argument("--commits", type=int, default=1000)
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    items = [json.loads(line) for line in open(args.set)]
    before, after, langs = [], [], []
    for item in items:
        gitdir = mirror_dir(args.mirrors, item["repo"])
        if gitdir is None:
            continue
        wt, env = reuse_setup(args.work, gitdir, item["repo"])
        ranked = ranked_files(binary, wt, env, item)
        commits = history(gitdir, item["commit"], args.commits)
        langs.append(item["language"])
        before.append(score(ranked, item["gold_files"]))
        after.append(score(with_partners(ranked, commits, args.heads, args.min_together, args.pos),
                           item["gold_files"]))
    for group in [None] + sorted(set(langs)):
        for name, rows in (("search", before), ("search + co-changed files", after)):
            rows = [r for r, lang in zip(rows, langs) if group in (None, lang)]
            print(f"{group or 'overall'} | {name}: n {len(rows)} R@10 {statistics.mean(r['r10'] for r in rows):.3f} "
                  f"MRR@10 {statistics.mean(r['mrr10'] for r in rows):.3f}")


if __name__ == "__main__":
    main()
