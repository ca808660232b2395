#!/usr/bin/env python3
"""Fit a file's size against its coherence lift (`search::filesize`), leaving repositories out.

For a topic question that opens with a content word (a noun phrase naming a feature, not "how
are …"), the coherence lift of a file of `bytes` is multiplied by
min(1, (FULL / bytes) ^ EXP). This re-sorts the top-40 lists `bench/ltr.py collect` saved
(made by a build without the factor: every coherence value is then the whole lift) for each
(FULL, EXP) of a grid, and chooses one by leaving each repository out of every set at once:
each fold's choice is made on the other repositories, by ltr.py's objective summed over their
queries with ltr.py's margin of two queries' worth against no factor, and scored on the one
left out. Prints each fold's choice, the held-out figures against today's, and the best
points fitted on everything.

File sizes come from the concept runs' one-commit trees (`--concept-work SUB=DIR`) and, for
the eval.py sets, from the mirrors at each question's commit (`--set SUB=PATH`, SUB the
set's file name as `collect` recorded it).

  python3 bench/filesize_fit.py /tmp/ltr41.jsonl --concept-work concept=/tmp/evc \\
      --concept-work concept-check=/tmp/ccw --set shortq=bench/shortq.jsonl --set sc=/tmp/sc.jsonl \\
      --set sc2=/tmp/sc2.jsonl --set sc3=/tmp/sc3.jsonl --set big=/tmp/big.jsonl \\
      --set issues=../shared/eval/dev.jsonl --mirrors /work/.mirror
"""
import argparse, collections, itertools, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import eval as ev  # noqa: E402
import ltr  # noqa: E402

GRID = [(full, exp) for full in (4000, 8000, 16000, 32000, 64000, 128000)
        for exp in (0.125, 0.25, 0.375, 0.5, 0.75, 1.0)]


def stop_words():
    """query::ENGLISH_STOP, read from the source so the two cannot drift apart."""
    src = open(os.path.join(HERE, "..", "src", "search", "query.rs")).read()
    m = re.search(r"const ENGLISH_STOP: &\[&str\] = &\[(.*?)\];", src, re.S)
    if not m:
        raise SystemExit("ENGLISH_STOP not found in src/search/query.rs")
    block = re.sub(r"//[^\n]*", "", m.group(1))
    stop = set(re.findall(r'"([^"]+)"', block))
    assert {"how", "the", "where"} <= stop and len(stop) > 100, "ENGLISH_STOP read wrong"
    return stop


def first_word(query):
    """The query's first word as `search::reading` reads it: up to its first character that
    is not a letter or digit, lower case."""
    words = query.split()
    return "".join(itertools.takewhile(str.isalnum, words[0])).lower() if words else ""


def sizes(rows, concept_work, sets, mirrors):
    """Each hit's file size in bytes (None when unknown), as `r["sz"]`."""
    commit, twice = {}, set()
    for sub, path in sets.items():
        for it in map(json.loads, open(path)):
            key = (sub, it["repo"], it["query"])
            if commit.get(key, it["commit"]) != it["commit"]:
                twice.add(key)  # the same question at two commits: which one is not known
            commit[key] = it["commit"]
    for key in twice:
        del commit[key]
    want = collections.defaultdict(set)
    for r in rows:
        if r["set"] != "concept" and (r["sub"], r["repo"], r["query"]) in commit:
            c = commit[(r["sub"], r["repo"], r["query"])]
            want[r["repo"]].update(f"{c}:{h['path']}" for h in r["hits"])
    blob = {}
    for repo, keys in want.items():
        keys = sorted(keys)
        out = subprocess.run(["git", "--git-dir", ev.mirror_dir(mirrors, repo), "cat-file", "--batch-check"],
                             input="\n".join(keys) + "\n", capture_output=True, text=True, check=True).stdout
        for k, line in zip(keys, out.splitlines()):
            p = line.split()
            blob[k] = int(p[2]) if len(p) == 3 and p[1] == "blob" else None
    for r in rows:
        if r["set"] == "concept":
            base = os.path.join(concept_work[r["sub"]], r["repo"])
            r["sz"] = [os.path.getsize(os.path.join(base, h["path"])) if os.path.exists(os.path.join(base, h["path"]))
                       else None for h in r["hits"]]
        else:
            c = commit.get((r["sub"], r["repo"], r["query"]))
            r["sz"] = [blob.get(f"{c}:{h['path']}") if c else None for h in r["hits"]]


def orders(rows, point, stop):
    """Each query's order with the factor at `point` (None: today's)."""
    g = ltr.GROUPS.index("coherence")
    out = []
    for r in rows:
        if point is None or r["kind"] != "topic" or first_word(r["query"]) in stop:
            out.append(ltr.order(r, ltr.START))
            continue
        full, exp = point
        x = [list(v) for v in r["x"]]
        for v, s in zip(x, r["sz"]):
            if s and s > full:
                v[g] *= (full / s) ** exp
        out.append(ltr.order(dict(r, x=x), ltr.START))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features")
    ap.add_argument("--concept-work", action="append", default=[], help="SUB=DIR")
    ap.add_argument("--set", action="append", default=[], help="SUB=PATH")
    ap.add_argument("--mirrors", required=True)
    a = ap.parse_args()
    rows = ltr.prepare([json.loads(line) for line in open(a.features)])
    # Lists from a build that weighs sizes already would be weighed twice.
    if any(c.get("size_factor", 1.0) < 1.0 for r in rows for h in r["hits"] for c in h["explain"]):
        raise SystemExit("these lists were collected with the size factor on: collect them with a build "
                         "whose COHERENCE_SIZE_EXPONENT is 0")
    sizes(rows, dict(s.split("=", 1) for s in a.concept_work), dict(s.split("=", 1) for s in a.set), a.mirrors)
    stop = stop_words()
    points = [None] + GRID
    order = [orders(rows, p, stop) for p in points]
    obj = [[ltr.objective(r, o) for r, o in zip(rows, os_)] for os_ in order]
    today = ltr.set_figures(rows, order[0])
    held, picks = [None] * len(rows), collections.Counter()
    for repo in sorted({ltr.origin(r) for r in rows}):
        train = [j for j, r in enumerate(rows) if ltr.origin(r) != repo]
        best = max(range(len(points)),
                   key=lambda i: (sum(obj[i][j] for j in train) - (0 if i == 0 else ltr.MARGIN), -i))
        picks[points[best]] += 1
        for j, r in enumerate(rows):
            if ltr.origin(r) == repo:
                held[j] = order[best][j]
    print("folds' choices:", dict(picks))
    out = ltr.set_figures(rows, held)
    print("today:   ", {k: round(v, 4) for k, v in today.items()})
    print("held out:", {k: round(out[k] - today[k], 4) for k in today})
    for i in sorted(range(1, len(points)), key=lambda i: -sum(obj[i]))[:3]:
        f = ltr.set_figures(rows, order[i])
        print("fitted on all", points[i], {k: round(f[k] - today[k], 4) for k in today})


if __name__ == "__main__":
    main()
