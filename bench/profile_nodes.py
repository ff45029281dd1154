#!/usr/bin/env python3
"""Where a request's CPU goes on one node and on a 3-node cluster, from async-profiler CPU profiles.

    ASYNC_PROFILER_LIB=/path/libasyncProfiler.so python3 bench/profile_nodes.py OUT_DIR

Starts a 1-node cluster and a 3-node cluster (bench/replicated_path.py's harness: every node
pinned to the server CPU, wrk on the load CPU), writes --keys keys of 100 bytes into each, and,
per cluster and scenario (closed-loop PUT of new keys, then GET): --settle seconds of load, then
--seconds of load with async-profiler attached (event cpu, --interval-us) to the first node (the
coordinator: wrk sends it everything, at the default replicas 2/3) and, for 3 nodes, the second
(a replica). With --rate N the load is vegeta's at N requests a second instead (open loop, as
replicated_path.py's --rate): where a request's CPU goes at a moderate rate, where it costs
several times its closed-loop figure. The collapsed stacks go to OUT_DIR (gzip); bench/results/profile-nodes-<run id>.json
and .txt hold the splits of bench/report/profile_split.py for each profile, in microseconds of
CPU per request: by the leaf-most frame's owner, the socket writes by what flushed them, and the
inter-node client's own work; and every node's read and write system calls per request (/proc/PID/io). The profiler slows the nodes: compare splits, not rates.
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import results_file
import vegeta
from replicated_path import Cluster, constant_rate, log, prefill, wrk

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(BENCH_DIR, "report"))
import profile_split  # noqa: E402


def jcmd_agent(pid, lib, command):
    # The diagnostic command parser splits its arguments at commas unless quoted.
    done = subprocess.run(["jcmd", str(pid), "JVMTI.agent_load", lib, "'%s'" % command], capture_output=True, text=True)
    if done.returncode != 0 or "return code: 0" not in done.stdout:
        raise SystemExit("jcmd %s %s failed: %s%s" % (pid, command, done.stdout, done.stderr))


def syscalls(pids):
    """Read and write system calls so far ({"reads", "writes"}), summed over the processes
    (/proc/PID/io: syscr, syscw; epoll_wait is neither)."""
    total = {"reads": 0, "writes": 0}
    for pid in pids:
        with open("/proc/%d/io" % pid) as f:
            fields = dict(line.split(": ") for line in f.read().splitlines())
        total["reads"] += int(fields["syscr"])
        total["writes"] += int(fields["syscw"])
    return total


def run_load(cluster, scenario, seconds, args, tmp):
    """One load run against the first node: wrk's closed loop, or vegeta at --rate; returns
    (requests answered, seconds it took)."""
    if args.rate:
        result = constant_rate(args.vegeta_bin, cluster.urls[0], scenario, args.rate, seconds, args.load_cpus,
                               args.keys, tmp)
        return result["requests"], seconds
    result = wrk(cluster.urls[0], scenario, seconds, args.connections, args.load_cpus, args.keys)
    return result["requests"], result["duration_us"] / 1e6


def profile(cluster, nodes, scenario, args, lib, out_dir, tmp):
    """Settles, then profiles the first node (and the second of a cluster) during one load run;
    returns the run's document."""
    run_load(cluster, scenario, args.settle, args, tmp)
    pids = [p.pid for p in cluster.procs[:2]]
    for pid in pids:
        jcmd_agent(pid, lib, "start,event=cpu,interval=%dus" % args.interval_us)
    every = [p.pid for p in cluster.procs]
    before = [syscalls([pid]) for pid in every]
    requests, seconds = run_load(cluster, scenario, args.seconds, args, tmp)
    after = [syscalls([pid]) for pid in every]
    rate = requests / seconds
    per_request = [{kind: (a[kind] - b[kind]) / requests for kind in a} for a, b in zip(after, before)]
    profiles = []
    for index, pid in enumerate(pids):
        role = "coordinator" if index == 0 else "replica"
        name = "%dn-%s-%s" % (nodes, scenario, role if nodes > 1 else "node")
        raw = os.path.join(out_dir, name + ".collapsed")
        jcmd_agent(pid, lib, "stop,file=%s,collapsed" % raw)
        with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(raw)
        split = profile_split.split(profile_split.read(raw + ".gz"), args.interval_us, args.seconds, rate)
        profiles.append({"name": name, "role": role, "file": os.path.basename(raw) + ".gz", "split": split})
    log("%d nodes %s: %.0f req/s while profiled" % (nodes, scenario, rate))
    return {"nodes": nodes, "scenario": scenario, "requests_per_s": rate, "profiles": profiles,
            "syscalls_per_request": per_request}


