#!/usr/bin/env python3
"""Cold start: what the first seconds of a freshly started 3-node cluster look like under load.

Per round and configuration: starts a new 3-node cluster (default `2/3`, empty data directories,
nodes pinned to the server CPUs), waits until every node's /v0/status answers 200, then at once
sends a constant rate of PUTs (vegeta, open loop, 100-byte values, a new key per request) to the
first node for a few seconds, and stops the cluster. With --restart it measures a rolling
restart's step instead: the cluster serves the load for a while, its first node stops and starts
again on its data while the other two stay up, and the load goes to that node the moment it is
ready. Configurations, interleaved so that the
machine's drift hits all alike:

  default     as shipped: the JVM maps the ahead-of-time cache the build trained
              (node/target/ringkv.aot: classes loaded and linked, method profiles), and a node
              warms up (`serve --warm-up`, a scratch cluster in its JVM) before it serves only
              when a peer already serves: in a new cluster none does, so no node warms up; the
              node restarted by --restart does
  no-aot      the warm-up without the cache (RINGKV_AOT=off)
  no-warm-up  the cache without the warm-up (--warm-up PT0S)
  cold        neither: a JVM that starts from nothing

For every run it records, per second of load and overall: requests, `503`s and other non-2xx
answers, and latency percentiles (every request, answered or not, counts at its latency), plus
the time from process start to all nodes ready.

With --up it measures `./ringkv up` as a user runs it instead (seconds from the launch to each
node's first 200, then the idle cluster's CPU): bench/up_start.py, whose options follow --up.

Writes bench/results/cold-start-<time>-<rev>.json (every request's second, status and latency
are summarised per second; the raw vegeta output is not kept) and a .txt beside it. Run it as
`./ringkv bench --cold-start [options]` (the launcher builds, trains the cache and sets JAVA_HOME).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from replicated_path import BASELINE_SUFFIX, Cluster, baseline_checkout, interval, ROOT, BENCH_DIR
import results_file
from vegeta import attack, ensure_vegeta, percentile, write_targets

# name: (environment, serve flags)
CONFIGS = {"default": ({}, []), "no-aot": ({"RINGKV_AOT": "off"}, []),
           "no-warm-up": ({}, ["--warm-up", "PT0S"]), "cold": ({"RINGKV_AOT": "off"}, ["--warm-up", "PT0S"])}


# What `serve --warm-up` does by default in this checkout (results files of older ones lack it: every node warmed up).
WARM_UP_RULE = "only when a peer has served for 10 s or more"


def log(msg):
    print("[cold-start %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def put_targets(path, url, body_path, count, tag):
    write_targets(path, [("PUT", "%s/v0/entity?id=cold-%s-%07d" % (url, tag, i), body_path) for i in range(count)])


def summarise_rows(rows):
    start = min(r[0] for r in rows)
    per_second = {}
    for ts, code, ms in rows:
        per_second.setdefault(int((ts - start) // 1_000_000_000), []).append((code, ms))

    def stats(items):
        lat = sorted(ms for _, ms in items)
        return {"requests": len(items), "status_503": sum(1 for c, _ in items if c == 503),
                "other_non_2xx": sum(1 for c, _ in items if not (200 <= c < 300) and c != 503),
                "p50_ms": percentile(lat, 0.50), "p99_ms": percentile(lat, 0.99), "max_ms": lat[-1] if lat else None}
    return {"overall": stats([(c, ms) for _, c, ms in rows]),
            "per_second": [dict(second=s, **stats(per_second[s])) for s in sorted(per_second)]}


def c2_queue_lengths(pids):
    """Per node JVM, the methods waiting in its C2 compiler's queue (`jcmd PID Compiler.queue`), or
    None where jcmd cannot say."""
    jcmd = os.path.join(os.environ.get("JAVA_HOME", ""), "bin", "jcmd")
    lengths = []
    for pid in pids:
        try:
            out = subprocess.run([jcmd if os.path.exists(jcmd) else "jcmd", str(pid), "Compiler.queue"],
                                 capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            lengths.append(None)
            continue
        section = out.split("C2 compile queue:", 1)
        lengths.append(sum(1 for line in section[1].splitlines() if line[:1].isdigit()) if len(section) == 2 else None)
    return lengths


def autogroup():
    """The kernel's autogroup setting ("1": every session is a scheduling group), or None."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    if "--up" in sys.argv[1:]:
        import up_start
        return up_start.main([a for a in sys.argv[1:] if a != "--up"])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--rate", type=int, default=1000, help="PUTs per second (default 1000)")
    ap.add_argument("--duration", type=int, default=10, help="seconds of load per run (default 10)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="from %s (default: all)" % ", ".join(CONFIGS))
    ap.add_argument("--steady-after", type=int, default=30,
                    help="the default configuration, after its measured run: this many more seconds of the same "
                         "load (discarded), then --duration measured again, as the steady state the first seconds "
                         "are compared with (0: skip; default 30)")
    ap.add_argument("--shared-session", action="store_true",
                    help="start the nodes in this script's session instead of one session each: with the "
                         "kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) that makes "
                         "them one scheduling group with the load generator, as `ringkv up` starts them")
    ap.add_argument("--restart", type=int, default=0, metavar="SECONDS",
                    help="measure a rolling restart's step instead of a new cluster: the cluster serves the same "
                         "load for this many seconds, then its first node stops and starts again (same data) "
                         "while the other two stay up, and the load goes to it the moment it is ready "
                         "(default 0: three new nodes)")
    ap.add_argument("--jit-queue", action="store_true",
                    help="when the nodes are ready, record how many methods wait in each one's C2 queue (jcmd); "
                         "this delays the load by the jcmd calls (about a second), so its latencies are not "
                         "comparable with runs without it")
    ap.add_argument("--baseline", metavar="DIR",
                    help="another checkout (a git worktree of an earlier commit, say): a configuration named with the "
                         "suffix %s (e.g. --configs default,default%s) starts its nodes from DIR's ./ringkv, "
                         "interleaved with the others" % (BASELINE_SUFFIX, BASELINE_SUFFIX))
    ap.add_argument("--node-args", default="", help="extra flags for every `ringkv serve`")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "1"))
    ap.add_argument("--out-dir", default=os.path.join(BENCH_DIR, "results"))
    args = ap.parse_args()
    configs = args.configs.split(",")
    baseline = baseline_checkout(ap, configs, CONFIGS, args.baseline, log)
    roots = {c: baseline["dir"] if c.endswith(BASELINE_SUFFIX) else ROOT for c in configs}
    for root in set(roots.values()):
        aot_file = os.path.join(root, "node", "target", "ringkv.aot")
        if not os.path.exists(aot_file):
            raise SystemExit("no AOT cache at %s: run ./ringkv build there first" % aot_file)
    vegeta = ensure_vegeta()
    run_id, rev, dirty = results_file.run_id()
    runs = []
    with tempfile.TemporaryDirectory(prefix="ringkv-cold-start.") as tmp:
        body = os.path.join(tmp, "value")
        with open(body, "wb") as f:
            f.write(b"v" * 100)
        for rnd in range(1, args.rounds + 1):
            for c in configs:
                began = time.time()
                env, flags = CONFIGS[c.split("@")[0]]
                cluster = Cluster("%s-%d" % (c, rnd), 3, flags + args.node_args.split(), tmp, args.server_cpus, env=env,
                                  own_sessions=not args.shared_session, root=roots[c])
                queue = None
                try:
                    cluster.await_ready()
                    if args.restart:
                        # A rolling restart's step: the cluster has served this load for a while,
                        # then the first node stops and starts again on its data while the other
                        # two stay up and warm.
                        before = os.path.join(tmp, "before-%s-%d" % (c, rnd))
                        put_targets(before, cluster.urls[0], body, args.rate * args.restart, "b%s%d" % (c, rnd))
                        attack(vegeta, before, args.rate, args.restart, args.load_cpus)
                        cluster.stop_node(0)
                        began = time.time()
                        cluster.start_node(0)
                        cluster.await_ready()
                    ready_s = time.time() - began
                    if args.jit_queue:
                        queue = c2_queue_lengths([p.pid for p in cluster.procs])
                    targets = os.path.join(tmp, "targets-%s-%d" % (c, rnd))
                    put_targets(targets, cluster.urls[0], body, args.rate * args.duration, "%s%d" % (c, rnd))
                    rows = attack(vegeta, targets, args.rate, args.duration, args.load_cpus)
                    steady = None
                    if c == "default" and args.steady_after > 0:
                        filler = os.path.join(tmp, "filler-%d" % rnd)
                        put_targets(filler, cluster.urls[0], body, args.rate * args.steady_after, "f%d" % rnd)
                        attack(vegeta, filler, args.rate, args.steady_after, args.load_cpus)
                        later = os.path.join(tmp, "steady-%d" % rnd)
                        put_targets(later, cluster.urls[0], body, args.rate * args.duration, "s%d" % rnd)
                        steady = summarise_rows(attack(vegeta, later, args.rate, args.duration, args.load_cpus))["overall"]
                finally:
                    cluster.stop()
                s = summarise_rows(rows)
                o = s["overall"]
                runs.append({"round": rnd, "config": c, "ready_s": ready_s, **s, **({"steady": steady} if steady else {}),
                             **({"c2_queue_at_ready": queue} if queue is not None else {})})
                first = s["per_second"][0]
                log("round %d %s: ready in %.1f s; %d requests, %d x 503, %d other non-2xx; p99 %.1f ms "
                    "(first second: p99 %.1f ms, %d x 503)" % (rnd, c, ready_s, o["requests"], o["status_503"],
                                                             o["other_non_2xx"], o["p99_ms"], first["p99_ms"],
                                                             first["status_503"]))
                if steady:
                    log("round %d %s, %d s later: p99 %.1f ms, %d x 503" % (rnd, c, args.steady_after + args.duration,
                                                                          steady["p99_ms"], steady["status_503"]))
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "rate": args.rate,
            "duration_s": args.duration, "nodes": 3, "value_bytes": 100, "server_cpus": args.server_cpus,
            "load_cpus": args.load_cpus, "node_args": args.node_args, "steady_after_s": args.steady_after,
            "shared_session": args.shared_session, "restart_after_s": args.restart, "jit_queue": args.jit_queue,
            "baseline": baseline, "sched_autogroup": autogroup(), "warm_up_rule": WARM_UP_RULE, "configs": CONFIGS, "loadavg_at_end": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--cold-start"] + sys.argv[1:])}
    lines = ["%-18s %18s %20s %20s %20s %12s" % ("config", "ready s (95% CI)", "503 % (95% CI)", "p99 ms (95% CI)",
                                                  "1st s p99 ms (CI)", "other non-2xx")]
    for c in configs:
        rs = [r for r in runs if r["config"] == c]
        ready = interval([r["ready_s"] for r in rs])
        shed = interval([100.0 * r["overall"]["status_503"] / r["overall"]["requests"] for r in rs])
        p99 = interval([r["overall"]["p99_ms"] for r in rs])
        p99_first = interval([r["per_second"][0]["p99_ms"] for r in rs])
        lines.append("%-18s %8.1f ± %-8.1f %9.2f ± %-8.2f %9.1f ± %-8.1f %9.1f ± %-8.1f %12d" % (
            c, ready[0], ready[1], shed[0], shed[1], p99[0], p99[1], p99_first[0], p99_first[1],
            sum(r["overall"]["other_non_2xx"] for r in rs)))
    if args.jit_queue:
        lines.append("")
        lines.append("methods in each node's C2 queue when all were ready, per round (jcmd Compiler.queue):")
        for c in configs:
            lines.append("%-18s %s" % (c, "  ".join("/".join("?" if n is None else str(n) for n in r["c2_queue_at_ready"])
                                                     for r in runs if r["config"] == c)))
    steady_runs = [r["steady"] for r in runs if "steady" in r]
    if steady_runs:
        p99 = interval([r["p99_ms"] for r in steady_runs])
        shed = interval([100.0 * r["status_503"] / r["requests"] for r in steady_runs])
        lines.append("%-18s %18s %9.2f ± %-8.2f %9.1f ± %-8.1f   (the default configuration's %d s after its first "
                     "%d s of load: the steady state)" % ("steady", "", shed[0], shed[1], p99[0], p99[1],
                                                         args.duration, args.steady_after + args.duration))
    base = results_file.write(args.out_dir, "cold-start", meta, {"meta": meta, "runs": runs}, "\n".join(lines))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
