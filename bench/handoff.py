#!/usr/bin/env python3
"""Hinted handoff alone: how long a partitioned node takes to get every write it missed.

Runs `ringkv handoff-run` (io.ringkv.ops.chaos.HandoffRun): three node processes, each in a
network namespace of its own (default `2/3`, anti-entropy interval 24 h, so no round runs), a
paced writer (new keys, 100-byte values) through the two nodes that stay linked; after a warm-up
one node's links to both others are cut for --partition-minutes (the benchmark itself still
reaches it, but writes never go to it); then the links come back and, with the writes going on,
its own copies (local ranges only, which repair nothing) are polled until it holds every write
acknowledged before the heal. Issue 18's target: within 60 s of the heal, after 5 minutes at
1,000 writes/s.

Needs root (ip netns). Writes bench/results/handoff-<time>-<rev>.json (the command, the revision,
the parameters, the run's figures, the catch-up progress and the coordinators' hint counters once
a second) and a .txt with the summary. Run it as `./ringkv bench --handoff [options]` (the launcher
builds first and sets JAVA_HOME).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import results_file

BENCH_DIR = results_file.BENCH_DIR
ROOT = results_file.ROOT


def log(msg):
    print("[handoff %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def bounded(kind, low, high, low_open=False):
    """An argparse type: a number of this kind in [low, high] ((low, high] with low_open)."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not a number: %r" % text)
        if not low <= value <= high or (low_open and value == low):  # also refuses NaN
            raise argparse.ArgumentTypeError("%s must be %s %s and at most %s" % (
                text, "above" if low_open else "at least", low, high))
        return value
    return parse


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--partition-minutes", type=bounded(float, 0, 120, low_open=True), default=5.0,
                    help="how long the node is cut off (default 5)")
    ap.add_argument("--rate", type=bounded(float, 0, 20000, low_open=True), default=1000.0,
                    help="writes per second through the two other nodes (default 1000)")
    ap.add_argument("--seed", type=int, help="picks the partitioned node and the values (default: random, recorded)")
    ap.add_argument("--warm-up-seconds", type=bounded(int, 0, 3600), default=10,
                    help="load before the partition (default 10)")
    ap.add_argument("--catch-up-timeout-seconds", type=bounded(int, 1, 7200), default=300,
                    help="how long after the heal the node gets (default 300)")
    ap.add_argument("--target-seconds", type=bounded(int, 1, 7200), default=60,
                    help="the catch-up time the verdict is against (default 60, issue 18)")
    ap.add_argument("--out-dir", default=os.path.join(BENCH_DIR, "results"))
    return ap


def main():
    args = parser().parse_args()
    if os.geteuid() != 0:
        log("needs root: the nodes run in network namespaces (ip netns) so that links can be cut")
        sys.exit(1)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(6), "big")
    run_id, rev, dirty = results_file.run_id()
    command = " ".join(["./ringkv", "bench", "--handoff"] + sys.argv[1:])
    loadavg_at_start = results_file.loadavg()
    work = tempfile.mkdtemp(prefix="ringkv-handoff.")
    result_json = os.path.join(work, "result.json")
    cmd = [os.path.join(ROOT, "ringkv"), "handoff-run", "--partition-minutes", repr(args.partition_minutes),
           "--rate", repr(args.rate), "--seed", str(seed), "--warm-up-seconds", str(args.warm_up_seconds),
           "--catch-up-timeout", "PT%dS" % args.catch_up_timeout_seconds, "--target", "PT%dS" % args.target_seconds,
           "--data", os.path.join(work, "nodes"), "--json", result_json]
    log("running: " + " ".join(cmd))
    done = subprocess.run(cmd)
    if done.returncode != 0 or not os.path.exists(result_json):
        log("ringkv handoff-run failed (exit %d); its data and node output are kept in %s" % (done.returncode, work))
        sys.exit(done.returncode or 1)
    with open(result_json) as f:
        result = json.load(f)
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "command": command, "nodes": 3, "replicas": "2/3",
            "value_bytes": 100, "partition_minutes": args.partition_minutes, "rate": args.rate, "seed": seed,
            "warm_up_s": args.warm_up_seconds, "catch_up_timeout_s": args.catch_up_timeout_seconds,
            "target_s": args.target_seconds, "cores": os.cpu_count(), "loadavg_at_start": loadavg_at_start,
            "loadavg_at_end": results_file.loadavg()}
    base = results_file.write(args.out_dir, "handoff", meta, {"meta": meta, "result": result}, "\n".join(result["summary"]))
    shutil.rmtree(work, ignore_errors=True)
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
