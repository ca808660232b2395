#!/usr/bin/env python3
"""Build an issue-shaped check set from commit history: a commit's message (a title line and a
body) asks for the lines the commit changed, searched on its parent.

Pasted issues come from one development set only (`../shared/eval/dev.jsonl`); this set checks a
change to how issues are ranked on repositories it was not fitted to. A commit message is not an
issue (it describes the fix, where an issue describes the failure, and names code more often),
so read it as a second opinion beside the issue set, never as a replacement.

Usage:
  python3 bench/commitq.py --set bench/shortq-check.repos.jsonl --mirrors /work/.mirror \\
      --out /tmp/commitq.jsonl [--per-repo 15]
  python3 bench/eval.py --set /tmp/commitq.jsonl --mirrors /work/.mirror --modes hybrid --work /tmp/evq

For each repository, from the first 3,000 non-merge commits before the pinned one, sampled
deterministically (by a hash of repository and commit), it keeps commits that
- change 1 to 3 source files (the extensions and the test / docs / vendored filters of
  `bench/shortq.py`) and nothing else but tests, docs or changelogs,
- have a message of a title of at least 4 words and a body of at least 8 words, that names
  no changed file by its file name.
The query is the whole message; the gold files are the changed source files; the gold spans
are the lines the commit removed or changed in the parent (for a pure insertion, the lines
around it). No gold functions: Func@10 is not reported.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from eval import mirror_dir  # noqa: E402
from shortq import EXT, SKIP_DIR, SKIP_FILE  # noqa: E402

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)
OTHER = re.compile(r"(^|/)(tests?|docs?|changes|CHANGE|HISTORY|NEWS)|\.(md|rst|txt)$", re.I)


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def commits(gitdir, tip, limit=3000):
    """(commit, parent, message) of the first `limit` non-merge commits before `tip`."""
    out = git(gitdir, "log", "--no-merges", f"-{limit}", "--format=%H%x00%P%x00%B%x1e", tip)
    for rec in out.split("\x1e"):
        parts = rec.strip("\n").split("\x00")
        if len(parts) == 3 and len(parts[1].split()) == 1:
            yield parts[0], parts[1], parts[2].strip()


def spans(gitdir, parent, commit, path):
    """The parent's line ranges the commit changed in `path`."""
    diff = git(gitdir, "diff", "-U0", "--no-color", parent, commit, "--", path)
    out = []
    for m in HUNK.finditer(diff):
        start, count = int(m.group(1)), int(m.group(2) or "1")
        if count == 0:  # a pure insertion after line `start`
            out.append((max(start, 1), start + 1))
        else:
            out.append((start, start + count - 1))
    return out


def question(gitdir, repo, language, commit, parent, message):
    """One check item for `commit`, or None when it does not qualify."""
    title, _, body = message.partition("\n")
    if len(title.split()) < 4 or len(body.split()) < 8:
        return None
    changed = [p for p in git(gitdir, "diff", "--name-only", "--no-renames", parent, commit).splitlines() if p]
    source = [p for p in changed if os.path.splitext(p)[1] in EXT
              and not SKIP_DIR.search(p) and not SKIP_FILE.search(p)]
    rest = [p for p in changed if p not in source]
    if not 1 <= len(source) <= 3 or any(not OTHER.search(p) for p in rest):
        return None
    if any(os.path.basename(p).lower() in message.lower() for p in source):
        return None
    gold = [{"path": p, "start_line": s, "end_line": e}
            for p in source for s, e in spans(gitdir, parent, commit, p)]
    if not gold:
        return None
    return {"id": f"{repo}:{commit[:12]}", "repo": repo, "commit": parent, "language": language,
            "query": message, "gold_files": source, "gold_spans": gold, "gold_functions": [],
            "source": "commitq (a commit's message, searched on its parent)"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True, help="repositories: JSON lines of repo, commit, language")
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-repo", type=int, default=15)
    args = ap.parse_args()
    out = []
    for line in open(args.set):
        it = json.loads(line)
        gitdir = mirror_dir(args.mirrors, it["repo"])
        if gitdir is None:
            print(f"skipping {it['repo']}: no mirror", file=sys.stderr)
            continue
        found = sorted(commits(gitdir, it["commit"]),
                       key=lambda c: hashlib.sha1(f"{it['repo']}:{c[0]}".encode()).hexdigest())
        kept = []
        for commit, parent, message in found:
            if len(kept) >= args.per_repo:
                break
            q = question(gitdir, it["repo"], it["language"], commit, parent, message)
            if q:
                kept.append(q)
        out.extend(kept)
        print(f"{it['repo']}: {len(kept)}", file=sys.stderr)
    with open(args.out, "w") as f:
        for o in out:
            f.write(json.dumps(o) + "\n")
    print(f"{len(out)} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
