#!/usr/bin/env python3
"""Metrics cost: the closed-loop GET maximum of one node with metrics off against on.

Issue 19 asks that recording a request's metrics be cheap enough to leave on: the closed-loop GET
maximum with metrics on within 3 % of the one with them off. Starts two one-node processes with
`./ringkv serve`, one with `--metrics on` and one with `--metrics off`, both pinned to the server
CPU, writes the same key space into each, then measures them in interleaved rounds (the order
alternates from round to round, so that neither always runs first); per round and node a
discarded wrk warm-up and a measured wrk run, GETs of the prefilled keys (bench/lua/get.lua:
about 20 % misses, 404), 64 connections, load pinned to the load CPU. Only one node is loaded
at a time; the other idles.

For each run: requests per second, wrk's latency percentiles, and the server CPU per request
(user + system time of the node process during the run, from /proc). The summary gives each
node's mean and 95 % Student-t interval, and the ratio off/on of the maximum taken per round
(paired, so drift between rounds cancels) with its interval: a ratio whose interval lies below
1.03 meets the target, one whose interval lies above it does not, anything else needs more
rounds or a quieter machine.

Writes bench/results/metrics-cost-<time>-<rev>.json (every run) and .txt beside it. Run it as
`./ringkv bench --metrics-cost [options]`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import results_file
from replicated_path import Cluster, BENCH_DIR, ROOT, interval, prefill, wrk

# name: the node's --metrics value
NODES = {"off": "off", "on": "on"}
TARGET_RATIO = 1.03


def log(msg):
    print("[metrics-cost %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def order(round_number):
    """Odd rounds measure off first, even rounds on first."""
    return ["off", "on"] if round_number % 2 == 1 else ["on", "off"]


def verdict(low, high):
    if high <= TARGET_RATIO:
        return "within the target"
    if low > TARGET_RATIO:
        return "over the target"
    return "inconclusive: the interval straddles %.2f (more rounds, or a quieter machine)" % TARGET_RATIO


def summarise(runs):
    lines = ["%-4s %22s %26s %12s %12s %s" % ("node", "GET req/s (95% CI)", "server CPU us/req (95% CI)", "p50 ms",
                                             "p99 ms", "non-2xx % (404 misses by design)")]
    stats = {}
    for name in NODES:
        rs = [r for r in runs if r["node"] == name]
        if not rs:
            continue
        rps = interval([r["rps"] for r in rs])
        cpu = interval([r["cpu_us_per_request"] for r in rs])
        stats[name] = (rps, cpu)
        lines.append("%-4s %12.0f ± %-8.0f %15.1f ± %-8.1f %12.2f %12.2f %.1f" % (
            name, rps[0], rps[1], cpu[0], cpu[1],
            statistics.median(r["latency_us"]["p50"] for r in rs) / 1000,
            statistics.median(r["latency_us"]["p99"] for r in rs) / 1000,
            100.0 * sum(r["non_2xx"] for r in rs) / max(sum(r["requests"] for r in rs), 1)))
    by_round = {}
    for r in runs:
        by_round.setdefault(r["round"], {})[r["node"]] = r
    pairs = [(rnd["off"], rnd["on"]) for _, rnd in sorted(by_round.items()) if "off" in rnd and "on" in rnd]
    if not pairs:
        return "\n".join(lines)
    ratios = [off["rps"] / on["rps"] for off, on in pairs]
    cpu_ratios = [on["cpu_us_per_request"] / off["cpu_us_per_request"] for off, on in pairs]
    mean, half = interval(ratios)
    cpu_mean, cpu_half = interval(cpu_ratios)
    lines.append("")
    lines.append("GET maximum off / on, per round: %s" % ", ".join("%.3f" % r for r in ratios))
    if len(pairs) > 1:
        lines.append("  mean %.3f ± %.3f (95%% CI %.3f to %.3f); target <= %.2f: %s" % (
            mean, half, mean - half, mean + half, TARGET_RATIO, verdict(mean - half, mean + half)))
        lines.append("server CPU per request on / off: %.3f ± %.3f" % (cpu_mean, cpu_half))
    else:
        lines.append("  one round: no interval, no verdict (run --rounds 2 or more)")
        lines.append("server CPU per request on / off: %.3f" % cpu_mean)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    results_file.add_run_arguments(ap)
    ap.add_argument("--keys", type=int, default=20000, help="keys written into each node before the runs (default 20000)")
    ap.add_argument("--connections", type=int, default=64, help="wrk connections (default 64)")
    ap.add_argument("--node-args", default="", help="extra flags for both `ringkv serve`")
    results_file.add_summarise_argument(ap)
    args = ap.parse_args()
    if args.summarise:
        results_file.rewrite_summary(args.summarise, lambda doc: summarise(doc["runs"]))
        return
    if args.rounds < 1 or args.duration < 1 or args.warmup < 0 or args.keys < 1 or args.connections < 1:
        ap.error("--rounds, --duration, --keys and --connections must be at least 1, --warmup at least 0")
    if "--metrics" in args.node_args.split():
        ap.error("--node-args must not set --metrics: the benchmark sets it per node")
    for tool in ("wrk", "taskset"):
        if subprocess.run(["bash", "-c", "command -v " + tool], capture_output=True).returncode != 0:
            raise SystemExit("%s is not installed (Debian: wrk, util-linux)" % tool)
    run_id, rev, dirty = results_file.run_id()
    runs = []
    with tempfile.TemporaryDirectory(prefix="ringkv-metrics-cost.") as tmp:
        nodes = {}
        try:
            for name, value in NODES.items():
                nodes[name] = Cluster("metrics-" + name, 1, ["--metrics", value] + args.node_args.split(), tmp,
                                      args.server_cpus)
            for name, node in nodes.items():
                node.await_ready()
                log("metrics %s: node at %s; writing %d keys" % (name, node.urls[0], args.keys))
                prefill(node.urls[0], args.keys, b"v" * 100)
            for rnd in range(1, args.rounds + 1):
                for name in order(rnd):
                    node = nodes[name]
                    if args.warmup:
                        wrk(node.urls[0], "get", args.warmup, args.connections, args.load_cpus, args.keys)
                    before = node.cpu_seconds()
                    res = wrk(node.urls[0], "get", args.duration, args.connections, args.load_cpus, args.keys)
                    cpu = node.cpu_seconds() - before
                    answered = res["requests"]
                    run = {"round": rnd, "node": name, "requests": answered,
                           "rps": answered / (res["duration_us"] / 1e6), "server_cpu_s": cpu,
                           "cpu_us_per_request": cpu * 1e6 / max(answered, 1), "latency_us": res["latency_us"],
                           "non_2xx": res["errors"]["status"], "errors": res["errors"]}
                    runs.append(run)
                    log("round %d metrics %s: %.0f req/s, %.1f us CPU/req, p99 %.2f ms" % (
                        rnd, name, run["rps"], run["cpu_us_per_request"], res["latency_us"]["p99"] / 1000))
        finally:
            for node in nodes.values():
                node.stop()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "duration_s": args.duration,
            "warmup_s": args.warmup, "keys": args.keys, "value_bytes": 100, "connections": args.connections,
            "server_cpus": args.server_cpus, "load_cpus": args.load_cpus, "node_args": args.node_args,
            "wrk": "bench/lua/get.lua", "loadavg_at_end": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--metrics-cost"] + sys.argv[1:])}
    base = results_file.write(args.out_dir, "metrics-cost", meta, {"meta": meta, "runs": runs}, summarise(runs))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
