"""Training text for the static model, from package registries only (crates.io, PyPI, npm,
Debian): pinned packages are fetched with their ordinary clients into WORK/corpus, then cut
into code chunks and query-like texts (a function's doc comment's first sentence, its name
as words) -- the student learns to put questions and code in the same space.

Nothing here comes from the evaluation's repositories (shared/eval): crates, packages and
Debian packages built from them are excluded below, so the model never saw the answers.
"""

import os
import re
import subprocess
import tarfile
import zipfile

# This repository's Cargo.lock at a fixed commit: `cargo vendor` of it is deterministic.
CARGO_LOCK_COMMIT = "efb19c7"
# Crates cut from the evaluation's repositories (serde, bytes, ripgrep's crates, zstd's C).
CRATE_EXCLUDE = re.compile(
    r"^(serde|serde_derive|serde_core|bytes|ignore|globset|grep(-.*)?|zstd(-.*)?|"
    r"windows.*|winapi.*|tree-sitter-.*)-\d"
)
# Pure-Python and mixed wheels: their .py files are the source. Pinned.
PYPI = """attrs==26.1.0 packaging==26.3 urllib3==2.8.0 jinja2==3.1.6 werkzeug==3.1.9
httpx==0.28.1 rich==15.0.0 pytest==9.2.0 tomli==2.5.0 pluggy==1.7.0 pygments==2.21.0
sqlalchemy==2.1.9 marshmallow==4.4.0 typer==0.29.1 fastapi==0.163.2 starlette==1.10.0
aiohttp==3.14.5 tornado==6.6.1 paramiko==5.1.0 six==1.17.0 networkx==3.7
more-itertools==11.2.1 cachetools==8.0.0 tqdm==4.70.1 jsonschema==4.26.0 pyparsing==3.3.3
scrapy==2.19.0 celery==5.7.0""".split()
NPM = """lodash@4.18.1 express@5.3.0 axios@1.21.1 commander@15.1.0 yargs@18.2.0 debug@4.4.3
rxjs@7.8.2 zod@4.6.7 moment@2.31.0 koa@3.2.1 async@3.2.6 underscore@1.13.8 immer@11.2.10
mobx@7.1.3 ws@8.23.0 socket.io@4.8.4 date-fns@4.4.0 ramda@0.32.0 bluebird@3.7.2
marked@18.2.1 handlebars@4.7.10 mocha@12.0.3 d3@7.9.2""".split()
# Debian ships Go, Ruby, PHP and Lua libraries as source (versions: the release's).
DEBIAN = """golang-github-gorilla-mux-dev golang-github-sirupsen-logrus-dev
golang-github-stretchr-testify-dev golang-github-gin-gonic-gin-dev golang-github-urfave-cli-dev
golang-github-prometheus-client-golang-dev golang-golang-x-net-dev ruby-rack ruby-sinatra
ruby-thor ruby-i18n php-symfony-console php-guzzlehttp-guzzle lua-penlight""".split()

LANGS = {
    ".py": "python", ".rs": "rust", ".js": "js", ".mjs": "js", ".cjs": "js", ".ts": "ts",
    ".tsx": "ts", ".jsx": "js", ".go": "go", ".rb": "ruby", ".php": "php", ".lua": "lua",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
}


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return r.stdout


def fetch(repo_root, work):
    """Fetch every pinned package into WORK/corpus/<registry>/ (skips what is there)."""
    base = os.path.join(work, "corpus")
    crates = os.path.join(base, "crates")
    if not os.path.isdir(crates):
        proj = os.path.join(work, "lockproj")
        os.makedirs(proj, exist_ok=True)
        run(["bash", "-c", f"git -C '{repo_root}' archive {CARGO_LOCK_COMMIT} | tar -x -C '{proj}'"])
        for extra in (["--offline"], []):
            r = subprocess.run(["cargo", "vendor", "--locked", "--versioned-dirs"] + extra + [crates],
                               cwd=proj, capture_output=True, text=True)
            if r.returncode == 0:
                break
        else:
            raise SystemExit("cargo vendor failed:\n" + r.stderr[-2000:])
    pypi = os.path.join(base, "pypi")
    if not os.path.isdir(pypi):
        dl = os.path.join(work, "dl-pypi")
        run(["python3", "-m", "pip", "download", "-q", "--no-deps", "--python-version", "3.12",
             "--only-binary", ":all:", "-d", dl] + PYPI)
        for f in sorted(os.listdir(dl)):
            with zipfile.ZipFile(os.path.join(dl, f)) as z:
                z.extractall(os.path.join(pypi, f.split("-")[0]))
    npm = os.path.join(base, "npm")
    if not os.path.isdir(npm):
        dl = os.path.join(work, "dl-npm")
        os.makedirs(dl, exist_ok=True)
        run(["npm", "pack", "--silent", "--pack-destination", dl] + NPM, cwd=dl)
        for f in sorted(os.listdir(dl)):
            with tarfile.open(os.path.join(dl, f)) as t:
                t.extractall(os.path.join(npm, f[:-4]), filter="data")
    deb = os.path.join(base, "debian")
    if not os.path.isdir(deb):
        dl = os.path.join(work, "dl-deb")
        os.makedirs(dl, exist_ok=True)
        run(["apt-get", "download", "-q"] + DEBIAN, cwd=dl)
        for f in sorted(os.listdir(dl)):
            os.makedirs(deb, exist_ok=True)
            run(["dpkg-deb", "-x", os.path.join(dl, f), os.path.join(deb, f.split("_")[0])])
    return base