def summarise(doc):
    lines = []
    for run in doc["runs"]:
        lines.append("== %d node(s), %s: %.0f requests/s while profiled" % (run["nodes"], run["scenario"],
                                                                         run["requests_per_s"]))
        lines.append("read / write system calls per request, by node (storage files included): " + ", ".join(
            "%.2f / %.2f" % (n["reads"], n["writes"]) for n in run["syscalls_per_request"]))
        for p in run["profiles"]:
            lines.append(profile_split.render(p["name"] + " (" + p["file"] + ")", p["split"], top=6))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", help="where the collapsed stacks go (gzip)")
    ap.add_argument("--nodes", default="1,3", help="cluster sizes, from 1 and 3 (default 1,3)")
    ap.add_argument("--scenarios", default="put,get")
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--rate", type=int, default=0,
                    help="requests per second, open loop (vegeta), instead of wrk's closed loop (default 0: closed loop)")
    ap.add_argument("--settle", type=int, default=40, help="seconds of load before each profile (default 40)")
    ap.add_argument("--seconds", type=int, default=20, help="seconds profiled (default 20)")
    ap.add_argument("--interval-us", type=int, default=200)
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "1"))
    ap.add_argument("--results-dir", default=os.path.join(BENCH_DIR, "results"))
    args = ap.parse_args()
    lib = os.environ.get("ASYNC_PROFILER_LIB")
    if not lib or not os.path.exists(lib):
        ap.error("set ASYNC_PROFILER_LIB to libasyncProfiler.so (async-profiler 3 or 4, linux-x64)")
    sizes = [int(n) for n in args.nodes.split(",")]
    if any(n not in (1, 3) for n in sizes):
        ap.error("--nodes: 1, 3 or both")
    os.makedirs(args.out_dir, exist_ok=True)
    args.vegeta_bin = vegeta.ensure_vegeta() if args.rate else None
    run_id, rev, dirty = results_file.run_id()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "command": " ".join(["python3"] + sys.argv),
            "nodes": sizes, "scenarios": args.scenarios.split(","), "keys": args.keys, "value_bytes": 100,
            "connections": args.connections, "rate": args.rate, "settle_s": args.settle, "profiled_s": args.seconds,
            "interval_us": args.interval_us, "server_cpus": args.server_cpus, "load_cpus": args.load_cpus,
            "loadavg_at_start": results_file.loadavg()}
    runs = []
    tmp = tempfile.mkdtemp(prefix="ringkv-profile-nodes.")
    try:
        for nodes in sizes:
            cluster = Cluster("%dn" % nodes, nodes, [], tmp, args.server_cpus)
            try:
                cluster.await_ready()
                log("%d nodes ready; writing %d keys" % (nodes, args.keys))
                prefill(cluster.urls[0], args.keys, b"v" * 100)
                for scenario in meta["scenarios"]:
                    runs.append(profile(cluster, nodes, scenario, args, lib, args.out_dir, tmp))
            finally:
                cluster.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta["loadavg_at_end"] = results_file.loadavg()
    doc = {"meta": meta, "runs": runs}
    results_file.write(args.results_dir, "profile-nodes", meta, doc, summarise(doc))


if __name__ == "__main__":
    main()
