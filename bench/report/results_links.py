#!/usr/bin/env python3
"""Checks that every results file the docs cite is in bench/results, so that pruning old results
never leaves a dead link.

What counts as a citation:
  - in README.md and docs/*.md, a path through bench/results/ (a link target such as
    ../bench/results/x.json, or the path in prose); templates such as
    bench/results/cold-start-<time>-<rev>.json and bare mentions of the folder are not files;
  - in the same pages, a run id (UTC time and git revision, 20261126T032411Z-62a1a3c): some
    file in bench/results must carry it;
  - every file bench/results/current.json names.

  python3 bench/report/results_links.py [--root DIR]

Prints one line per missing file (where it is cited) and exits 1 if there is any. Standard
library only; reads files, writes nothing.
"""
import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A path through bench/results/; a following '<', '*' or '{' makes it a template, not a file.
PATH = re.compile(r"bench/results/([A-Za-z0-9_.][A-Za-z0-9_./-]*)(?![<*{A-Za-z0-9_./-])")
# A run id as bench/results_file.py and the older scripts write it: time, then a 7-hex revision.
RUN_ID = re.compile(r"(?<![0-9])(\d{8}T\d{4,6}Z-[0-9a-f]{7})(?![0-9a-f])")


def citing_pages(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def missing(root):
    """[(where, what is missing)] for every citation whose file is not in bench/results."""
    results = os.path.join(root, "bench", "results")
    present = []
    for dirpath, _, names in os.walk(results):
        present += [os.path.relpath(os.path.join(dirpath, n), results) for n in names]
    problems = []
    for page in citing_pages(root):
        if not os.path.exists(page):
            continue
        shown = os.path.relpath(page, root)
        with open(page, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for match in PATH.finditer(line):
                    name = match.group(1).rstrip(".")
                    if name and not os.path.exists(os.path.join(results, name)):
                        problems.append((f"{shown}:{number}", f"bench/results/{name}"))
                for match in RUN_ID.finditer(line):
                    if not any(match.group(1) in p for p in present):
                        problems.append((f"{shown}:{number}", f"a results file of run {match.group(1)}"))
    current = os.path.join(results, "current.json")
    if os.path.exists(current):
        with open(current, encoding="utf-8") as f:
            for kind, name in json.load(f).items():
                if name is not None and not os.path.exists(os.path.join(results, name)):
                    problems.append((f"bench/results/current.json ({kind})", f"bench/results/{name}"))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=ROOT, help="the repository (default: this one)")
    a = ap.parse_args()
    problems = missing(a.root)
    for where, what in problems:
        print(f"{where}: cites {what}, which is not in bench/results")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
