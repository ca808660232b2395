#!/usr/bin/env python3
"""A large real corpus for the scale benchmark: this project's own dependencies, vendored.

`cargo vendor --locked --versioned-dirs` writes the sources of every crate in Cargo.lock (real
Rust, C and assets; about 30,000 files and 680 MB), which is deterministic from Cargo.lock. This
script commits them into a bare git repository, one tag per size: `files-N` holds the first N
files in path order, `files-all` all of them, each with a fixed author and date so the commit ids
are the same on every machine. Then `bench/bench.py` measures each size next to `git status` and
`git grep` in the same run:

    python3 bench/vendor_corpus.py --out /tmp/scale --sizes 2000,8000
    for t in files-2000 files-8000 files-all; do
        python3 bench/bench.py --git-dir /tmp/scale/corpus.git --rev-a $t --embed-secs 0
    done

Needs the crates in the cargo cache (any build of this project fills it) or access to crates.io.
"""

import argparse
import os
import shutil
import subprocess

GIT_ENV = {
    "GIT_AUTHOR_NAME": "corpus",
    "GIT_AUTHOR_EMAIL": "corpus@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "corpus",
    "GIT_COMMITTER_EMAIL": "corpus@example.invalid",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(args, cwd, env=None, stdin=None):
    """Run git, return its stdout as text."""
    full = dict(os.environ, **GIT_ENV, **(env or {}))
    out = subprocess.run(["git"] + args, cwd=cwd, env=full, input=stdin,
                         capture_output=True, check=True)
    return out.stdout.decode()


def vendor(repo_root, dest):
    """Vendor Cargo.lock's crates into dest (offline first, from the cargo cache)."""
    if os.path.isdir(dest) and os.listdir(dest):
        return
    for extra in (["--offline"], []):
        r = subprocess.run(["cargo", "vendor", "--locked", "--versioned-dirs"] + extra + [dest],
                           cwd=repo_root, capture_output=True)
        if r.returncode == 0:
            return
    raise SystemExit("cargo vendor failed:\n" + r.stderr.decode())


def files_in_order(root):
    """Every file under root, relative, in byte order of the path."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out, key=lambda p: p.encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="work directory (vendor/ and corpus.git go here)")
    ap.add_argument("--sizes", default="2000,8000", help="file counts to tag besides all")
    args = ap.parse_args()
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(args.out, "vendor")
    vendor(repo_root, src)
    paths = files_in_order(src)
    bare = os.path.join(args.out, "corpus.git")
    if os.path.isdir(bare):
        shutil.rmtree(bare)
    git(["init", "-q", "--bare", bare], cwd=args.out)
    index = os.path.join(args.out, "corpus.index")
    env = {"GIT_INDEX_FILE": index, "GIT_DIR": bare, "GIT_WORK_TREE": src}
    if os.path.exists(index):
        os.remove(index)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s) + [len(paths)]
    added = 0
    parent = None
    for n in sizes:
        n = min(n, len(paths))
        batch = paths[added:n]
        # -f: vendored crates carry their own .gitignore files; the corpus keeps every file.
        for i in range(0, len(batch), 1000):
            git(["add", "-f", "--"] + batch[i:i + 1000], cwd=src, env=env)
        added = n
        tree = git(["write-tree"], cwd=src, env=env).strip()
        cmd = ["commit-tree", tree, "-m", f"the first {n} vendored files"]
        if parent:
            cmd[2:2] = ["-p", parent]
        parent = git(cmd, cwd=src, env=env).strip()
        tag = "files-all" if n == len(paths) else f"files-{n}"
        git(["tag", "-f", tag, parent], cwd=src, env=env)
        print(f"{tag}: {n} files, commit {parent}")


if __name__ == "__main__":
    main()
