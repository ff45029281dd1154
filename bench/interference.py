#!/usr/bin/env python3
"""What a membership step's "starting" phase costs the serving nodes, taken apart: neighbours that
use one resource each, started beside a loaded cluster that they never talk to.

Starts three node processes as `./ringkv bench --membership` does (`--replication-factor 3
--warm-up PT0S`, pinned to the server CPUs), writes --keys keys of --value-bytes bytes, keeps the
same constant --rate PUT/s plus --rate GET/s (vegeta, open loop, over the three nodes), and then,
--rounds times, runs each neighbour of --neighbours for --seconds with a quiet gap of the same length
before the next:
  node       a one-node ringkv cluster of its own (`./ringkv serve`, data on the same disk as the
             cluster's): what a joining node does before it joins, with nothing said to the cluster;
  node-shm   the same with its data directory in /dev/shm (no disk of its own);
  fsync      `dd` writing 256 MiB to the cluster's disk and syncing it (disk and journal only);
  cpu        two busy shell loops (CPU only);
  mem        a process that keeps asking the kernel for 256 MiB of new memory, writes it once and
             gives it back (page faults on memory never touched, as a new JVM's heap is at first);
each run as --nice (default 0: as the bench starts a joining node) in a session of its own. With the
kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) a session is one scheduling
group, and a nice value only weighs a thread against the others of its session: --autogroup-nice
sets the neighbour's whole session's weight against the nodes' sessions instead, and --idle runs
it under the SCHED_IDLE policy (`chrt --idle 0`), whose threads any other thread that wakes up
preempts at once, whatever their groups. Per neighbour and round: the GET
and PUT p50/p99 while it ran against the quiet gap before it, and its ratio (issue 33's target for a
step: a GET p99 at most 2x the steady one). A neighbour whose ratio stays near 1 is not what slows
a step's start; one near the step's own figure is.

Writes bench/results/interference-<time>-<rev>.json and a .txt beside it. Run it as
`./ringkv bench --interference [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import types

import results_file
import vegeta
from membership import Bench, window, interval, fmt, ROOT, port_below_ephemeral

NEIGHBOURS = ("node", "node-shm", "fsync", "cpu", "mem")


def log(msg):
    print("[interference] %s" % msg, file=sys.stderr, flush=True)


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=100000, help="keys written first (default 100000)")
    ap.add_argument("--rate", type=int, default=1000, help="PUTs per second, and as many GETs (default 1000)")
    ap.add_argument("--value-bytes", type=int, default=1024, help="bytes per value (default 1024)")
    ap.add_argument("--neighbours", default=",".join(NEIGHBOURS), help="in order, from %s" % ", ".join(NEIGHBOURS))
    ap.add_argument("--rounds", type=int, default=3, help="every neighbour this many times (default 3)")
    ap.add_argument("--seconds", type=int, default=8, help="each neighbour's time, and the quiet gap before it")
    ap.add_argument("--nice", type=int, default=0, help="the neighbours' nice value (default 0)")
    ap.add_argument("--autogroup-nice", type=int, default=None,
                    help="the neighbour's session's nice value (/proc/PID/autogroup; default: left at 0)")
    ap.add_argument("--idle", action="store_true", help="run the neighbours under SCHED_IDLE (chrt --idle 0)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0,1"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "0,1"))
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    return ap


class Neighbour:
    """One neighbour process group: started, then stopped (SIGKILL to the group) after its time.
    Threading: the bench's thread."""

    def __init__(self, kind, tmp, n, nice, cpus, autogroup_nice=None, idle=False):
        self.kind, self.proc, self.autogroup_nice = kind, None, autogroup_nice
        base = "/dev/shm" if kind == "node-shm" else tmp
        self.dir = tempfile.mkdtemp(prefix="neighbour%d." % n, dir=base)
        prefix = (["chrt", "--idle", "0"] if idle else []) + ["nice", "-n", str(nice), "taskset", "-c", cpus]
        if kind in ("node", "node-shm"):
            port = port_below_ephemeral()
            self.cmd = prefix + [os.path.join(ROOT, "ringkv"), "serve", "--host", "127.0.0.1", "--port", str(port),
                                 "--data", self.dir, "--cluster", "http://127.0.0.1:%d" % port, "--warm-up", "PT0S"]
        elif kind == "fsync":
            self.cmd = prefix + ["dd", "if=/dev/zero", "of=" + os.path.join(self.dir, "blob"), "bs=1M", "count=256",
                                 "conv=fsync", "status=none"]
        elif kind == "cpu":
            self.cmd = prefix + ["sh", "-c", "(while :; do :; done) & while :; do :; done"]
        elif kind == "mem":
            self.cmd = prefix + [sys.executable, "-c", "while True:\n    block = b'\\x01' * (256 << 20)\n    del block"]
        else:
            raise SystemExit("unknown neighbour %r (from %s)" % (kind, ", ".join(NEIGHBOURS)))
        self.log = os.path.join(tmp, "neighbour%d-%s.log" % (n, kind))

    def start(self):
        with open(self.log, "w") as f:
            self.proc = subprocess.Popen(self.cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True, env=dict(os.environ, RINGKV_CLUSTER_SECRET="0" * 64))
        if self.autogroup_nice is not None:
            with open("/proc/%d/autogroup" % self.proc.pid, "w") as f:
                f.write(str(self.autogroup_nice))

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        subprocess.run(["rm", "-rf", self.dir])


