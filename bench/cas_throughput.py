#!/usr/bin/env python3
"""Conditional writes against plain writes: the throughput of PUT with If-Match (a compare-and-set
by Paxos among the key's 3 replicas: prepare, accept, commit) against plain PUT (one replicated
write) through one node of a 3-node cluster, in the same run (issue 35's target: at least 0.25x).

Starts one 3-node cluster (nodes pinned to the server CPUs), prefills the keys, then runs
interleaved rounds, each a warm-up and a measured closed-loop wrk run per scenario (plain PUT,
If-Match PUT) against the first node: every wrk thread has one connection and a key set of its
own (bench/lua/cas.lua), so conditional writes never contend with each other. Records requests
per second, latency percentiles and non-2xx answers per run; the .txt has the mean and 95 %
confidence interval per scenario and of the per-round ratio.

Writes bench/results/cas-throughput-<time>-<rev>.json and .txt. Run it as
`./ringkv bench --cas-throughput [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import replicated_path as rp
import results_file

LUA_DIR = rp.LUA_DIR


def log(msg):
    print("[cas-throughput %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def wrk(url, plain, seconds, connections, load_cpus, keys_per_thread):
    env = dict(os.environ, BENCH_LUA_DIR=LUA_DIR, BENCH_CAS_KEYS_PER_THREAD=str(keys_per_thread),
               BENCH_VALUE_BYTES="100", BENCH_CAS_PLAIN="1" if plain else "0")
    cmd = ["taskset", "-c", load_cpus, "wrk", "-t%d" % connections, "-c%d" % connections, "-d%ds" % seconds,
           "--timeout", "5s", "-s", os.path.join(LUA_DIR, "cas.lua"), url]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("BENCH_WRK_JSON "):
            return json.loads(line[len("BENCH_WRK_JSON "):])
    raise SystemExit("wrk printed no result line:\n" + out)


def interval(values):
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, rp.t95(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5


def summarise(doc):
    lines = ["# " + doc["command"], "# run %s, %d rounds of %d s (warm-up %d s), %d connections" % (
        doc["run_id"], doc["rounds"], doc["duration"], doc["warmup"], doc["connections"])]
    rates = {}
    for scenario in ("plain", "if-match"):
        runs = [r for r in doc["runs"] if r["scenario"] == scenario]
        rates[scenario] = [r["requests"] / (r["duration_us"] / 1e6) for r in runs]
        mean, half = interval(rates[scenario])
        p99 = statistics.mean(r["latency_us"]["p99"] for r in runs) / 1000
        errors = sum(r["errors"]["status"] for r in runs)
        lines.append("%-9s %9.0f req/s +- %.0f (95%% CI), mean p99 %.1f ms, non-2xx answers %d" % (
            scenario, mean, half, p99, errors))
    ratios = [c / p for c, p in zip(rates["if-match"], rates["plain"])]
    mean, half = interval(ratios)
    lines.append("if-match / plain: %.2fx +- %.2f (95%% CI of the per-round ratio; issue 35's target >= 0.25x)" % (mean, half))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    results_file.add_run_arguments(ap)
    ap.add_argument("--connections", type=int, default=8, help="wrk connections, one thread each (default 8)")
    ap.add_argument("--keys-per-connection", type=int, default=1000, help="keys each connection cycles through (default 1000)")
    args = ap.parse_args()
    if args.rounds < 1 or args.duration < 1 or args.warmup < 0 or args.connections < 1 or args.keys_per_connection < 1:
        ap.error("--rounds, --duration, --connections and --keys-per-connection must be positive")
    run, rev, dirty = results_file.run_id()
    command = "./ringkv bench --cas-throughput " + " ".join(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="ringkv-cas-bench-") as tmp:
        cluster = rp.Cluster("cas", 3, ["--warm-up", "PT0S"], tmp, args.server_cpus)
        try:
            cluster.await_ready()
            keys = args.connections * args.keys_per_connection
            log("3 nodes ready; prefilling %d keys" % keys)
            rp.prefill(cluster.urls[0], keys, b"v" * 100)
            runs = []
            for rnd in range(args.rounds):
                for scenario in ("plain", "if-match"):
                    plain = scenario == "plain"
                    if args.warmup:
                        wrk(cluster.urls[0], plain, args.warmup, args.connections, args.load_cpus, args.keys_per_connection)
                    result = wrk(cluster.urls[0], plain, args.duration, args.connections, args.load_cpus,
                                 args.keys_per_connection)
                    result.update(scenario=scenario, round=rnd)
                    runs.append(result)
                    log("round %d %s: %.0f req/s, %d non-2xx" % (rnd, scenario, result["requests"] / (result["duration_us"] / 1e6),
                                                               result["errors"]["status"]))
        finally:
            cluster.stop()
    doc = {"command": command, "run_id": run, "revision": rev, "dirty": dirty, "rounds": args.rounds,
           "duration": args.duration, "warmup": args.warmup, "connections": args.connections,
           "keys_per_connection": args.keys_per_connection, "server_cpus": args.server_cpus,
           "load_cpus": args.load_cpus, "runs": runs}
    os.makedirs(args.out_dir, exist_ok=True)
    base = os.path.join(args.out_dir, "cas-throughput-%s" % run)
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    text = summarise(doc)
    with open(base + ".txt", "w") as f:
        f.write(text)
    sys.stdout.write(text)
    log("wrote %s.json and .txt" % base)


if __name__ == "__main__":
    main()
