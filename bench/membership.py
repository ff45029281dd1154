#!/usr/bin/env python3
"""Membership changes under load: growing 3->4, shrinking 4->3 and replacing a node (issue 33's figures).

Starts three node processes (`--replication-factor 3 --warm-up PT0S`, pinned to the server CPUs),
writes --keys keys of --value-bytes bytes each, then keeps a constant --rate PUT/s plus --rate GET/s
(vegeta, open loop, spread over the nodes that serve; keys from the written set) running through a
steady-load window and then each step of --steps in turn:
  grow     a fourth node starts with `serve --join`; the step ends when its join phase says done;
  shrink   `ringkv decommission` of the node that joined; the step ends when its process exited;
  replace  one of the first three nodes is killed (SIGKILL) and a new one starts with
           `serve --join --replace` in its place; the step ends when the new node's join is done.
The load leaves a node before the bench stops or kills it (a client following /v0/status would), so
the failures counted are the cluster's, not requests sent to a process the bench killed.

Per step: the failed requests (PUT: not 201; GET: not 200 or 404; no answer) sent during it, its GET
p99 against the steady-load window's (issue 33's target: at most 2x), its duration, the bytes the
moving node's status counts as handed over (every copy sent: about one per record for a join, more where
the sources' digests differ)
over the time its phase said "streaming", the unique value bytes the node owns (gained or gave up),
and the CPU the node processes used; and the same step cut at the moving node's phase changes, plus
the CHUNK_SECONDS after it, with per piece the GET p50/p99 and every node process's cores (a
CpuSampler), so that a tail can be put down to a phase and a process. After the steps: every key on exactly RF nodes (each node's own
keys, `local=true`), and every key written during the run reads back its last acknowledged value (or
the value of a later write that got no answer). PUTs walk the key set in order, one value per pass,
so a key's writes are a whole pass apart and the last acknowledged one is well defined.

Writes bench/results/membership-<time>-<rev>.json and a .txt beside it. Run it as
`./ringkv bench --membership [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import collections
import concurrent.futures
import csv
import io
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.error
import urllib.request

import results_file
import vegeta
from replicated_path import Cluster, ROOT, CLK_TCK, stat_cpu_ticks, t95
from cluster_harness import thread_ticks

STEPS = ("grow", "shrink", "replace")
P99_TARGET = 2.0
KEY_PREFIX = "mb-"
# Seconds per vegeta attack: the load moves off a node within one of these.
CHUNK_SECONDS = 5


def log(msg):
    print("[membership %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=None, help="keys written before the steps (default 100000; --quick 5000)")
    ap.add_argument("--rate", type=int, default=1000, help="PUTs per second, and as many GETs (default 1000; 0: no load, "
                                                          "the steps' streaming on an otherwise idle cluster, no p99)")
    ap.add_argument("--value-bytes", type=int, default=1024, help="bytes per value (default 1024)")
    ap.add_argument("--steps", default=",".join(STEPS), help="in order, from grow, shrink, replace (default: all three; "
                                                             "shrink needs grow before it)")
    ap.add_argument("--rounds", type=int, default=1, help="the whole sequence on a fresh cluster this many times (default 1)")
    ap.add_argument("--steady-seconds", type=int, default=None,
                    help="steady-load window before the steps, for the reference p99 (default 30; --quick 10)")
    ap.add_argument("--warmup-seconds", type=int, default=None,
                    help="load before the steady window, not counted (default 20; --quick 5)")
    ap.add_argument("--step-timeout", type=int, default=1800, help="seconds a step may take (default 1800)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: few keys, short windows")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0,1"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "0,1"))
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    ap.add_argument("--join-warm-up", default="PT0S", metavar="DURATION",
                    help="--warm-up of the nodes that join (grow, replace); 'default': the node's own default, which "
                         "warms up before serving when its peers serve (default PT0S: the joining JVM's warm-up "
                         "would take the cores the serving nodes share with it here)")
    ap.add_argument("--thread-cpu", action="store_true",
                    help="also sum the nodes' threads' CPU by thread name, per phase (the busiest in the text "
                         "summary): which kind of thread took the cores")
    ap.add_argument("--jit-nice", type=int, default=None, metavar="N",
                    help="an experiment: give the nodes' JIT compiler threads (C1, C2) the nice value N, set twice a "
                         "second as threads come and go, so that on shared cores request threads run before the "
                         "JIT compiles (default: left as the JVM starts them)")
    ap.add_argument("--background-nice", type=int, default=None, metavar="N",
                    help="an experiment: give every node's background threads (cleanup and hand-over, anti-entropy, "
                         "hint replay, tombstone collection, RocksDB's compactions) the nice value N, set twice a second "
                         "as threads come and go, so that within a node's session its request threads run first")
    ap.add_argument("--join-nice", type=int, default=None, metavar="N",
                    help="an experiment: run the nodes a step starts (joining, replacing) at nice N, every thread, set "
                         "twice a second: how the step's tail looks when the new JVM takes only the cycles the serving "
                         "nodes leave, as on a machine of its own (default: as started). With the kernel's autogroup "
                         "scheduling a nice value weighs a thread only against those of its own session, and each "
                         "node runs in a session of its own: this sets the new JVM's threads against each other, not "
                         "against the serving nodes; --join-idle does that")
    ap.add_argument("--join-idle", action="store_true",
                    help="an experiment: start the nodes a step starts under the SCHED_IDLE policy (chrt --idle 0, "
                         "every thread inherits it), whose threads give way to any other that wakes up")
    ap.add_argument("--join-autogroup-nice", type=int, default=None, metavar="N",
                    help="an experiment: give the session of each node a step starts (its own, as every node's) the "
                         "autogroup nice N (/proc/PID/autogroup), which weighs the whole new JVM against the serving "
                         "nodes' sessions, and 0 again when its join is done, as an unprivileged process may (the "
                         "node does it itself from its start, --join-priority; with --node-args \"--join-priority "
                         "normal\" this measures the bench's own setting alone)")
    ap.add_argument("--join-autogroup-at", choices=("exec", "log"), default="exec",
                    help="with --join-autogroup-nice: set it as the node's process starts (exec) or once the node "
                         "has logged its first line, as the node's own main could (log)")
    ap.add_argument("--keep-logs", default=None, metavar="DIR",
                    help="copy every node's log there (DIR/rN/nodeM.log) before the run's temporary directory goes; "
                         "with the results' per-second timeline, what the nodes did when the load's tail grew")
    ap.add_argument("--node-args", default="",
                    help="extra flags for every node, the joining ones too, e.g. \"--stream-rate 8\"")
    results_file.add_summarise_argument(ap)
    return ap


def checked_args(ap, argv=None):
    args = ap.parse_args(argv)
    args.keys = args.keys if args.keys is not None else (5000 if args.quick else 100000)
    args.steady_seconds = args.steady_seconds if args.steady_seconds is not None else (10 if args.quick else 30)
    args.warmup_seconds = args.warmup_seconds if args.warmup_seconds is not None else (5 if args.quick else 20)
    args.step_list = [s for s in args.steps.split(",") if s]
    for s in args.step_list:
        if s not in STEPS:
            ap.error("unknown step %r (grow, shrink, replace)" % s)
    if "shrink" in args.step_list and ("grow" not in args.step_list
                                       or args.step_list.index("grow") > args.step_list.index("shrink")):
        ap.error("shrink decommissions the node grow added: put grow before it")
    if len(set(args.step_list)) != len(args.step_list) or not args.step_list:
        ap.error("--steps: each step at most once, at least one")
    if args.rate < 0:
        ap.error("--rate must be at least 0 (0: no load, for the streaming rate of an otherwise idle cluster)")
    for name in ("keys", "value_bytes", "rounds", "steady_seconds", "step_timeout"):
        if getattr(args, name) < 1:
            ap.error("--%s must be at least 1" % name.replace("_", "-"))
    if args.warmup_seconds < 0:
        ap.error("--warmup-seconds must be at least 0")
    if args.value_bytes < 16:
        ap.error("--value-bytes must be at least 16 (a value names the pass that wrote it)")
    return args


def port_below_ephemeral():
    """A free port below the kernel's ephemeral range. A port bind(0) found free is in that range, and
    under load a client connection (vegeta's, the nodes' own) may take it before a joining node binds it."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    for _ in range(100):
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise SystemExit("no free port below %d" % low)