def ratio(during, before, key):
    d, b = during.get(key), before.get(key)
    return d / b if d is not None and b else None


def main():
    args = parser().parse_args()
    kinds = [k for k in args.neighbours.split(",") if k]
    for k in kinds:
        if k not in NEIGHBOURS:
            raise SystemExit("unknown neighbour %r (from %s)" % (k, ", ".join(NEIGHBOURS)))
    run_id, rev, dirty = results_file.run_id()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "keys": args.keys, "rate": args.rate,
            "value_bytes": args.value_bytes, "neighbours": kinds, "rounds": args.rounds, "seconds": args.seconds,
            "nice": args.nice, "autogroup_nice": args.autogroup_nice, "idle": args.idle, "server_cpus": args.server_cpus, "load_cpus": args.load_cpus, "cores": os.cpu_count(),
            "loadavg_at_start": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--interference"] + sys.argv[1:])}
    vegeta_bin = vegeta.ensure_vegeta()
    events = []
    with tempfile.TemporaryDirectory(prefix="ringkv-interference.") as tmp:
        bench_args = types.SimpleNamespace(node_args="", server_cpus=args.server_cpus, load_cpus=args.load_cpus,
                                           rate=args.rate, keys=args.keys, value_bytes=args.value_bytes)
        bench = Bench(bench_args, tmp, vegeta_bin, 1)
        c = bench.cluster
        try:
            c.await_ready()
            log("3 nodes ready; writing %d keys" % args.keys)
            bench.preload()
            bench.load.start(bench.serving())
            time.sleep(20)  # the load's first seconds: connections opened, the JIT on the new paths
            n = 0
            for rnd in range(1, args.rounds + 1):
                for kind in kinds:
                    n += 1
                    quiet = time.time()
                    time.sleep(args.seconds)
                    nb = Neighbour(kind, tmp, n, args.nice, args.server_cpus, args.autogroup_nice, args.idle)
                    start = time.time()
                    nb.start()
                    time.sleep(args.seconds)
                    end = time.time()
                    exited = nb.proc.poll()
                    nb.stop()
                    events.append({"round": rnd, "kind": kind, "quiet": [quiet, start], "during": [start, end],
                                   "exited_early": exited is not None, "exit_status": exited})
                    log("round %d: %s done" % (rnd, kind))
            time.sleep(args.seconds)
            bench.load.stop()
        finally:
            if bench.load.attacker.is_alive():
                bench.load.stop()
            c.stop()
    for e in events:
        e["before"] = window(bench.load.rows, *e["quiet"])
        e["load"] = window(bench.load.rows, *e["during"])
    meta["loadavg_at_end"] = results_file.loadavg()
    data = {"meta": meta, "events": events}
    base = results_file.write(args.out_dir, "interference", meta, data, summarise(data))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


def summarise(data):
    m = data["meta"]
    lines = ["3 nodes, replication factor 3, %d keys of %d bytes; constant %d PUT/s + %d GET/s; each neighbour %d s "
             "(nice %d, its session's %s%s) after %d quiet s, %d round(s)" % (
                 m["keys"], m["value_bytes"], m["rate"], m["rate"], m["seconds"], m["nice"],
                 "left at 0" if m.get("autogroup_nice") is None else m["autogroup_nice"],
                 ", SCHED_IDLE" if m.get("idle") else "", m["seconds"], m["rounds"]),
             "",
             "neighbour  round  GET p50 ms quiet -> during   GET p99 ms quiet -> during (x)   PUT p99 ms quiet -> during   failed"]
    for e in data["events"]:
        b, d = e["before"], e["load"]
        lines.append("%-10s %5d  %7.2f -> %7.2f        %8.2f -> %8.2f (%5.1fx)      %8.2f -> %8.2f      %d%s" % (
            e["kind"], e["round"], b["get_p50_ms"], d["get_p50_ms"], b["get_p99_ms"], d["get_p99_ms"],
            ratio(d, b, "get_p99_ms") or float("nan"), b["put_p99_ms"], d["put_p99_ms"], d["failed"] + b["failed"],
            "" if not e["exited_early"] or e["kind"] == "fsync" else "  (exited early: %s)" % e["exit_status"]))
    lines += ["", "per neighbour, GET p99 during over quiet (mean, 95 % interval over rounds):"]
    for kind in m["neighbours"]:
        rs = [ratio(e["load"], e["before"], "get_p99_ms") for e in data["events"] if e["kind"] == kind]
        lines.append("  %-10s %s" % (kind, fmt(interval(rs))))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
