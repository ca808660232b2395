#!/usr/bin/env python3
"""The concept check set: concept and name questions over repositories that no concept
question uses, written in the concept set's style and checked against the code by
language-model sessions that did not see any tool's ranking (bench/concept-check/README.md,
thirty-fifth session). It judges a ranking change on repositories the concept rules were not
fitted to.

It runs the concept set's own runner (`../shared/eval/concept/run.py`: the same one-commit
trees, the same NDCG@10, averaged per repository, then language, then over languages) on
this directory's `repos.json` and `annotations/`; every argument is the runner's.

usage: python3 bench/concept_check.py --bin BIN --mirrors /work/.mirror --work DIR \\
           [--setup "index --wait"] [--mode bm25] [--out FILE] [--runner PATH]
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RUNNER = os.path.join(HERE, "..", "..", "shared", "eval", "concept", "run.py")


def main():
    args = sys.argv[1:]
    runner = DEFAULT_RUNNER
    if "--runner" in args:
        i = args.index("--runner")
        runner = args[i + 1]
        del args[i:i + 2]
    spec = importlib.util.spec_from_file_location("concept_run", runner)
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    # The runner reads repos.json, annotations/ and the peers' figures beside itself.
    run.HERE = os.path.join(HERE, "concept-check")
    sys.argv = [runner] + args
    run.main()


if __name__ == "__main__":
    main()
