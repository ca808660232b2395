#!/usr/bin/env python3
"""Shared index through object storage (issue 35): push and pull against a local S3 server.

On one tag of the vendored corpus (`bench/vendor_corpus.py`), with moto's S3 server started on a
free port of 127.0.0.1 (installed by `scripts/setup.sh`):

- CI clone: `index`, then `export FILE` and `push s3://…` (time, bytes);
- a fresh clone: `pull` then the first search (time, bytes), against `import FILE` of the export
  and against indexing there (the CI clone's `index` time: the same work on the same files);
- no-change `push` and `pull` (time);
- a change of N files committed on the CI clone, indexed, pushed; the developer fetches the
  commit and pulls: bytes moved by each as % of a full export.

    python3 bench/vendor_corpus.py --out /tmp/scale --sizes 2000,8000
    python3 bench/remote_bench.py --git-dir /tmp/scale/corpus.git --rev files-8000 \\
        --bin target/release/git-codesearch

Prints one JSON object. Bytes of push and pull are what the commands report moving (packs and
manifests, as stored: gzip'd); the export is its tar file.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

ENV = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench-secret",
    "AWS_REGION": "us-east-1",
    "AWS_ALLOW_HTTP": "true",
    "NO_COLOR": "1",
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def timed(cmd, cwd, env):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return dt, p.stdout


def kib(text, word):
    """The KiB a push ('uploaded …, X KiB') or pull ('downloaded …, X KiB') reports."""
    m = re.search(word + r"[^\n]*?([0-9.]+) KiB", text)
    return int(float(m.group(1)) * 1024) if m else 0


def start_s3():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    urllib.request.urlopen(urllib.request.Request(url + "/bench", method="PUT"))
    return proc, url


def clone(git_dir, rev, dest, env):
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", git_dir, dest], check=True, env=env)
    subprocess.run(["git", "checkout", "-q", "-b", "main", rev], cwd=dest, check=True, env=env)


def change(wt, n, env):
    """Append a line to the first n tracked .rs files; commit."""
    files = subprocess.run(["git", "ls-files", "*.rs"], cwd=wt, capture_output=True, text=True).stdout.split()
    for f in files[:n]:
        with open(os.path.join(wt, f), "a") as out:
            out.write("\n// changed for the push/pull benchmark\n")
    subprocess.run(["git", "commit", "-q", "-am", f"change {n} files"], cwd=wt, check=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--rev", required=True)
    ap.add_argument("--bin", default="target/release/git-codesearch")
    ap.add_argument("--change", type=int, default=50)
    ap.add_argument("--query", default="parse command line arguments")
    ap.add_argument("--ref-bin", help="also time `index` with this binary (e.g. a release build) in a clone of its own")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    tmp = tempfile.mkdtemp(prefix="cs-remote-")
    server, endpoint = start_s3()
    env = dict(os.environ, **ENV, AWS_ENDPOINT=endpoint)
    env.pop("GIT_CODESEARCH_DIR", None)
    remote = "s3://bench/team/index"
    try:
        print(json.dumps(bench(binary, args, tmp, env, remote), indent=2))
    finally:
        server.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def bench(binary, args, tmp, env, remote):
    r = {"rev": args.rev}
    ci, dev, imp, ref = (os.path.join(tmp, n) for n in ("ci", "dev", "imp", "ref"))
    for d in (ci, dev, imp, ref):
        clone(args.git_dir, args.rev, d, env)
    if args.ref_bin:
        r["ref_index_s"], _ = timed([os.path.abspath(args.ref_bin), "index", "-q", "--no-embed"], ref, env)
    r["files"] = len(subprocess.run(["git", "ls-files"], cwd=ci, capture_output=True, text=True).stdout.split())
    r["index_s"], _ = timed([binary, "index", "-q", "--no-embed"], ci, env)
    tar = os.path.join(tmp, "index.tar")
    r["export_s"], _ = timed([binary, "export", tar], ci, env)
    r["export_bytes"] = os.path.getsize(tar)
    r["push_s"], out = timed([binary, "push", remote], ci, env)
    r["push_bytes"] = kib(out, "uploaded")
    r["import_s"], _ = timed([binary, "import", tar], imp, env)
    r["pull_s"], out = timed([binary, "pull", remote], dev, env)
    r["pull_bytes"] = kib(out, "downloaded")
    r["first_search_s"], _ = timed([binary, "--no-index", "-q", args.query], dev, env)
    r["pull_and_search_vs_index"] = round((r["pull_s"] + r["first_search_s"]) / r["index_s"], 3)
    if args.ref_bin:
        r["pull_and_search_vs_ref_index"] = round((r["pull_s"] + r["first_search_s"]) / r["ref_index_s"], 3)
    r["noop_push_s"], _ = timed([binary, "push", remote], ci, env)
    r["noop_pull_s"], _ = timed([binary, "pull", remote], dev, env)
    change(ci, args.change, env)
    r["change_index_s"], _ = timed([binary, "index", "-q", "--no-embed"], ci, env)
    r["change_push_s"], out = timed([binary, "push", remote], ci, env)
    r["change_push_bytes"] = kib(out, "uploaded")
    subprocess.run(["git", "fetch", "-q", ci, "main"], cwd=dev, check=True, env=env)
    subprocess.run(["git", "reset", "-q", "--hard", "FETCH_HEAD"], cwd=dev, check=True, env=env)
    r["change_pull_s"], out = timed([binary, "pull", remote], dev, env)
    r["change_pull_bytes"] = kib(out, "downloaded")
    r["change_pull_out"] = out.strip()
    r["change_push_pct_of_export"] = round(100 * r["change_push_bytes"] / r["export_bytes"], 2)
    r["change_pull_pct_of_export"] = round(100 * r["change_pull_bytes"] / r["export_bytes"], 2)
    for k, v in list(r.items()):
        if isinstance(v, float):
            r[k] = round(v, 2)
    return r


if __name__ == "__main__":
    main()