def key(i):
    return "%s%07d" % (KEY_PREFIX, i)


def value(generation, size):
    """The value a pass writes: generation 0 is the preload; its name pads to size."""
    return ("g%08d-" % generation).encode().ljust(size, b"v")


class Writes:
    """The PUTs sent during the run, per key: (send time, generation, acknowledged). Threading: add()
    from the load's decoding thread, the rest once the load stopped."""

    def __init__(self):
        self.by_key = collections.defaultdict(list)
        self.lock = threading.Lock()

    def add(self, key_index, sent_ns, generation, acknowledged):
        with self.lock:
            self.by_key[key_index].append((sent_ns, generation, acknowledged))

    def acceptable(self, key_index):
        """Generations the key may read back: its last acknowledged write's (the preload's if none)
        and those of later writes that got no answer (they may have been stored)."""
        writes = sorted(self.by_key[key_index])
        acked = [w for w in writes if w[2]]
        last = acked[-1] if acked else (0, 0, True)
        return {last[1]} | {g for t, g, ok in writes if t > last[0] and not ok}

    def acknowledged(self):
        return sum(1 for ws in self.by_key.values() for w in ws if w[2])


class Load:
    """Constant PUT and GET rates over the serving nodes, as vegeta attacks of CHUNK_SECONDS each,
    one starting every CHUNK_SECONDS whether or not the one before has its last answers (waiting for
    them would send nothing exactly while the cluster is slow). Threading: start(), stop() and
    serve_only() from the bench's thread; one thread starts the attacks, another waits for each in
    turn and decodes its results (rows and the Writes ledger)."""

    def __init__(self, vegeta_bin, rate, keys, value_bytes, load_cpus, tmp, writes):
        self.vegeta_bin, self.rate, self.keys, self.value_bytes = vegeta_bin, rate, keys, value_bytes
        self.load_cpus, self.dir, self.writes = load_cpus, os.path.join(tmp, "load"), writes
        os.makedirs(self.dir, exist_ok=True)
        self.rows = []  # (sent ns, method, status, latency ms)
        self.errors = collections.Counter()
        self.put_seq = 0
        self.chunks = 0
        # serving changes bump its version; started_version is the version the running attack was made with.
        self.serving, self.serving_version, self.started_version = [], 0, 0
        self.finished_through = -1  # every attack up to this index has exited
        self.cond = threading.Condition()
        self.stopping = False
        self.failure = None  # why the attacks stopped early, if they did
        self.decode_queue = []
        self.attacker = threading.Thread(target=self._attack_loop, daemon=True)
        self.decoder = threading.Thread(target=self._decode_loop, daemon=True)

    def start(self, urls):
        self.serving = list(urls)
        self.attacker.start()
        self.decoder.start()

    def serve_only(self, urls):
        """From the next attack on, load goes to urls only; returns once an attack without the others
        began and every attack before it exited (its last request answered or timed out)."""
        with self.cond:
            self.serving = list(urls)
            self.serving_version += 1
            while self.started_version < self.serving_version and self.failure is None:
                self.cond.wait()
            first = self.chunks - 1
            while self.finished_through < first - 1 and self.failure is None:
                self.cond.wait()
            if self.failure:
                raise SystemExit(self.failure)

    def stop(self):
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        self.attacker.join()
        self.decoder.join()
        if self.failure:
            raise SystemExit(self.failure)

    def _body(self, generation):
        path = os.path.join(self.dir, "g%d" % generation)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(value(generation, self.value_bytes))
        return path

    def _targets(self, serving, chunk):
        rnd = random.Random(chunk)
        targets, meta = [], []
        for i in range(self.rate * CHUNK_SECONDS):
            node = serving[i % len(serving)]
            k, g = self.put_seq % self.keys, self.put_seq // self.keys + 1
            self.put_seq += 1
            targets.append(("PUT", "%s/v0/entity?id=%s" % (node, key(k)), self._body(g)))
            meta.append((k, g))
            targets.append(("GET", "%s/v0/entity?id=%s" % (serving[(i + 1) % len(serving)], key(rnd.randrange(self.keys))),
                            None))
            meta.append(None)
        return targets, meta

    def _attack_loop(self):
        try:
            self._attacks()
        except BaseException as e:
            with self.cond:
                self.failure = "the load stopped: %s" % e
        finally:
            with self.cond:
                self.decode_queue.append(None)
                self.cond.notify_all()

    def _attacks(self):
        next_start = time.monotonic()
        while True:
            with self.cond:
                if self.stopping or self.failure:
                    return
                serving, version, chunk = list(self.serving), self.serving_version, self.chunks
            if self.rate == 0:
                # No load: the chunks still pass, so that serve_only() returns as it would.
                time.sleep(max(0.0, next_start - time.monotonic()))
                next_start += CHUNK_SECONDS
                with self.cond:
                    self.chunks += 1
                    self.started_version = version
                    self.finished_through = chunk
                    self.cond.notify_all()
                continue
            targets, meta = self._targets(serving, chunk)
            path = os.path.join(self.dir, "chunk%d" % chunk)
            vegeta.write_targets(path + ".targets", targets)
            cmd = ["taskset", "-c", self.load_cpus, self.vegeta_bin, "attack", "-format=http", "-targets",
                   path + ".targets", "-rate", "%d/s" % (2 * self.rate), "-duration", "%ds" % CHUNK_SECONDS,
                   "-timeout", "5s", "-max-body", "0", "-output", path + ".bin"]
            time.sleep(max(0.0, next_start - time.monotonic()))
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            next_start += CHUNK_SECONDS
            with self.cond:
                self.chunks += 1
                self.started_version = version
                self.decode_queue.append((chunk, proc, path, meta))
                self.cond.notify_all()

    def _decode_loop(self):
        while True:
            with self.cond:
                while not self.decode_queue:
                    self.cond.wait()
                item = self.decode_queue.pop(0)
            if item is None:
                return
            chunk, proc, path, meta = item
            err = proc.communicate()[1]
            with self.cond:
                self.finished_through = chunk
                if proc.returncode != 0:
                    self.failure = "vegeta attack failed: %s" % err.decode()[-500:]
                self.cond.notify_all()
            if proc.returncode != 0:
                continue
            enc = subprocess.run([self.vegeta_bin, "encode", "--to", "csv", path + ".bin"], capture_output=True,
                                 check=True).stdout
            for rec in csv.reader(io.StringIO(enc.decode())):
                # timestamp ns, code, latency ns, bytes out, bytes in, error, body, attack, seq, method, url
                sent, code, ms, seq = int(rec[0]), int(rec[1]), int(rec[2]) / 1e6, int(rec[8])
                self.rows.append((sent, rec[9], code, ms))
                if code == 0 and rec[5]:
                    self.errors[rec[5].split(": ")[-1][:120]] += 1
                m = meta[seq % len(meta)]
                if m is not None:
                    self.writes.add(m[0], sent, m[1], code == 201)
            for ext in (".bin", ".targets"):
                os.remove(path + ext)


