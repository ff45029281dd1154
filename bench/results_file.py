"""What every Python benchmark writes: a run id (UTC time, git revision, "-dirty" when tracked
files differ from it), and bench/results/<prefix>-<run id>.json with a .txt summary beside it,
both opening with the command line and the run's metadata."""
import json
import os
import subprocess
from datetime import datetime, timezone

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)


def checkout(root=ROOT):
    """(short git revision, dirty: a tracked file changed) of the checkout at root."""
    rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    return rev, dirty


def run_id():
    """(run id, git revision, dirty)"""
    rev, dirty = checkout()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return "%s-%s%s" % (stamp, rev or "unknown", "-dirty" if dirty else ""), rev, dirty


def add_run_arguments(ap):
    """The options every interleaved-rounds benchmark takes: rounds, run and warm-up lengths, the
    CPUs for servers and load, where results go."""
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--duration", type=int, default=10, help="seconds per measured run (default 10)")
    ap.add_argument("--warmup", type=int, default=5, help="seconds of discarded load before each run (default 5)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "1"))
    ap.add_argument("--out-dir", default=os.path.join(BENCH_DIR, "results"))


def add_summarise_argument(ap):
    ap.add_argument("--summarise", metavar="JSON", help="only rewrite the .txt beside an earlier results file")


def rewrite_summary(json_path, summarise):
    """Rewrites the .txt beside an earlier results file from its runs; summarise(document) gives
    the summary's body. Prints the text."""
    with open(json_path) as f:
        doc = json.load(f)
    text = summary_text(doc["meta"], summarise(doc))
    with open(json_path[:-len(".json")] + ".txt", "w") as f:
        f.write(text)
    print(text)


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def summary_text(meta, summary):
    return "# %s\n# %s\n\n%s\n" % (meta["command"], json.dumps(meta), summary)


def write(out_dir, prefix, meta, document, summary):
    """Writes <out_dir>/<prefix>-<meta run_id>.json (document) and .txt; prints the summary.
    Returns the path without its extension."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, "%s-%s" % (prefix, meta["run_id"]))
    with open(base + ".json", "w") as f:
        json.dump(document, f, indent=1)
    text = summary_text(meta, summary)
    with open(base + ".txt", "w") as f:
        f.write(text)
    print(text)
    return base
