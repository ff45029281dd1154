#!/usr/bin/env python3
"""Checks that every results file the docs cite is in bench/results, so that pruning old results
never leaves a dead link, and that bench/results keeps no file nothing cites (git keeps those).

What counts as a citation:
  - in README.md and docs/*.md, a path through bench/results/ (a link target such as
    ../bench/results/x.json, or the path in prose); templates such as
    bench/results/cold-start-<time>-<rev>.json and bare mentions of the folder are not files;
  - in the same pages, a run id (UTC time and git revision, 20261126T032411Z-62a1a3c): some
    file in bench/results must carry it;
  - every file bench/results/current.json names.
A file in bench/results is kept by such a citation, or when a source file of the repository (a
script or test under bench/, a module's Java source, any other page) names it or its run id, or
names a pattern of one run's files (bench/results/profile-20261125T160500Z-*): the self-checks use
some committed files as their input, and code comments cite the measurement behind a choice.

  python3 bench/report/results_links.py [--root DIR]

Prints one line per missing file (where it is cited) and one per file nothing cites, and exits 1
if there is any. Standard library only; reads files, writes nothing.
"""
import argparse
import fnmatch
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
# A pattern of one run's files: a path through bench/results/ with a run's time in it and a '*'.
RUN_PATTERN = re.compile(r"bench/results/([A-Za-z0-9_.-]*\d{8}T\d{4,6}Z[A-Za-z0-9_.-]*\*[A-Za-z0-9_.*-]*)")


def citing_pages(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def results_files(root):
    """Every file in bench/results, as a path relative to it."""
    results = os.path.join(root, "bench", "results")
    present = []
    for dirpath, _, names in os.walk(results):
        present += [os.path.relpath(os.path.join(dirpath, n), results) for n in names]
    return present


def sources(root):
    """The repository's source files and pages, outside bench/results, build output and installed tools."""
    skip_dirs = {".git", "target", ".venv", ".tools", "node_modules"}
    results = os.path.join(root, "bench", "results")
    found = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip_dirs and os.path.join(dirpath, d) != results]
        found += [os.path.join(dirpath, n) for n in names if n.endswith((".md", ".py", ".sh", ".lua", ".java"))]
    return found


def uncited(root):
    """[file in bench/results] that no page, source file or current.json cites."""
    texts = []
    for path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    cited_names, cited_runs, cited_patterns = {"current.json"}, set(), set()
    for text in texts:
        cited_names.update(m.group(1).rstrip(".") for m in PATH.finditer(text))
        cited_runs.update(m.group(1) for m in RUN_ID.finditer(text))
        cited_patterns.update(m.group(1) for m in RUN_PATTERN.finditer(text))
    current = os.path.join(root, "bench", "results", "current.json")
    if os.path.exists(current):
        with open(current, encoding="utf-8") as f:
            cited_names.update(name for name in json.load(f).values() if name is not None)
    everything = "\n".join(texts)
    left = []
    for name in sorted(results_files(root)):
        runs = RUN_ID.findall(name)
        if (name in cited_names or any(run in cited_runs for run in runs) or os.path.basename(name) in everything
                or any(fnmatch.fnmatchcase(name, pattern) for pattern in cited_patterns)):
            continue
        left.append(name)
    return left


def missing(root):
    """[(where, what is missing)] for every citation whose file is not in bench/results."""
    results = os.path.join(root, "bench", "results")
    present = results_files(root)
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
    left = uncited(a.root)
    for name in left:
        print(f"bench/results/{name}: cited by no page, source file or current.json (delete it; git keeps it)")
    return 1 if problems or left else 0


if __name__ == "__main__":
    sys.exit(main())