def window(rows, start, end):
    """What the load saw from requests sent in [start, end) (wall-clock seconds)."""
    lo, hi = int(start * 1e9), int(end * 1e9)
    sel = [r for r in rows if lo <= r[0] < hi]
    gets = sorted(r[3] for r in sel if r[1] == "GET")
    puts = sorted(r[3] for r in sel if r[1] == "PUT")
    failed = collections.Counter("%s %d" % (r[1], r[2]) for r in sel
                                 if (r[1] == "PUT" and r[2] != 201) or (r[1] == "GET" and r[2] not in (200, 404)))
    return {"requests": len(sel), "offered_per_s": len(sel) / (end - start) if end > start else None,
            "gets": len(gets), "puts": len(puts), "failed": sum(failed.values()),
            "failed_by_status": dict(failed), "get_p99_ms": vegeta.percentile(gets, 0.99),
            "get_p50_ms": vegeta.percentile(gets, 0.5), "put_p99_ms": vegeta.percentile(puts, 0.99)}


def status(url):
    """The node's /v0/status body (also from a 503 while it starts or drains); None when it does not answer."""
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=2) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            return json.loads(e.read())
        except ValueError:
            return None
    except (OSError, ValueError):
        return None


class StepWatch:
    """Follows the moving node's /v0/status during a step (its membership phases, with the time each
    was first seen, and its last progress) and the node processes' CPU time. Threading: one thread,
    the bench's."""

    def __init__(self, url, pids):
        self.url, self.pids = url, list(pids)
        self.phases, self.progress = [], {}
        self.cpu = {pid: self._ticks(pid) or 0 for pid in self.pids}
        self.cpu_start = dict(self.cpu)

    @staticmethod
    def _ticks(pid):
        try:
            return stat_cpu_ticks("/proc/%d/stat" % pid)
        except (FileNotFoundError, ProcessLookupError):
            return None

    def poll(self):
        for pid in self.pids:
            ticks = self._ticks(pid)
            if ticks is not None:
                self.cpu[pid] = ticks
        body = status(self.url)
        if body is None:
            return None
        progress = (body.get("metadata") or {}).get("membership") or {}
        if progress.get("step", "none") != "none":
            self.progress = progress
            if not self.phases or self.phases[-1][0] != progress.get("phase"):
                self.phases.append((progress.get("phase"), time.time()))
        return body

    def phase(self):
        return self.phases[-1][0] if self.phases else None

    def cpu_seconds(self):
        return sum(self.cpu[p] - self.cpu_start[p] for p in self.pids) / CLK_TCK

    def streaming_seconds(self, end):
        """From the first sight of "streaming" to the first sight of the phase after the last one: a
        join pass that failed (an owner did not answer) starts again from waiting, and the bytes
        count both passes."""
        seen = [i for i, (phase, _) in enumerate(self.phases) if phase == "streaming"]
        if not seen:
            return None
        last = seen[-1]
        return (self.phases[last + 1][1] if last + 1 < len(self.phases) else end) - self.phases[seen[0]][1]


def renice_threads(pid, nice, names=None):
    """Sets the nice value of pid's threads, or of those whose name starts with one of names; on
    Linux a thread id given to setpriority names that thread alone."""
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return
    for tid in tasks:
        try:
            if names is not None:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if not f.read().startswith(names):
                        continue
            os.setpriority(os.PRIO_PROCESS, int(tid), nice)
        except OSError:
            continue


def set_autogroup_nice(pid, nice):
    """The autogroup nice of pid's session (each node runs in a session of its own); 0 again needs no privilege."""
    try:
        with open("/proc/%d/autogroup" % pid, "w") as f:
            f.write(str(nice))
        log("session of %d: autogroup nice %d" % (pid, nice))
    except OSError as e:
        log("cannot set the autogroup nice of %d to %d: %s" % (pid, nice, e))


