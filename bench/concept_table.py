#!/usr/bin/env python3
"""Per-language and per-category tables of concept-set runs beside the peers' published figures.

Usage:
  python3 bench/concept_table.py NAME=RUN.json [NAME=RUN.json ...] [--peers DIR]

Each RUN.json is what `../shared/eval/concept/run.py --out` wrote. Peers are read from the
`peer-*.json` files next to run.py, restricted to the repositories the runs cover, and averaged
the way run.py averages: per language, then over languages (per category: over repositories).
Prints two Markdown tables (language rows, category rows), one column per run and per peer.
"""

import argparse
import glob
import json
import os
import statistics
from collections import defaultdict

PEERS = {
    ("semble-ablations", "bm25"): "plain BM25",
    ("semble-ablations", "semble-bm25"): "semble BM25+ranking",
    ("semble-hybrid-0332378809c5", ""): "semble hybrid",
    ("coderankembed", "hybrid"): "CodeRankEmbed hybrid",
}


def peer_rows(directory, repos):
    by_lang = defaultdict(lambda: defaultdict(list))
    by_cat = defaultdict(lambda: defaultdict(list))
    for f in sorted(glob.glob(os.path.join(directory, "peer-*.json"))):
        d = json.load(open(f))
        tool = d.get("tool", os.path.basename(f)[5:-5])
        for r in d.get("repos", []):
            name = PEERS.get((tool, r.get("mode", "")))
            if name is None or r.get("repo") not in repos:
                continue
            by_lang[name][r["language"]].append(r["ndcg10"])
            for cat, v in (r.get("by_category") or {}).items():
                score = v.get("ndcg10") if isinstance(v, dict) else v
                if score is not None:
                    by_cat[name][cat].append(score)
    return by_lang, by_cat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", help="NAME=RUN.json")
    ap.add_argument("--peers", default=os.path.join(os.path.dirname(__file__), "../../shared/eval/concept"))
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        name, path = spec.split("=", 1)
        runs.append((name, json.load(open(path))["summary"]))
    repos = set()
    for spec in a.runs:
        d = json.load(open(spec.split("=", 1)[1]))
        repos |= {r["repo"] for r in d.get("repos", []) if "repo" in r}
    lang_peers, cat_peers = peer_rows(a.peers, repos)
    names = [n for n, _ in runs] + list(lang_peers)
    languages = sorted({lang for _, s in runs for lang in s["by_language"]})
    print("| language | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for lang in languages:
        row = [f"{s['by_language'].get(lang, float('nan')):.3f}" for _, s in runs]
        row += [f"{statistics.mean(lang_peers[p][lang]):.3f}" if lang_peers[p][lang] else "" for p in lang_peers]
        print(f"| {lang} | " + " | ".join(row) + " |")
    row = [f"**{s['ndcg10_mean_over_languages']:.3f}**" for _, s in runs]
    row += [f"**{statistics.mean(statistics.mean(v) for v in lang_peers[p].values()):.3f}**" for p in lang_peers]
    print("| mean over languages | " + " | ".join(row) + " |")
    print()
    cats = sorted({c for _, s in runs for c in s["by_category"]})
    print("| category | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for c in cats:
        row = [f"{s['by_category'].get(c, float('nan')):.3f}" for _, s in runs]
        row += [f"{statistics.mean(cat_peers[p][c]):.3f}" if cat_peers[p][c] else "" for p in lang_peers]
        print(f"| {c} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