def source_files(base):
    """(language, path relative to its package, absolute path), in a fixed order."""
    out = []
    for top in sorted(os.listdir(base)):
        for pkg in sorted(os.listdir(os.path.join(base, top))):
            if top == "crates" and CRATE_EXCLUDE.match(pkg):
                continue
            root = os.path.join(base, top, pkg)
            for d, dirs, files in os.walk(root):
                dirs.sort()
                for f in sorted(files):
                    lang = LANGS.get(os.path.splitext(f)[1])
                    p = os.path.join(d, f)
                    if lang and "/node_modules/" not in p and not f.endswith(".min.js"):
                        out.append((lang, os.path.relpath(p, root), p))
    return out


def readable(text):
    """Skip generated, minified and data files (the indexer's thresholds, roughly)."""
    lines = text.splitlines()
    if not lines or len(text) > 300_000 or len(lines) > 20_000:
        return False
    if max(len(l) for l in lines) > 300 or len(text) / len(lines) > 150:
        return False
    alnum = sum(c.isalnum() for c in text)
    return alnum / len(text) > 0.25 and sum(c.isdigit() for c in text) / len(text) < 0.3


def chunks(text, count, limit=240):
    """Cut at blank lines into pieces of at most `limit` teacher tokens (greedy)."""
    out, cur, n = [], [], 0
    for block in re.split(r"\n\s*\n", text):
        k = count(block)
        if cur and n + k > limit:
            out.append("\n\n".join(cur))
            cur, n = [], 0
        cur.append(block)
        n += k
    if cur:
        out.append("\n\n".join(cur))
    return [c for c in out if c.strip()]


DEF = re.compile(
    r"(?:\bdef|\bfn|\bfunction|\bfunc(?:\s*\([^)]*\))?|\bclass|\bstruct|\btrait|\binterface|"
    r"\benum|\bmodule)\s+([A-Za-z_$][\w$]*)"
)
COMMENT_PREFIXES = ("///", "//!", "//", "#", "--", "*", "/**")
PYDOC = re.compile(r'^\s*[rRbBuU]?("""|\'\'\')\s*(.+?)(?:\1|\n\s*\n)', re.S)


def first_sentence(comment):
    """The first sentence of a comment, markup stripped; '' when too short to be one."""
    text = re.sub(r"^[ \t]*(?:///|//!|//|#|--|/\*\*|\*/|\*)[ \t]?", "", comment, flags=re.M)
    text = re.sub(r"[`*_]|@\w+.*", "", text)
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    s = (m.group(1) if m else text)[:200]
    return s if len(s.split()) >= 3 else ""


def definitions(text):
    """(name, first doc sentence or '') of every definition with a name in `text`."""
    out = []
    for m in DEF.finditer(text):
        name, doc = m.group(1), ""
        before = text[max(0, m.start() - 1200):m.start()]
        lines = before[: before.rfind("\n") + 1].splitlines()
        comment = []
        while lines and len(comment) < 12 and lines[-1].lstrip().startswith(COMMENT_PREFIXES):
            comment.insert(0, lines.pop())
        if comment:
            doc = first_sentence("\n".join(comment))
        if not doc:
            after = text[m.end():m.end() + 1500]
            body = after.split(":", 1)[1] if ":" in after[:300] else ""
            pm = PYDOC.match(body)
            if pm:
                doc = first_sentence(pm.group(2))
        out.append((name, doc))
    return out