BACKGROUND_THREADS = ("ringkv-cleanup", "ringkv-anti-ent", "ringkv-hints", "ringkv-tombston", "rocksdb:low")


def renice_jit(pid, nice):
    """Sets the nice value of pid's JIT compiler threads (HotSpot names them "C1/C2 CompilerThreadN")."""
    renice_threads(pid, nice, ("C1 Compiler", "C2 Compiler"))


class CpuSampler:
    """Samples every node process's CPU time (utime + stime) twice a second, from start() to stop(),
    so that a step's phases can be split by process: which JVM took the cores while the load's tail
    grew. With threads=True it also sums each process's threads by name (cluster_harness.thread_ticks:
    the digits that number a pool's threads folded), to tell which kind of thread took them.
    Threading: start() and stop() from the bench's thread; one sampling thread reads the cluster's
    process list (appended to, never reordered) and writes samples, read after stop()."""

    def __init__(self, cluster, threads=False, jit_nice=None, join_nice=None, background_nice=None):
        self.cluster, self.samples, self.stopping = cluster, [], threading.Event()
        self.threads, self.jit_nice, self.join_nice = threads, jit_nice, join_nice
        self.background_nice = background_nice
        self.initial = len(cluster.procs)  # the nodes started before the steps; later ones a step started
        self.thread_samples = []  # (time, {thread name: ticks over every node process})
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping.set()
        self.thread.join()

    def _run(self):
        while not self.stopping.is_set():
            ticks, by_name = {}, collections.Counter()
            for i, (url, proc) in enumerate(list(zip(self.cluster.urls, self.cluster.procs))):
                if self.join_nice is not None and i >= self.initial:
                    renice_threads(proc.pid, self.join_nice)
                t = StepWatch._ticks(proc.pid)
                if t is not None:
                    ticks[url] = t
                    if self.threads:
                        by_name.update(thread_ticks(proc.pid))
                    if self.jit_nice is not None:
                        renice_jit(proc.pid, self.jit_nice)
                    if self.background_nice is not None:
                        renice_threads(proc.pid, self.background_nice, BACKGROUND_THREADS)
            now = time.time()
            self.samples.append((now, ticks))
            if self.threads:
                self.thread_samples.append((now, by_name))
            self.stopping.wait(0.5)

    @staticmethod
    def _nearest(samples, start, end):
        a = min(samples, key=lambda s: abs(s[0] - start))
        b = min(samples, key=lambda s: abs(s[0] - end))
        return a, b

    def cores(self, start, end):
        """Per node URL, the cores its process used between the samples nearest start and end."""
        if not self.samples:
            return {}
        a, b = self._nearest(self.samples, start, end)
        if b[0] <= a[0]:
            return {}
        # A process missing from the first sample started after it (a node that joins at the step's
        # start): all of its CPU time falls in the window.
        return {u: round((b[1][u] - a[1].get(u, 0)) / CLK_TCK / (b[0] - a[0]), 3) for u in b[1]}

    def top_threads(self, start, end, count=6):
        """The thread names that used the most cores between start and end, over every node process:
        [[name, cores], ...]; empty without threads=True. A thread that ended meanwhile drops its
        ticks out of the later sample, so a name's figure can read low, never high."""
        if not self.thread_samples:
            return []
        a, b = self._nearest(self.thread_samples, start, end)
        if b[0] <= a[0]:
            return []
        used = {n: (b[1][n] - a[1].get(n, 0)) / CLK_TCK / (b[0] - a[0]) for n in b[1]}
        return [[n, round(c, 3)] for n, c in sorted(used.items(), key=lambda kv: -kv[1])[:count] if c > 0]


def phase_windows(step, rows, sampler, after_s):
    """The step cut at its phase changes (the moving node's status, first sight of each phase; before
    the first one: "starting", the node's JVM booting or the decommission command starting), and the
    after_s seconds after it ("after the step": the former owners' cleanups and the anti-entropy
    digests rebuilt for the new owners run then, outside the step's window): per piece the load's
    GET p50/p99 and failures and every node process's cores."""
    cuts = [("starting", step["start"])] + [(p, t) for p, t in step["phases"] if step["start"] <= t < step["end"]]
    cuts.append(("after the step", step["end"]))
    out = []
    for i, (name, t) in enumerate(cuts):
        end = cuts[i + 1][1] if i + 1 < len(cuts) else step["end"] + after_s
        if end - t < 0.05:
            continue
        w = window(rows, t, end)
        out.append({"phase": name, "start": t, "seconds": round(end - t, 2), "gets": w["gets"],
                    "get_p50_ms": w["get_p50_ms"], "get_p99_ms": w["get_p99_ms"], "put_p99_ms": w["put_p99_ms"],
                    "failed": w["failed"], "node_cores": sampler.cores(t, end),
                    "top_threads": sampler.top_threads(t, end)})
    return out


def node_counters(urls):
    """Per node: what Cluster.node_counters sums over a cluster (503s by cause, 504s, write stalls, GC)."""
    return {u: Cluster.node_counters(types.SimpleNamespace(independent=False, urls=[u])) for u in urls}


def counter_change(before, after):
    """What the nodes counted between two node_counters() readings, over the nodes in both."""
    total = collections.Counter()
    for u in set(before) & set(after):
        for k, v in after[u].items():
            if v - before[u].get(k, 0) > 0:
                total[k] += v - before[u].get(k, 0)
    return {k: round(v, 3) for k, v in sorted(total.items())}


def cleanup_gauges(url):
    """(running, kept): whether the node runs a cleanup, and the records its current or last run kept
    (ringkv_cleanup_running, ringkv_cleanup_records{outcome="kept"}); (0, None) when it does not answer."""
    running, kept = 0, None
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("ringkv_cleanup_running "):
                    running = float(line.rsplit(" ", 1)[1])
                elif line.startswith('ringkv_cleanup_records{outcome="kept"}'):
                    kept = int(float(line.rsplit(" ", 1)[1]))
    except OSError:
        pass
    return running, kept


def local_keys(url):
    """The keys this node stores itself under the bench's prefix (keys only, its own store)."""
    target = "%s/v0/entities?start=%s&end=%s~&local=true&keysOnly=true" % (url, KEY_PREFIX, KEY_PREFIX)
    with urllib.request.urlopen(target, timeout=300) as r:
        return [k for k in r.read().decode().split("\n") if k]


