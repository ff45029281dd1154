#!/usr/bin/env python3
"""How long a thread that wakes up waits for a CPU while other work keeps the CPUs busy, by the
scheduling that other work runs under: what a serving node's request path (a wake-up per hop)
pays beside a booting JVM, a hand-over or a JIT on shared cores.

Two processes of this script ping-pong one byte over a socket pair, one round trip every
millisecond (each side sleeps in between, as an event loop at a moderate rate does), for --seconds,
while two busy loops (one per core of a 2-core machine) run under each --conditions in turn:
  none           no busy loops: the floor;
  same-session   in this script's session, nice 0;
  idle           in this script's session, SCHED_IDLE (chrt --idle 0);
  idle-own       SCHED_IDLE, each loop in a session of its own;
  autogroup-19   a session of its own whose autogroup nice is 19 (/proc/PID/autogroup).
With the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) each session is
one scheduling group: a nice value weighs a thread only against the threads of its own session,
which is why a node started in a session of its own is not slowed down by renicing another.
Per condition and round: the round trip's p50, p99 and p99.9 in microseconds.

Writes bench/results/wakeup-latency-<time>-<rev>.json and a .txt beside it.
Run it as `./ringkv bench --wakeup-latency [options]`.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time

import results_file
from membership import interval, fmt

CONDITIONS = ("none", "same-session", "idle", "idle-own", "autogroup-19")
LOOP = ["sh", "-c", "while :; do :; done"]


def log(msg):
    print("[wakeup-latency] %s" % msg, file=sys.stderr, flush=True)


def busy_loops(condition, count):
    procs = []
    for _ in range(count):
        cmd = (["chrt", "--idle", "0"] if condition in ("idle", "idle-own") else []) + LOOP
        p = subprocess.Popen(cmd, start_new_session=condition in ("idle-own", "autogroup-19"),
                             stdin=subprocess.DEVNULL)
        if condition == "autogroup-19":
            with open("/proc/%d/autogroup" % p.pid, "w") as f:
                f.write("19")
        procs.append(p)
    return procs


def ping_pong(seconds):
    """Round trips in ns, one a millisecond, between this process and a forked one."""
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        a.close()
        while True:
            byte = b.recv(1)
            if not byte:
                os._exit(0)
            b.send(byte)
    b.close()
    trips = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter_ns()
        a.send(b"x")
        a.recv(1)
        trips.append(time.perf_counter_ns() - t)
        time.sleep(0.001)
    a.close()
    os.waitpid(pid, 0)
    return sorted(trips)


def pct(values, q):
    return values[min(len(values) - 1, int(q * len(values)))] / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conditions", default=",".join(CONDITIONS), help="in order, from %s" % ", ".join(CONDITIONS))
    ap.add_argument("--rounds", type=int, default=3, help="every condition this many times, interleaved (default 3)")
    ap.add_argument("--seconds", type=int, default=5, help="ping-pong time per condition and round (default 5)")
    ap.add_argument("--loops", type=int, default=os.cpu_count(), help="busy loops (default: one per CPU)")
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    args = ap.parse_args()
    conditions = [c for c in args.conditions.split(",") if c]
    for c in conditions:
        if c not in CONDITIONS:
            ap.error("unknown condition %r (from %s)" % (c, ", ".join(CONDITIONS)))
    run_id, rev, dirty = results_file.run_id()
    with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
        autogroup = f.read().strip()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "conditions": conditions, "rounds": args.rounds,
            "seconds": args.seconds, "loops": args.loops, "cores": os.cpu_count(), "autogroup_enabled": autogroup,
            "kernel": os.uname().release, "loadavg_at_start": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--wakeup-latency"] + sys.argv[1:])}
    rows = []
    for rnd in range(1, args.rounds + 1):
        for condition in conditions:
            procs = busy_loops(condition, args.loops) if condition != "none" else []
            try:
                time.sleep(0.2)
                trips = ping_pong(args.seconds)
            finally:
                for p in procs:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
            rows.append({"round": rnd, "condition": condition, "trips": len(trips), "p50_us": pct(trips, 0.5),
                         "p99_us": pct(trips, 0.99), "p999_us": pct(trips, 0.999)})
            log("round %d %s: p99 %.0f us" % (rnd, condition, rows[-1]["p99_us"]))
    meta["loadavg_at_end"] = results_file.loadavg()
    data = {"meta": meta, "rows": rows}
    base = results_file.write(args.out_dir, "wakeup-latency", meta, data, summarise(data))
    log("results: %s.json and .txt" % base)


def summarise(data):
    m = data["meta"]
    lines = ["a round trip between two processes that sleep 1 ms between trips, beside %d busy loops; kernel %s, "
             "autogroup scheduling %s; %d round(s) of %d s" % (m["loops"], m["kernel"],
                                                              "on" if m["autogroup_enabled"] == "1" else "off",
                                                              m["rounds"], m["seconds"]),
             "", "condition       p50 us              p99 us                p99.9 us"]
    for c in m["conditions"]:
        rs = [r for r in data["rows"] if r["condition"] == c]
        lines.append("%-14s  %-18s  %-20s  %s" % (c, fmt(interval([r["p50_us"] for r in rs]), "%.0f"),
                                                 fmt(interval([r["p99_us"] for r in rs]), "%.0f"),
                                                 fmt(interval([r["p999_us"] for r in rs]), "%.0f")))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
