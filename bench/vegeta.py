"""vegeta for the Python benchmarks: built on demand (bench/lib/tools.sh), an open-loop attack
from a targets file, and its per-request results (timestamp, status, latency)."""
import csv
import re
import io
import os
import subprocess

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def ensure_vegeta():
    out = subprocess.run(["bash", "-c", 'set -e; BENCH_DIR="$1"; source "$1/lib/common.sh"; source "$1/lib/tools.sh"; '
                          'ensure_vegeta; echo "$VEGETA_BIN"', "_", BENCH_DIR],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("cannot get vegeta:\n" + out.stderr)
    return out.stdout.strip().splitlines()[-1]


def attack(vegeta, targets, rate, seconds, load_cpus, errors=None):
    """(timestamp ns, status, latency ms) per request; errors, a collections.Counter when given,
    counts vegeta's error text of the requests that failed (status 0: no answer), e.g. a timeout
    or a refused connection."""
    cmd = ["taskset", "-c", load_cpus, vegeta, "attack", "-format=http", "-targets", targets,
           "-rate", "%d/s" % rate, "-duration", "%ds" % seconds, "-timeout", "5s"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    enc = subprocess.run([vegeta, "encode", "--to", "csv"], input=raw, capture_output=True, check=True).stdout
    rows = []
    for rec in csv.reader(io.StringIO(enc.decode())):
        # timestamp (ns since epoch), code, latency (ns), bytes out, bytes in, error, ...
        rows.append((int(rec[0]), int(rec[1]), int(rec[2]) / 1e6))
        if errors is not None and int(rec[1]) == 0 and len(rec) > 5 and rec[5]:
            # Ports and addresses vary per request; the text around them says what failed.
            errors[re.sub(r"[0-9.:]+:[0-9]+", "ADDR", rec[5])[:160]] += 1
    return rows


def write_targets(path, requests):
    """requests: (method, url, body file or None) tuples, in the order vegeta cycles through them."""
    with open(path, "w") as f:
        for method, url, body in requests:
            f.write("%s %s\n%s\n" % (method, url, ("@%s\n" % body) if body else ""))