class Bench:
    """One round: a fresh cluster, the load, the steps and the checks. Threading: the bench's thread."""

    def __init__(self, args, tmp, vegeta_bin, rnd):
        self.args, self.tmp, self.rnd = args, tmp, rnd
        self.extra = args.node_args.split()
        self.node_args = ["--replication-factor", "3", "--warm-up", "PT0S"] + self.extra
        self.cluster = Cluster("r%d" % rnd, 3, self.node_args, tmp, args.server_cpus)
        self.secret_file = os.path.join(tmp, "r%d-secret" % rnd)
        with open(os.open(self.secret_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(self.cluster.secret)
        self.state = {u: "normal" for u in self.cluster.urls}  # the bench's idea of each node
        self.writes = Writes()
        self.load = Load(vegeta_bin, args.rate, args.keys, args.value_bytes, args.load_cpus,
                         os.path.join(tmp, "r%d" % rnd), self.writes)

    def serving(self):
        return [u for u in self.cluster.urls if self.state[u] == "normal"]

    def add_node(self, extra):
        """Starts a node joining through the first serving one, as Cluster starts its own (appended to it)."""
        c, i = self.cluster, len(self.cluster.urls)
        through = self.serving()[0]
        port = port_below_ephemeral()
        url = "http://127.0.0.1:%d" % port
        data = os.path.join(self.tmp, c.name, "node%d" % (i + 1))
        os.makedirs(data, exist_ok=True)
        c.urls.append(url)
        c.logs.append(os.path.join(self.tmp, c.name, "node%d.log" % (i + 1)))
        c.cmds.append((["chrt", "--idle", "0"] if self.args.join_idle else []) + ["taskset", "-c", self.args.server_cpus, os.path.join(ROOT, "ringkv"), "serve", "--host",
                       "127.0.0.1", "--port", str(port), "--data", data, "--join", through,
                       "--cluster-secret-file", self.secret_file]
                      + ([] if self.args.join_warm_up == "default" else ["--warm-up", self.args.join_warm_up])
                      + self.extra + extra)
        c.procs.append(c._start(i))
        self.state[url] = "joining"
        if self.args.join_autogroup_nice is not None:
            threading.Thread(target=self._autogroup_when_started, args=(c.procs[i].pid, c.logs[i]),
                             daemon=True).start()
        return i

    def _autogroup_when_started(self, pid, log_path):
        if self.args.join_autogroup_at == "log":
            deadline = time.time() + 30
            while time.time() < deadline and not (os.path.exists(log_path) and os.path.getsize(log_path) > 0):
                time.sleep(0.005)
        set_autogroup_nice(pid, self.args.join_autogroup_nice)

    def autogroup_back(self, pid):
        if self.args.join_autogroup_nice is not None:
            set_autogroup_nice(pid, 0)

    def preload(self):
        def put(i):
            body = value(0, self.args.value_bytes)
            for _ in range(5):
                req = urllib.request.Request("%s/v0/entity?id=%s" % (self.cluster.urls[i % 3], key(i)), data=body,
                                             method="PUT")
                try:
                    with urllib.request.urlopen(req, timeout=20) as r:
                        if r.status == 201:
                            return
                except OSError:
                    time.sleep(0.2)
            raise SystemExit("preload: %s not stored" % key(i))
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(put, range(self.args.keys)))

    def await_join(self, watch, deadline):
        proc = self.cluster.procs[-1]
        while time.time() < deadline:
            if proc.poll() is not None:
                raise SystemExit("the joining node exited (%d) in phase %s" % (proc.returncode, watch.phase()))
            watch.poll()
            if watch.phase() == "done":
                return
            if watch.phase() == "aborted":
                raise SystemExit("join aborted: %s" % watch.progress)
            time.sleep(0.25)
        raise SystemExit("the join did not finish in %d s (phase %s)" % (self.args.step_timeout, watch.phase()))

    def unique_bytes(self, url):
        return len(local_keys(url)) * self.args.value_bytes

    def grow(self):
        start = time.time()
        pids = [p.pid for p in self.cluster.procs]
        i = self.add_node([])
        url = self.cluster.urls[i]
        watch = StepWatch(url, pids + [self.cluster.procs[i].pid])
        self.await_join(watch, start + self.args.step_timeout)
        end = time.time()
        self.autogroup_back(self.cluster.procs[i].pid)
        self.state[url] = "normal"
        self.joined = url
        return start, end, watch, url, self.unique_bytes(url)

    def shrink(self):
        url = self.joined
        owned = self.unique_bytes(url)
        self.state[url] = "leaving"
        self.load.serve_only(self.serving())
        start = time.time()
        proc = self.cluster.procs[self.cluster.urls.index(url)]
        watch = StepWatch(url, [p.pid for p in self.cluster.procs if p.poll() is None])
        cli = subprocess.Popen([os.path.join(ROOT, "ringkv"), "decommission", "--node", url, "--cluster-secret-file",
                                self.secret_file], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
        deadline = start + self.args.step_timeout
        while proc.poll() is None and time.time() < deadline:
            watch.poll()
            time.sleep(0.25)
        out = cli.communicate(timeout=60)[0].decode()
        # The node's exit 0 is the verdict, not the CLI's: with the default --drain-delay PT0S a node can
        # stream, leave and stop between two of the CLI's 1 s polls, and the CLI then reports "stopped
        # before it left" with exit 1 although the node left (its log says so).
        if proc.poll() is None or proc.returncode != 0:
            raise SystemExit("decommission of %s: node exit %s, CLI exit %s:\n%s" % (url, proc.poll(), cli.returncode,
                                                                                      out[-2000:]))
        end = time.time()
        self.state[url] = "left"
        # The node may stop between two status polls, after more was handed over than the last poll saw:
        # its last log line about leaving has the total.
        with open(self.cluster.logs[self.cluster.urls.index(url)], errors="replace") as f:
            said = re.findall(r"left the cluster at epoch \d+; (\d+) records \((\d+) bytes\) handed over", f.read())
        if said:
            watch.progress = dict(watch.progress, records=int(said[-1][0]), bytes=int(said[-1][1]), source="node log")
        self.decommission_cli = {"exit": cli.returncode, "last_line": out.strip().splitlines()[-1] if out.strip() else ""}
        return start, end, watch, url, owned

    def replace(self):
        dead = self.cluster.urls[2]
        self.state[dead] = "dead"
        self.load.serve_only(self.serving())
        start = time.time()
        victim = self.cluster.procs[2]
        pids = [p.pid for p in self.cluster.procs if p.poll() is None and p is not victim]
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
        i = self.add_node(["--replace", dead])
        url = self.cluster.urls[i]
        watch = StepWatch(url, pids + [self.cluster.procs[i].pid])
        self.await_join(watch, start + self.args.step_timeout)
        end = time.time()
        self.autogroup_back(self.cluster.procs[i].pid)
        self.state[url] = "normal"
        return start, end, watch, url, self.unique_bytes(url)

    def owners(self):
        """Copies per key over the serving nodes' own stores, read once no node runs a cleanup
        (ringkv_cleanup_running; a former owner's may still run after the step) and no node's last
        run kept records (its follow-ups, 5 s after it and doubling, hand them over), for at most
        300 s, and until two reads in a row agree; with what each node's last cleanup kept."""
        previous, deadline = None, time.time() + 300
        while time.time() < deadline and any(g[0] or g[1] for g in map(cleanup_gauges, self.serving())):
            time.sleep(1)
        kept = {u: cleanup_gauges(u)[1] for u in self.serving()}
        while time.time() < deadline:
            per_node = {u: local_keys(u) for u in self.serving()}
            counts = collections.Counter(k for ks in per_node.values() for k in ks)
            histogram = collections.Counter(counts.values())
            histogram[0] = self.args.keys - len(counts)
            now = {"nodes": {u: len(ks) for u, ks in per_node.items()}, "copies_histogram": dict(histogram)}
            if now == previous:
                break
            previous = now
            time.sleep(2)
        return {"nodes": now["nodes"], "cleanup_kept": kept,
                "copies_histogram": {str(k): v for k, v in sorted(now["copies_histogram"].items())},
                "keys_not_on_3": sum(v for c, v in now["copies_histogram"].items() if c != 3)}

    def read_back(self):
        """Every key written during the run, read through the serving nodes in turn."""
        serving = self.serving()
        keys = sorted(self.writes.by_key)

        def check(n):
            k = keys[n]
            try:
                with urllib.request.urlopen("%s/v0/entity?id=%s" % (serving[n % len(serving)], key(k)), timeout=20) as r:
                    body = r.read()
            except urllib.error.HTTPError as e:
                return (k, "status %d" % e.code)
            except OSError as e:
                return (k, "no answer: %s" % e)
            gen = int(body[1:9]) if body[:1] == b"g" and body[1:9].isdigit() else None
            if gen is None or body != value(gen, self.args.value_bytes) or gen not in self.writes.acceptable(k):
                return (k, "read generation %s, expected one of %s" % (gen, sorted(self.writes.acceptable(k))))
            return None
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            bad = [b for b in pool.map(check, range(len(keys))) if b]
        return {"keys_checked": len(keys), "acknowledged_puts": self.writes.acknowledged(), "mismatches": len(bad),
                "first_mismatches": [[key(k), why] for k, why in bad[:10]]}

    def run(self):
        c, a = self.cluster, self.args
        try:
            c.await_ready()
            log("round %d: 3 nodes ready at %s; writing %d keys of %d bytes" % (self.rnd, ", ".join(c.urls), a.keys,
                                                                             a.value_bytes))
            t = time.time()
            self.preload()
            log("round %d: preload took %.1f s" % (self.rnd, time.time() - t))
            self.load.start(self.serving())
            sampler = CpuSampler(c, threads=a.thread_cpu, jit_nice=a.jit_nice, join_nice=a.join_nice,
                                 background_nice=a.background_nice)
            sampler.start()
            time.sleep(a.warmup_seconds)
            steady_start = time.time()
            pids = [p.pid for p in c.procs]
            cpu0 = sum(StepWatch._ticks(p) for p in pids)
            counters0 = node_counters(self.serving())
            time.sleep(a.steady_seconds)
            steady_counters = counter_change(counters0, node_counters(self.serving()))
            steady_end = time.time()
            steady_cpu = (sum(StepWatch._ticks(p) for p in pids) - cpu0) / CLK_TCK
            steps = []
            for name in a.step_list:
                log("round %d: %s" % (self.rnd, name))
                counters0 = node_counters(self.serving())
                sizes = log_sizes(self.cluster.logs)
                start, end, watch, url, unique = getattr(self, name)()
                counters = counter_change(counters0, node_counters(self.serving()))
                compared = hand_over_comparisons(self.cluster.logs, sizes)
                streaming = watch.streaming_seconds(end)
                moved = watch.progress.get("bytes", 0)
                steps.append({"step": name, "node": url, "start": start, "end": end, "duration_s": end - start,
                              "phases": watch.phases, "progress": watch.progress, "streamed_bytes": moved,
                              "streaming_s": streaming,
                              "streamed_mb_per_s": moved / 1e6 / streaming if streaming else None,
                              "unique_value_bytes": unique, "cpu_s": watch.cpu_seconds(),
                              "cpu_cores": watch.cpu_seconds() / (end - start), "nodes": counters,
                              "hand_over_comparisons": compared})
                if name == "shrink":
                    steps[-1]["decommission_cli"] = self.decommission_cli
                log("round %d: %s done in %.1f s (%d bytes streamed)" % (self.rnd, name, end - start, moved))
                time.sleep(CHUNK_SECONDS)  # a gap between the steps' windows
            self.load.stop()
            sampler.stop()
            for s in steps:
                s["load"] = window(self.load.rows, s["start"], s["end"])
                s["phase_windows"] = phase_windows(s, self.load.rows, sampler, CHUNK_SECONDS)
            steady = window(self.load.rows, steady_start, steady_end)
            steady["cpu_cores"] = steady_cpu / (steady_end - steady_start)
            steady["node_cores"] = sampler.cores(steady_start, steady_end)
            steady["top_threads"] = sampler.top_threads(steady_start, steady_end)
            steady["nodes"] = steady_counters
            log("round %d: checking owners and reading back %d keys" % (self.rnd, len(self.writes.by_key)))
            # Requests sent per second from the steady window on: where the offered load fell short.
            first = int(steady_start)
            per_second = collections.Counter(r[0] // 1_000_000_000 - first for r in self.load.rows)
            sent = [per_second.get(i, 0) for i in range(max(per_second) + 1)] if per_second else []
            # GETs per second from the steady window on: [second, count, p50 ms, p99 ms], to set beside the
            # nodes' logs (--keep-logs) and the steps' phases.
            by_second = collections.defaultdict(list)
            for r in self.load.rows:
                if r[1] == "GET":
                    by_second[r[0] // 1_000_000_000 - first].append(r[3])
            timeline = [[sec, len(v), round(vegeta.percentile(sorted(v), 0.5), 2), round(vegeta.percentile(sorted(v), 0.99), 2)]
                        for sec, v in sorted(by_second.items()) if sec >= 0]
            result = {"round": self.rnd, "steady": steady, "steps": steps, "owners": self.owners(),
                      "get_timeline": timeline,
                      "sent_per_second_from": first, "sent_per_second": sent,
                      "read_back": self.read_back(), "load_errors": dict(self.load.errors.most_common(5)),
                      "members_at_end": ((status(self.serving()[0]) or {}).get("metadata") or {}).get("members")}
            return result
        except BaseException:
            for path in c.logs:  # what the nodes said last: the run's temporary directory goes with it
                with open(path, errors="replace") as f:
                    log("%s ends:\n%s" % (os.path.basename(path), "".join(f.readlines()[-8:])))
            raise
        finally:
            if self.load.attacker.is_alive():
                self.load.stop()
            c.stop()


def interval(values):
    # None: not measured; NaN: nothing to measure (a p99 without load, --rate 0).
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return None, None
    if len(values) < 2:
        return values[0], None
    return statistics.mean(values), t95(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5


def fmt(mean_ci, pattern="%.2f"):
    mean, ci = mean_ci
    if mean is None:
        return "-"
    return (pattern % mean) + ("" if ci is None else (" +- " + pattern % ci))


HAND_OVER_COMPARED = re.compile(r"hand-over: (\d+) of (\d+) buckets differ from ")
HAND_OVER_UNREAD = re.compile(r"hand-over: \S+'s digest could not be read")


def log_sizes(paths):
    """Each node log's size now: where a step's own lines begin."""
    return {p: os.path.getsize(p) if os.path.exists(p) else 0 for p in paths}


def hand_over_comparisons(paths, sizes):
    """What the nodes logged since `sizes` of their join hand-overs' digest comparisons: the
    buckets each second source found differing from a first source's (of 1,024), and how many
    times a first source's digest could not be read (every record then sent twice)."""
    differing, unread = [], 0
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            f.seek(sizes.get(path, 0))
            for line in f:
                found = HAND_OVER_COMPARED.search(line)
                if found:
                    differing.append(int(found.group(1)))
                elif HAND_OVER_UNREAD.search(line):
                    unread += 1
    return {"buckets_differing": differing, "digests_unread": unread}


def failure_lines(loads, nodes):
    """The failed requests by method and status, and what the nodes counted meanwhile (503 causes, 504s)."""
    statuses, counted = collections.Counter(), collections.Counter()
    for load in loads:
        statuses.update(load["failed_by_status"])
    for n in nodes:
        counted.update(n)
    lines = []
    if statuses:
        lines.append("         failed by method and status (0: no answer): %s" % ", ".join(
            "%s: %d" % kv for kv in sorted(statuses.items())))
    if counted:
        lines.append("         the nodes counted: %s" % ", ".join("%s %g" % kv for kv in sorted(counted.items())))
    return lines


def summarise(doc):
    meta, rounds = doc["meta"], doc["rounds"]
    lines = ["3 nodes, replication factor 3, %d keys of %d bytes; constant %d PUT/s + %d GET/s (vegeta) over the "
             "serving nodes; %d round(s)%s" % (meta["keys"], meta["value_bytes"], meta["rate"], meta["rate"],
                                               len(rounds), ", mean +- 95 % CI" if len(rounds) > 1 else "")
             + ("; nodes' RINGKV_JVM_OPTS: %s" % meta["jvm_opts"] if meta.get("jvm_opts") else "")
             + ("; joining nodes' --warm-up: %s" % meta["join_warm_up"] if meta.get("join_warm_up", "PT0S") != "PT0S" else "")
             + ("; joining nodes under SCHED_IDLE" if meta.get("join_idle") else "")
             + ("; joining nodes' session at autogroup nice %d from %s until joined"
                % (meta["join_autogroup_nice"], meta["join_autogroup_at"]) if meta.get("join_autogroup_nice") is not None else ""),
             "issue 33's target: GET p99 during a step at most %.0fx the steady-load p99; no failed requests" % P99_TARGET,
             ""]
    steady = interval([r["steady"]["get_p99_ms"] for r in rounds])
    lines.append("steady load (%d s before the steps): GET p99 %s ms, PUT p99 %s ms, failed %d of %d, node CPU %s cores" % (
        meta["steady_s"], fmt(steady), fmt(interval([r["steady"]["put_p99_ms"] for r in rounds])),
        sum(r["steady"]["failed"] for r in rounds), sum(r["steady"]["requests"] for r in rounds),
        fmt(interval([r["steady"]["cpu_cores"] for r in rounds]))))
    lines.extend(failure_lines([r["steady"] for r in rounds], [r["steady"].get("nodes", {}) for r in rounds]))
    for r in rounds:
        if r["steady"].get("node_cores"):
            lines.append("         round %d node cores %s (the nodes in the order they started; below, per phase "
                         "of each step, the same order)" % (r["round"], " ".join(
                             "%.2f" % c for c in r["steady"]["node_cores"].values())))
            if r["steady"].get("top_threads"):
                lines.append("                 busiest threads (all nodes, cores): %s" % ", ".join(
                    "%s %.2f" % (n, c) for n, c in r["steady"]["top_threads"]))
    lines.append("")
    lines.append("%-8s %-10s %-8s %-10s %-12s %-9s %-13s %-12s %-10s %-10s %-9s %-12s %s" % (
        "step", "seconds", "sent/s", "GET p99 ms", "x steady", "verdict", "failed", "streamed MB", "stream s", "MB/s",
        "unique MB", "unique MB/s", "CPU cores"))
    for name in meta["steps"]:
        ss = [(r, s) for r in rounds for s in r["steps"] if s["step"] == name]
        if not ss:
            continue
        ratios = [s["load"]["get_p99_ms"] / r["steady"]["get_p99_ms"] for r, s in ss
                  if r["steady"]["get_p99_ms"] and not math.isnan(r["steady"]["get_p99_ms"])]
        ratio = interval(ratios)
        failed = sum(s["load"]["failed"] for _, s in ss)
        if meta["rate"] == 0 or ratio[0] is None:
            verdict = "no load"
        else:
            verdict = "met" if ratio[0] <= P99_TARGET and failed == 0 and (ratio[1] is None or ratio[0] + ratio[1] <= P99_TARGET) \
                else ("NOT met" if ratio[0] > P99_TARGET or failed else "inconclusive")
        lines.append("%-8s %-10s %-8s %-10s %-12s %-9s %-13s %-12s %-10s %-10s %-9s %-12s %s" % (
            name, fmt(interval([s["duration_s"] for _, s in ss]), "%.1f"),
            fmt(interval([s["load"].get("offered_per_s") for _, s in ss]), "%.0f"),
            fmt(interval([s["load"]["get_p99_ms"] for _, s in ss])), fmt(ratio), verdict,
            "%d of %d" % (failed, sum(s["load"]["requests"] for _, s in ss)),
            fmt(interval([s["streamed_bytes"] / 1e6 for _, s in ss]), "%.1f"),
            fmt(interval([s["streaming_s"] for _, s in ss]), "%.1f"),
            fmt(interval([s["streamed_mb_per_s"] for _, s in ss])),
            fmt(interval([s["unique_value_bytes"] / 1e6 for _, s in ss]), "%.1f"),
            fmt(interval([s["unique_value_bytes"] / 1e6 / s["streaming_s"] for _, s in ss if s["streaming_s"]]), "%.1f"),
            fmt(interval([s["cpu_cores"] for _, s in ss]))))
        lines.extend(failure_lines([s["load"] for _, s in ss], [s.get("nodes", {}) for _, s in ss]))
        for r, s in ss:
            for w in s.get("phase_windows", []):
                cores = w["node_cores"]
                lines.append("         round %d %-26s %5.1f s  GET p50 %s p99 %s ms, failed %d; node cores %s (sum %.2f)" % (
                    r["round"], w["phase"][:26], w["seconds"], fmt((w["get_p50_ms"], None)), fmt((w["get_p99_ms"], None)),
                    w["failed"], " ".join("%.2f" % c for c in cores.values()), sum(cores.values())))
                if w.get("top_threads"):
                    lines.append("                 busiest threads (all nodes, cores): %s" % ", ".join(
                        "%s %.2f" % (n, c) for n, c in w["top_threads"]))
        compared = [s["hand_over_comparisons"] for _, s in ss if s.get("hand_over_comparisons")]
        if any(c["buckets_differing"] or c["digests_unread"] for c in compared):
            lines.append("         second sources' buckets differing from the first source's (of 1024), per round: %s%s" % (
                "; ".join(", ".join(str(n) for n in c["buckets_differing"]) or "-" for c in compared),
                "; first sources' digests not read: %d" % sum(c["digests_unread"] for c in compared)
                if any(c["digests_unread"] for c in compared) else ""))
    lines += ["",
              "verdict: met when the GET p99 ratio (and its interval's upper end) is at most %.0fx and no request "
              "failed;" % P99_TARGET,
              "  NOT met when the ratio's mean is above it or a request failed; else inconclusive.",
              "streamed MB: the bytes (keys and values) the moving node's status counts as handed over, every "
              "copy sent",
              "  (a join: the first source's, and a second source's in the digest buckets where the two differ); "
              "MB/s = streamed / the time its phase said streaming;",
              "  unique MB: value bytes of the keys the node owns (grow, replace) or owned before it left (shrink);",
              "  unique MB/s = unique MB / stream s (issue 33's target: at least 20 MB/s per joining node).",
              "CPU cores: CPU time of every node process during the step over its duration (2 cores on this machine).",
              "sent/s: requests vegeta sent per second in the step (%d asked for); fewer: the load generator itself "
              "was starved." % (2 * meta["rate"]),
              ""]
    for r in rounds:
        o, rb = r["owners"], r["read_back"]
        lines.append("round %d after the steps: copies per key %s (keys not on exactly 3 nodes: %d); node keys %s%s" % (
            r["round"], o["copies_histogram"], o["keys_not_on_3"], sorted(o["nodes"].values()),
            "; records the nodes' last cleanups kept %s" % sorted(o["cleanup_kept"].values(), key=str)
            if "cleanup_kept" in o else ""))
        lines.append("  read back %d keys written during the run (%d PUTs acknowledged): %d mismatches%s" % (
            rb["keys_checked"], rb["acknowledged_puts"], rb["mismatches"],
            (" " + str(rb["first_mismatches"][:3])) if rb["mismatches"] else ""))
        if r.get("load_errors"):
            lines.append("  vegeta errors (no answer): %s" % r["load_errors"])
    return "\n".join(lines)


def main():
    ap = parser()
    args = checked_args(ap)
    if args.summarise:
        results_file.rewrite_summary(args.summarise, summarise)
        return
    run_id, rev, dirty = results_file.run_id()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "keys": args.keys, "rate": args.rate,
            "value_bytes": args.value_bytes, "steps": args.step_list, "rounds": args.rounds, "quick": args.quick,
            "steady_s": args.steady_seconds, "warmup_s": args.warmup_seconds, "chunk_s": CHUNK_SECONDS,
            "server_cpus": args.server_cpus, "load_cpus": args.load_cpus, "cores": os.cpu_count(),
            "node_args": args.node_args, "join_warm_up": args.join_warm_up, "thread_cpu": args.thread_cpu, "jit_nice": args.jit_nice, "background_nice": args.background_nice, "join_nice": args.join_nice, "join_idle": args.join_idle, "join_autogroup_nice": args.join_autogroup_nice, "join_autogroup_at": args.join_autogroup_at, "jvm_opts": os.environ.get("RINGKV_JVM_OPTS", ""),
            "loadavg_at_start": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--membership"] + sys.argv[1:])}
    vegeta_bin = vegeta.ensure_vegeta()
    rounds = []
    with tempfile.TemporaryDirectory(prefix="ringkv-membership.") as tmp:
        for rnd in range(1, args.rounds + 1):
            rounds.append(Bench(args, tmp, vegeta_bin, rnd).run())
            if args.keep_logs:
                shutil.copytree(os.path.join(tmp, "r%d" % rnd), os.path.join(args.keep_logs, "r%d" % rnd),
                                ignore=lambda d, names: [n for n in names if not n.endswith(".log")], dirs_exist_ok=True)
    meta["loadavg_at_end"] = results_file.loadavg()
    base = results_file.write(args.out_dir, "membership", meta, {"meta": meta, "rounds": rounds},
                              summarise({"meta": meta, "rounds": rounds}))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
