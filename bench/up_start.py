#!/usr/bin/env python3
"""`./ringkv up` as a user runs it: seconds from the launch to each node's first 200, and the new
cluster's idle CPU after.

Per round and configuration: launches `./ringkv up --nodes 3 --data DIR --base-port P` (not
pinned, in its own session as from a terminal, the build already done), polls every node's
/v0/status every 50 ms from the moment of the launch, and records when each first answered 200.
Then, with nothing sent to the cluster, it reads the CPU time (utime + stime, /proc/PID/stat) of
the three node processes, and of their JIT compiler threads, over consecutive windows of
--idle-window seconds (--idle-windows of them), as a share of one core; then stops the cluster
as Ctrl-C would (SIGTERM to `up`, which stops its nodes). Configurations, interleaved per round so
that the machine's drift hits both alike:

  up            this checkout's ./ringkv up
  up@baseline   the --baseline checkout's (the code before a change, in the same session)

Targets (issue 34): every node answers 200 within 5 s of the launch; the new cluster idles
under 20 % of a core from then on.

Writes bench/results/up-start-<time>-<rev>.json (every round) and a .txt beside it (mean and 95 %
interval per configuration). Run it as `./ringkv bench --cold-start --up [options]`.
"""
import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from replicated_path import (BASELINE_SUFFIX, ROOT, BENCH_DIR, baseline_checkout, interval, jit_cpu_seconds,
                             process_cpu_seconds)
import results_file

CONFIGS = {"up": "this checkout's ./ringkv up"}
NODES = 3
POLL_S = 0.05


