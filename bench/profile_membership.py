#!/usr/bin/env python3
"""Where the nodes' CPU goes during the membership bench's steps, against its steady-load window.

Runs bench/membership.py (every option after `--` goes to it) and watches its log. For the steady
window and for each step it records, per node process:
  - the CPU time of every thread (from /proc/PID/task/*/stat, summed by thread name with digits
    folded, so "C2 CompilerThread0" and "...1" are one row, C1's and C2's apart), exact and without sampling;
  - with ASYNC_PROFILER_LIB set (libasyncProfiler.so, async-profiler 3 or 4): a CPU profile of the
    window as collapsed stacks, one file per window and process, thread names as the first frame.
A node that starts during a step (the joining one) is picked up within a second of its start.

  ASYNC_PROFILER_LIB=/path/libasyncProfiler.so python3 bench/profile_membership.py OUT_DIR -- --steps grow

With --jit-log it also turns on every node's compilation and deoptimization log (jcmd VM.log,
OUT_DIR/jit-PID.log) and counts, per window, the C2 compilations and the uncommon-trap
deoptimizations. Writes bench/results/membership-profile-<run id>.json and .txt (per window and
process: CPU by thread group, the JIT compiler threads' share, the JIT counts) and keeps the
collapsed stacks in OUT_DIR. The steady window is the bench's (--warmup-seconds after the
preload, then --steady-seconds), so pass the same values here if you change them. Attaching the
profiler and the log costs the nodes some CPU: compare windows of one run, not runs with and
without it.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time

import results_file
from cluster_harness import thread_ticks

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
CLK_TCK = os.sysconf("SC_CLK_TCK")
NODE_MAIN = "io.ringkv.node.Main"


def node_pids():
    """The bench's node processes (their data is under its ringkv-membership.* directory), not other nodes on the machine."""
    out = subprocess.run(["pgrep", "-f", NODE_MAIN + " serve .*ringkv-membership[.]"], capture_output=True, text=True).stdout
    return {int(p) for p in out.split()}


