#!/usr/bin/env python3
"""HTTP/2 on one node: h2c against HTTP/1.1 on the same node, and against nginx's HTTP/2.

Starts one ringkv node and one nginx (one worker, h2c by prior knowledge, a fixed 200 answer as
long as the node's /v0/status body), both pinned to the server CPU, writes the key space into
the node, then measures in interleaved rounds (load pinned to the load CPU; each run after a
warm-up of the same kind):

  get-h1      GET of keys, about 80 % stored (bench/lua/get.lua), wrk, 64 connections (HTTP/1.1)
  get-h2c     the same GETs, h2load, 8 connections x 8 streams (64 in flight, as wrk)
  status-h2c  GET /v0/status, h2load, 8 x 8
  nginx-h2c   GET of nginx's fixed answer, h2load, 8 x 8

and reports mean and 95 % interval of each, and the ratios the targets are stated in:
get-h2c / get-h1 and status-h2c / nginx-h2c. Writes bench/results/h2-compare-<time>-<rev>.json
and .txt. Run it as `./ringkv bench --h2 [options]`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import results_file
from nginx import Nginx
from replicated_path import Cluster, ROOT, BENCH_DIR, interval, prefill, wrk

SCENARIOS = ["get-h1", "get-h2c", "status-h2c", "nginx-h2c"]


def log(msg):
    print("[h2-compare %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def h2load(uris_file, seconds, connections, streams, load_cpus):
    cmd = ["taskset", "-c", load_cpus, "h2load", "-t1", "-c%d" % connections, "-m%d" % streams,
           "-D", str(seconds), "-i", uris_file]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"finished in [0-9.]+m?s, ([0-9.]+) req/s", out).group(1))
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, "
                  r"(\d+) timeout", out)
    codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
    return {"rps": rps, "done": int(m.group(3)), "succeeded": int(m.group(4)), "failed": int(m.group(5)),
            "errored": int(m.group(6)), "status_2xx": int(codes.group(1)), "status_4xx": int(codes.group(3)),
            "status_5xx": int(codes.group(4))}


def summarise(runs, duration):
    stats = {s: interval([r["rps"] for r in runs if r["scenario"] == s]) for s in SCENARIOS}
    lines = ["%-11s %24s %10s" % ("scenario", "req/s (95% CI)", "non-2xx %")]
    for s in SCENARIOS:
        rs = [r for r in runs if r["scenario"] == s]
        # wrk counts non-2xx answers as status errors; h2load counts 4xx and 5xx answers as
        # "failed" too, so only its status classes and transport errors are added up.
        bad = sum(r.get("non_2xx", 0) + r.get("status_4xx", 0) + r.get("status_5xx", 0) + r.get("errored", 0)
                  for r in rs)
        total = sum(r.get("done", r["rps"] * duration) for r in rs)
        lines.append("%-11s %12.0f ± %-8.0f %10.1f" % (s, stats[s][0], stats[s][1], 100.0 * bad / max(total, 1)))
    lines.append("")
    lines.append("get-h2c / get-h1: %.2fx (target >= 1)" % (stats["get-h2c"][0] / stats["get-h1"][0]))
    lines.append("status-h2c / nginx-h2c: %.2fx (target >= 0.7)" % (stats["status-h2c"][0] / stats["nginx-h2c"][0]))
    lines.append("(the GETs' non-2xx are the misses, 404, about 20 % by design; anything else is a failure)")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    results_file.add_run_arguments(ap)
    ap.add_argument("--keys", type=int, default=20000, help="keys written before the runs (default 20000)")
    ap.add_argument("--node-args", default="", help="extra flags for `ringkv serve`")
    results_file.add_summarise_argument(ap)
    args = ap.parse_args()
    if args.summarise:
        results_file.rewrite_summary(
            args.summarise, lambda doc: "\n".join(summarise(doc["runs"], doc["meta"]["duration_s"])))
        return
    for tool in ("wrk", "h2load", "curl", "taskset"):
        if subprocess.run(["bash", "-c", "command -v " + tool], capture_output=True).returncode != 0:
            raise SystemExit("%s is not installed (Debian: wrk, nghttp2-client, curl, util-linux)" % tool)
    run_id, rev, dirty = results_file.run_id()
    runs = []
    with tempfile.TemporaryDirectory(prefix="ringkv-h2-compare.") as tmp:
        node = Cluster("node", 1, args.node_args.split(), tmp, args.server_cpus)
        nginx = None
        try:
            node.await_ready()
            url = node.urls[0]
            with urllib.request.urlopen(url + "/v0/status", timeout=5) as r:
                status_bytes = len(r.read())
            nginx = Nginx(tmp, status_bytes, args.server_cpus)
            log("node at %s, nginx at %s (answers %d bytes, as /v0/status); writing %d keys" % (
                url, nginx.url, status_bytes, args.keys))
            prefill(url, args.keys, b"v" * 100)
            uris = {"get-h2c": os.path.join(tmp, "get.uris"), "status-h2c": os.path.join(tmp, "status.uris"),
                    "nginx-h2c": os.path.join(tmp, "nginx.uris")}
            with open(uris["get-h2c"], "w") as f:
                # Like wrk's get.lua: keys over 125 % of the stored space (about 20 % misses, 404).
                space = args.keys * 5 // 4
                step = max(1, space // 4096)
                for i in range(0, space, step):
                    f.write("%s/v0/entity?id=key%07d\n" % (url, i))
            with open(uris["status-h2c"], "w") as f:
                f.write(url + "/v0/status\n")
            with open(uris["nginx-h2c"], "w") as f:
                f.write(nginx.url + "\n")
            for rnd in range(1, args.rounds + 1):
                for s in SCENARIOS:
                    if s == "get-h1":
                        if args.warmup:
                            wrk(url, "get", args.warmup, 64, args.load_cpus, args.keys)
                        res = wrk(url, "get", args.duration, 64, args.load_cpus, args.keys)
                        run = {"rps": res["requests"] / (res["duration_us"] / 1e6), "non_2xx": res["errors"]["status"],
                               "errors": res["errors"]}
                    else:
                        if args.warmup:
                            h2load(uris[s], args.warmup, 8, 8, args.load_cpus)
                        run = h2load(uris[s], args.duration, 8, 8, args.load_cpus)
                    run.update({"round": rnd, "scenario": s})
                    runs.append(run)
                    log("round %d %s: %.0f req/s" % (rnd, s, run["rps"]))
        finally:
            node.stop()
            if nginx:
                nginx.stop()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "duration_s": args.duration,
            "warmup_s": args.warmup, "keys": args.keys, "value_bytes": 100, "server_cpus": args.server_cpus,
            "load_cpus": args.load_cpus, "node_args": args.node_args, "h2load": "8 connections x 8 streams",
            "wrk": "64 connections", "loadavg_at_end": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--h2"] + sys.argv[1:])}
    base = results_file.write(args.out_dir, "h2-compare", meta, {"meta": meta, "runs": runs},
                              "\n".join(summarise(runs, args.duration)))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