def log(msg):
    print("[up-start %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def consecutive_free_ports(n):
    """A base port whose next n ports (itself included) are free on loopback now."""
    for _ in range(200):
        base = random.randrange(20000, 60000 - n)
        held = []
        try:
            for port in range(base, base + n):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise SystemExit("no %d consecutive free ports found" % n)


def children(pid):
    """The process ids whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return found


def answers_200(url):
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=1) as r:
            return r.status == 200
    except Exception:
        return False


def poll_until_200(url, i, ready, launched, up, ready_max):
    """Sets ready[i] to the seconds from the launch to url's first 200, or gives up (leaving None)."""
    while time.monotonic() - launched < ready_max and up.poll() is None:
        if answers_200(url):
            ready[i] = time.monotonic() - launched
            return
        time.sleep(POLL_S)


def one_round(root, data, args):
    """One launch of `up` from root: returns the round's record."""
    base = consecutive_free_ports(NODES)
    urls = ["http://127.0.0.1:%d" % (base + i) for i in range(NODES)]
    launched = time.monotonic()
    up = subprocess.Popen([os.path.join(root, "ringkv"), "up", "--nodes", str(NODES), "--data", data,
                           "--base-port", str(base)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL, start_new_session=True)
    ready = [None] * NODES
    try:
        # One poller per node, so that a slow answer from one does not delay noticing another.
        pollers = [threading.Thread(target=poll_until_200, args=(url, i, ready, launched, up, args.ready_max), daemon=True)
                   for i, url in enumerate(urls)]
        for t in pollers:
            t.start()
        for t in pollers:
            t.join()
        if None in ready:
            raise RuntimeError("not every node answered 200 within %d s (ringkv up exit code %s): %s"
                               % (args.ready_max, up.poll(), ready))
        nodes = children(up.pid)
        if len(nodes) != NODES:
            raise RuntimeError("expected %d node processes under up (pid %d), found %s" % (NODES, up.pid, nodes))
        windows = []
        for _ in range(args.idle_windows):
            cpu0, jit0, t0 = process_cpu_seconds(nodes), jit_cpu_seconds(nodes), time.monotonic()
            time.sleep(args.idle_window)
            cpu1, jit1, t1 = process_cpu_seconds(nodes), jit_cpu_seconds(nodes), time.monotonic()
            windows.append({"cpu_pct_of_a_core": 100.0 * (cpu1 - cpu0) / (t1 - t0),
                            "jit_pct_of_a_core": 100.0 * (jit1 - jit0) / (t1 - t0)})
        return {"ready_s": ready, "all_ready_s": max(ready), "node_pids": nodes, "idle": windows}
    finally:
        try:
            # What Ctrl-C does; SIGTERM rather than SIGINT, which a JVM leaves alone when it started with
            # SIGINT ignored (as in a shell's background job). up stops its nodes (SIGTERM, then SIGKILL after 15 s).
            os.killpg(up.pid, signal.SIGTERM)
            up.wait(timeout=40)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            up.wait()


def summarise(doc):
    runs, configs, meta = doc["runs"], doc["meta"]["config_names"], doc["meta"]
    windows = meta["idle_windows"]
    header = "%-14s %20s %20s" % ("config", "all ready s (95% CI)", "slowest node s (max)")
    for w in range(windows):
        header += " %24s" % ("idle CPU %% %d-%d s (CI)" % (w * meta["idle_window_s"], (w + 1) * meta["idle_window_s"]))
    header += " %22s %7s" % ("JIT % of a core (CI)", "failed")
    lines = [header]
    for c in configs:
        failed = [r for r in runs if r["config"] == c and "failed" in r]
        rs = [r for r in runs if r["config"] == c and "failed" not in r]
        if not rs:
            lines.append("%-14s no round got every node ready (%d failed)" % (c, len(failed)))
            continue
        ready = interval([r["all_ready_s"] for r in rs])
        line = "%-14s %9.1f ± %-8.1f %20.1f" % (c, ready[0], ready[1], max(r["all_ready_s"] for r in rs))
        for w in range(windows):
            cpu = interval([r["idle"][w]["cpu_pct_of_a_core"] for r in rs])
            line += " %13.1f ± %-8.1f" % cpu
        jit = interval([r["idle"][0]["jit_pct_of_a_core"] for r in rs])
        line += " %11.1f ± %-8.1f %7d" % (jit + (len(failed),))
        lines.append(line)
    lines.append("")
    lines.append("all ready: from the launch of ./ringkv up to the last of its %d nodes answering 200 on /v0/status; "
                 "idle CPU: the %d node processes together, with no requests, in consecutive windows from then, "
                 "as %% of one core; JIT: their compiler threads in the first window. Targets (issue 34): all ready "
                 "within 5 s, idle under 20 %% of a core." % (NODES, NODES))
    for c in configs:
        per = ["/".join("%.1f" % s for s in r["ready_s"]) if "failed" not in r else "failed"
               for r in runs if r["config"] == c]
        lines.append("%-14s per round, each node's first 200 (s): %s" % (c, "  ".join(per)))
        for r in runs:
            if r["config"] == c and "failed" in r:
                lines.append("%-14s round %d failed: %s" % (c, r["round"], r["failed"]))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="./ringkv bench --cold-start --up", description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--configs", default="up", help="up, up%s (default: up)" % BASELINE_SUFFIX)
    ap.add_argument("--baseline", metavar="DIR", help="another checkout whose ./ringkv up runs as up%s" % BASELINE_SUFFIX)
    ap.add_argument("--idle-window", type=int, default=10, help="seconds per idle CPU window (default 10)")
    ap.add_argument("--idle-windows", type=int, default=2, help="idle CPU windows after ready (default 2)")
    ap.add_argument("--ready-max", type=int, default=120, help="give up on a round after this many seconds (default 120)")
    ap.add_argument("--out-dir", default=os.path.join(BENCH_DIR, "results"))
    args = ap.parse_args(argv)
    configs = args.configs.split(",")
    baseline = baseline_checkout(ap, configs, CONFIGS, args.baseline, log)
    roots = {c: baseline["dir"] if c.endswith(BASELINE_SUFFIX) else ROOT for c in configs}
    run_id, rev, dirty = results_file.run_id()
    runs = []
    with tempfile.TemporaryDirectory(prefix="ringkv-up-start.") as tmp:
        for rnd in range(1, args.rounds + 1):
            for c in configs:
                data = os.path.join(tmp, "%s-%d" % (c.replace("@", "-"), rnd))
                try:
                    r = one_round(roots[c], data, args)
                except RuntimeError as e:  # a round that failed counts as failed, the others still count
                    runs.append({"round": rnd, "config": c, "failed": str(e)})
                    log("round %d %s failed: %s" % (rnd, c, e))
                    continue
                runs.append({"round": rnd, "config": c, **r})
                log("round %d %s: nodes answered 200 after %s s; idle CPU %s %% of a core (JIT %s)" % (
                    rnd, c, "/".join("%.1f" % s for s in r["ready_s"]),
                    "/".join("%.1f" % w["cpu_pct_of_a_core"] for w in r["idle"]),
                    "/".join("%.1f" % w["jit_pct_of_a_core"] for w in r["idle"])))
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "nodes": NODES,
            "config_names": configs, "baseline": baseline, "idle_window_s": args.idle_window,
            "idle_windows": args.idle_windows, "pinned": False, "cpus": os.cpu_count(),
            "loadavg_at_end": results_file.loadavg(),
            "jvm_opts": os.environ.get("RINGKV_JVM_OPTS", ""),
            "command": " ".join(["./ringkv", "bench", "--cold-start", "--up"] + argv)}
    doc = {"meta": meta, "runs": runs}
    base = results_file.write(args.out_dir, "up-start", meta, doc, summarise(doc))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