class Window:
    """One profiled window. Threading: start/poll/stop from the watcher thread only."""

    jit_logged = set()  # processes whose JIT log is on (it stays on for the run)

    def __init__(self, name, out_dir, lib, jit_log=False):
        self.name, self.out_dir, self.lib, self.jit_log = name, out_dir, lib, jit_log
        self.start_ticks = {}   # pid -> Counter at the window's start (or the process's first sight)
        self.profiled = set()
        self.started = time.time()

    def poll(self):
        for pid in node_pids() - set(self.start_ticks):
            self.start_ticks[pid] = thread_ticks(pid)
            if self.lib and self._jcmd(pid, "JVMTI.agent_load", self.lib, "'start,event=cpu,interval=2ms,threads'"):
                self.profiled.add(pid)
            if self.jit_log and pid not in Window.jit_logged:
                # compilations and deoptimizations with wall-clock times, to count them per window
                log = os.path.join(self.out_dir, "jit-%d.log" % pid)
                if self._jcmd(pid, "VM.log", "output=file=" + log, "what=jit+compilation=debug,deoptimization=debug",
                              "decorators=time"):
                    Window.jit_logged.add(pid)

    def stop(self):
        self.ended = time.time()
        seconds = self.ended - self.started
        per_pid = {}
        for pid, before in self.start_ticks.items():
            after = thread_ticks(pid)
            used = {k: (after[k] - before.get(k, 0)) / CLK_TCK for k in after}
            per_pid[pid] = {k: v for k, v in sorted(used.items(), key=lambda kv: -kv[1]) if v > 0}
            if pid in self.profiled:
                self._jcmd(pid, "JVMTI.agent_load", self.lib,
                           "'stop,file=%s,collapsed'" % os.path.join(self.out_dir, "%s-%d.collapsed" % (self.name, pid)))
        return {"window": self.name, "start": self.started, "end": self.ended, "seconds": seconds,
                "cpu_by_thread": {str(pid): used for pid, used in per_pid.items()}}

    @staticmethod
    def _jcmd(pid, *command):
        """jcmd PID COMMAND...; an agent's options are quoted again (jcmd splits them at commas otherwise)."""
        jcmd = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "jcmd")
        for _ in range(10):
            r = subprocess.run([jcmd, str(pid)] + list(command), capture_output=True, text=True)
            if r.returncode == 0 and "error" not in r.stdout.lower() and "exception" not in r.stdout.lower():
                return True
            if not os.path.exists("/proc/%d" % pid):
                break
            time.sleep(0.5)
        print("jcmd %s on %d failed: %s" % (" ".join(command), pid, (r.stdout + r.stderr).strip()[:200]), file=sys.stderr)
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--warmup-seconds", type=int, default=20)
    ap.add_argument("--steady-seconds", type=int, default=30)
    ap.add_argument("--jit-log", action="store_true",
                    help="also log every node's compilations and deoptimizations (jit-PID.log, wall-clock times) from the steady window on")
    ap.add_argument("--results-dir", default=os.path.join(BENCH_DIR, "results"),
                    help="where the summary goes (membership-profile-<run id>.json and .txt; default bench/results)")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    lib = os.environ.get("ASYNC_PROFILER_LIB")
    bench_args = [x for x in a.bench_args if x != "--"]
    cmd = [sys.executable, os.path.join(BENCH_DIR, "membership.py"), "--warmup-seconds", str(a.warmup_seconds),
           "--steady-seconds", str(a.steady_seconds)] + bench_args
    run_id, rev, dirty = results_file.run_id()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, bufsize=1)
    log_lines = []
    windows, results, lock = {}, [], threading.Lock()
    stop_polling = threading.Event()

    def poller():
        while not stop_polling.wait(1.0):
            with lock:
                for w in list(windows.values()):
                    w.poll()
    threading.Thread(target=poller, daemon=True).start()

    def open_window(name):
        w = Window(name, a.out_dir, lib, a.jit_log)
        w.poll()
        with lock:
            windows[name] = w

    def close_window(name):
        with lock:
            w = windows.pop(name, None)
        if w:
            results.append(w.stop())

    steady_timer = None
    for line in proc.stderr:
        sys.stderr.write(line)
        log_lines.append(line)
        m = re.search(r"round \d+: (grow|shrink|replace)$", line.strip())
        if "preload took" in line:
            def steady():
                open_window("steady")
                time.sleep(a.steady_seconds)
                close_window("steady")
            steady_timer = threading.Timer(a.warmup_seconds, steady)
            steady_timer.start()
        elif m:
            open_window(m.group(1))
        else:
            m = re.search(r"round \d+: (grow|shrink|replace) done", line)
            if m:
                close_window(m.group(1))
    proc.wait()
    stop_polling.set()
    bench_results = [m.group(1) for m in re.finditer(r"results: (\S+)\.json", "".join(log_lines))]
    meta = {"command": " ".join(["bench/profile_membership.py"] + sys.argv[1:]), "run_id": run_id,
            "revision": rev, "dirty": dirty, "loadavg_at_end": results_file.loadavg(),
            "jvm_opts": os.environ.get("RINGKV_JVM_OPTS", ""), "bench_results": bench_results[-1:] or None}
    for r in results:
        r["jit"] = {pid: jit_counts(os.path.join(a.out_dir, "jit-%s.log" % pid), r["start"], r["end"])
                    for pid in r["cpu_by_thread"]} if a.jit_log else None
    results_file.write(a.results_dir, "membership-profile", meta, {"meta": meta, "windows": results}, summary(results))
    return proc.returncode


def jit_counts(path, start, end):
    """C2 (tier 4) compilations and uncommon-trap deoptimizations logged between start and end (epoch s)."""
    compiled = deopts = 0
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\+0000\]\s+(.*)", line)
            if not m:
                continue
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
            if not start <= t < end:
                continue
            rest = m.group(2)
            if "made not entrant" in rest:
                deopts += "uncommon trap" in rest
            elif not rest.startswith("cid=") and re.match(r"\d+\s+[%sbn! ]*\s4\s", rest):
                compiled += 1
    return {"c2_compilations": compiled, "uncommon_trap_deopts": deopts}


def summary(results):
    lines = ["Per window and node process: CPU (cores), of which the JIT compiler threads; with --jit-log, C2",
             "compilations and uncommon-trap deoptimizations per second. Process ids as the bench started them",
             "(the three first nodes, then the joining and the replacing one).", ""]
    for r in results:
        sec = r["seconds"]
        lines.append("%-8s %5.1f s" % (r["window"], sec))
        for pid, used in r["cpu_by_thread"].items():
            jit = (r.get("jit") or {}).get(pid)
            lines.append("  %-7s %.2f cores, JIT %.2f%s; top: %s" % (
                pid, sum(used.values()) / sec, sum(v for k, v in used.items() if "CompilerThre" in k) / sec,
                ", C2 %.1f/s, deopts %.1f/s" % (jit["c2_compilations"] / sec, jit["uncommon_trap_deopts"] / sec) if jit else "",
                ", ".join("%s %.2f" % (k, v / sec) for k, v in sorted(used.items(), key=lambda kv: -kv[1])[:5])))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
