#!/usr/bin/env python3
"""The cluster chores of every benchmark, written once: free ports, starting ringkv nodes (class
Cluster), writing the key space into them (prefill), letting their JIT settle (settle), and the
CPU and JIT CPU of their processes from /proc.

The Python steps import these (most through bench/replicated_path.py, which re-exports them);
bench/run.sh, the bash harness of `./ringkv bench`, calls the command line:

  cluster_harness.py ports N
      N distinct TCP ports that were free on 127.0.0.1 a moment ago, on one line.
  cluster_harness.py start --nodes N --name NAME --dir DIR --server-cpus CPUS [options]
      starts N nodes of one cluster (or, with --fake-nginx, N nginx stand-ins), prints
      "URL PID" per node as each starts (the PID is also the node's process group) and returns
      once every node answers; the nodes keep running, the caller stops them.
  cluster_harness.py prefill --keys K [options] URL...
      writes key0000000 .. key{K-1} once through the URLs in turn (vegeta), then again the keys
      that were not stored, up to --passes passes; fails with a message if some remain.
  cluster_harness.py settle --pids PID,... [options] URL...
      closed-loop load on every URL until the JIT compiler threads of the PIDs used at most
      --jit-percent of their CPU in one --step, or --max seconds passed; prints
      "<seconds spent> <last JIT share in %>".

Progress goes to stderr, answers to stdout; bad input exits with status 2 and a message.
"""
import argparse
import collections
import csv
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import re
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # bash runs this on every step: no __pycache__ left in bench/
import vegeta  # noqa: E402  (after the line above, so that it leaves no bytecode either)
from ports import free_ports  # noqa: E402,F401  (shared with nginx.py; replicated_path re-exports it)

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
LUA_DIR = os.path.join(BENCH_DIR, "lua")
CLK_TCK = os.sysconf("SC_CLK_TCK")
NO_TARGETS = "no targets to attack"  # vegeta's error row once a lazily read targets file is used up


def log(msg):
    """The bash harness's log format (bench/lib/common.sh), so that its lines and ours read alike."""
    print("%s %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def stat_cpu_ticks(path):
    """utime + stime (fields 14 and 15) of a /proc stat file, in clock ticks."""
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def thread_ticks(pid):
    """Thread name (digits folded to #, but for the JIT's "C1"/"C2" compiler threads) -> utime+stime
    ticks, summed over every thread of pid that has that name; threads that end while they are read
    are left out."""
    result = collections.Counter()
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return result
    for tid in tasks:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        result[re.sub(r"(?<!^C)\d+", "#", name)] += int(fields[11]) + int(fields[12])
    return result


def process_cpu_seconds(pids):
    """CPU time of the processes (all their threads)."""
    return sum(stat_cpu_ticks("/proc/%d/stat" % pid) for pid in pids) / CLK_TCK


def jit_cpu_seconds(pids):
    """CPU time of the processes' JIT compiler threads (HotSpot names them "C1/C2 CompilerThreadN")."""
    total = 0
    for pid in pids:
        task_dir = "/proc/%d/task" % pid
        for tid in os.listdir(task_dir):
            try:
                with open(os.path.join(task_dir, tid, "comm")) as f:
                    if not f.read().startswith(("C1 CompilerThre", "C2 CompilerThre")):
                        continue
                total += stat_cpu_ticks(os.path.join(task_dir, tid, "stat"))
            except (FileNotFoundError, ProcessLookupError):
                pass  # a thread that ended between the listing and the read
    return total / CLK_TCK


# Thread names (as /proc shows them: their first 15 characters) end in a number for pool threads
# and loops, or in HotSpot's "#N". Ratis names its threads after the node's id
# ("n08fd5b4c2790@group-1F70...", "n08fd5b4c2790-server-thread1"): one group.
GROUP_NAME = re.compile(r"[-#]?\d+$")
RATIS_THREAD = re.compile(r"^n[0-9a-f]{12}")


def thread_groups(pids):
    """{thread group: [CPU ticks, voluntary context switches]} summed over the processes' threads.
    A group is a thread name without its trailing number ("ringkv-handler-3" -> "ringkv-handler"):
    which pool or loop did the work, and how often its threads went to sleep (each a wake-up
    later, the cost a request at a moderate rate pays and a closed loop hides)."""
    groups = collections.defaultdict(lambda: [0, 0])
    for pid in pids:
        task_dir = "/proc/%d/task" % pid
        try:
            tids = os.listdir(task_dir)
        except FileNotFoundError:
            continue
        for tid in tids:
            try:
                with open(os.path.join(task_dir, tid, "comm")) as f:
                    name = f.read().strip()
                ticks = stat_cpu_ticks(os.path.join(task_dir, tid, "stat"))
                with open(os.path.join(task_dir, tid, "status")) as f:
                    switches = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", f.read(), re.M).group(1))
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that ended between the listing and the read
            group = "ratis" if RATIS_THREAD.match(name) else (GROUP_NAME.sub("", name).rstrip("-") or name)
            groups[group][0] += ticks
            groups[group][1] += switches
    return groups


def log_tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(collections.deque(f, lines))
    except OSError:
        return "(no log at %s)\n" % path


class Cluster:
    """Node processes of one configuration; owns their process groups."""

    # What replicated_path.main() asks of every configuration (its NginxConfig answers otherwise):
    # the scenarios it serves, whether the key space is written into it first, and whether its JIT
    # must settle.
    scenarios = ("put", "get")
    prefilled = True
    compiles = True

    def __init__(self, name, nodes, flags, tmp, server_cpus, env=None, independent=False, own_sessions=True, root=ROOT,
                 first_jvm_opts="", on_start=None):
        """independent: the nodes are single-node clusters side by side (each its own --cluster
        list), not one cluster; load then goes to all of them at once (see replicated_path.load()).
        own_sessions: each node in its own session (and process group), as when started from
        separate terminals; with the kernel's autogroup scheduling each session is one
        scheduling group sharing the CPU with the others. False: the nodes stay in this
        script's session, one group with the load generator, as `ringkv up` starts them.
        root: the checkout whose ./ringkv starts the nodes (another one for a baseline).
        first_jvm_opts: JVM options for the first node only, after RINGKV_JVM_OPTS (bench/run.sh's
        --profile records that node's JFR).
        on_start: called with (url, pid) as each node starts, before any is ready, so that a
        caller can stop what started should this process die while it waits."""
        self.name, self.flags, self.independent, self.own_sessions = name, flags, independent, own_sessions
        self.first_jvm_opts = first_jvm_opts
        ports = free_ports(nodes)
        self.urls = ["http://127.0.0.1:%d" % p for p in ports]
        # Node-to-node requests are authenticated: every node of the cluster gets the same fresh secret.
        self.secret = secrets.token_hex(32)
        env = dict(os.environ, **(env or {}), RINGKV_CLUSTER_SECRET=self.secret)
        self.env, self.cmds, self.logs, self.procs = env, [], [], []
        for i, port in enumerate(ports):
            data = os.path.join(tmp, name, "node%d" % (i + 1))
            os.makedirs(data, exist_ok=True)
            self.logs.append(os.path.join(tmp, name, "node%d.log" % (i + 1)))
            members = self.urls[i] if independent else ",".join(self.urls)
            self.cmds.append(["taskset", "-c", server_cpus, os.path.join(root, "ringkv"), "serve", "--host",
                              "127.0.0.1", "--port", str(port), "--data", data, "--cluster", members] + flags)
            self.procs.append(self._start(i))
            if on_start:
                on_start(self.urls[i], self.procs[i].pid)

    def _start(self, i):
        env = self.env
        if i == 0 and self.first_jvm_opts:
            env = dict(env, RINGKV_JVM_OPTS=(env.get("RINGKV_JVM_OPTS", "") + " " + self.first_jvm_opts).strip())
        with open(self.logs[i], "a") as logf:
            return subprocess.Popen(self.cmds[i], stdout=logf, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=self.own_sessions, stdin=subprocess.DEVNULL)

    def stop_node(self, i):
        """Stops node i (0-based) as stop() stops them all; start_node(i) starts it again."""
        self._stop([self.procs[i]])

    def start_node(self, i):
        """Starts node i again with the command, port and data directory it had: one step of a
        rolling restart."""
        self.procs[i] = self._start(i)

    def await_ready(self, timeout=120):
        """Waits until every node answers 200 on /v0/status; a node that exits first or is not
        ready in time ends the run with the end of its log, which says why."""
        deadline = time.time() + timeout
        for i, url in enumerate(self.urls):
            while True:
                try:
                    with urllib.request.urlopen(url + "/v0/status", timeout=2) as r:
                        if r.status == 200:
                            break
                except Exception:
                    pass
                if self.procs[i].poll() is not None:
                    raise SystemExit("%s: the node at %s exited (status %s) before it was ready; the end of %s:\n%s" % (
                        self.name, url, self.procs[i].returncode, self.logs[i], log_tail(self.logs[i])))
                if time.time() > deadline:
                    raise SystemExit("%s: %s did not become ready in %ds; the end of %s:\n%s" % (
                        self.name, url, timeout, self.logs[i], log_tail(self.logs[i])))
                time.sleep(0.2)

    def node_counters(self):
        """Sums over the nodes' /metrics of what may explain a stall: RocksDB write-stall seconds, GC
        seconds, storage calls that would have blocked a loop, 503s by cause and 504s; and hints
        stored and replayed. Nodes that do not answer count as zero."""
        sums = collections.Counter()
        for url in ([] if self.independent else self.urls):
            try:
                with urllib.request.urlopen(url + "/metrics", timeout=2) as r:
                    text = r.read().decode()
            except Exception:
                continue
            for line in text.splitlines():
                if line.startswith("#") or " " not in line:
                    continue
                name, value = line.rsplit(" ", 1)
                key = None
                if name.startswith("ringkv_storage_write_stall_seconds_total"):
                    key = "write_stall_s"
                elif name.startswith("jvm_gc_collection_seconds_sum"):
                    key = "gc_s"
                elif name.startswith("ringkv_responses_unavailable_total"):
                    # server_overload: over the in-flight budget, answered before any handler ran
                    key = "503_" + name.split('cause="', 1)[1].split('"', 1)[0]
                elif name.startswith("ringkv_storage_would_block"):
                    # storage calls of requests run on a loop that went to the handler executor,
                    # by what they would have waited for (key_lock, file_read, write_stall, ...)
                    cause = name.split('cause="', 1)[1].split('"', 1)[0] if 'cause="' in name else "any"
                    sums["would_block"] += float(value)
                    key = "would_block_" + cause
                elif name.startswith(("ringkv_hints_stored_total", "ringkv_hints_replayed_total")):
                    # replica writes missed and kept for their target; a replay after a membership
                    # change can put a copy on a node that no longer owns the key
                    key = name[len("ringkv_"):-len("_total")]
                elif name.startswith("ringkv_requests_total") and 'status="504"' in name:
                    key = ("internal_" if 'operation="internal"' in name else "public_") + "504"
                if key:
                    sums[key] += float(value)
        return sums

    def pids(self):
        """The nodes' process ids; the launcher execs the JVM, so each is its JVM's."""
        return [p.pid for p in self.procs]

    def cpu_seconds(self):
        return process_cpu_seconds(self.pids())

    def jit_cpu_seconds(self):
        return jit_cpu_seconds(self.pids())

    def thread_groups(self):
        """The JVMs' threads by group (see thread_groups())."""
        return thread_groups(self.pids())

    def stop(self):
        self._stop(self.procs)

    def _stop(self, procs):
        for p in procs:
            try:
                if self.own_sessions:
                    os.killpg(p.pid, signal.SIGTERM)
                else:
                    p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                if self.own_sessions:
                    os.killpg(p.pid, signal.SIGKILL)
                else:
                    p.kill()


def wrk(url, scenario, seconds, connections, load_cpus, keys, timeout=5, value_bytes=100):
    """One closed-loop wrk run of bench/lua/<scenario>.lua against url, pinned to load_cpus; its
    BENCH_WRK_JSON result line as a dict."""
    env = dict(os.environ, BENCH_LUA_DIR=LUA_DIR, BENCH_KEYS=str(keys), BENCH_VALUE_BYTES=str(value_bytes))
    cmd = ["taskset", "-c", load_cpus, "wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "--timeout",
           "%ds" % timeout, "-s", os.path.join(LUA_DIR, scenario + ".lua"), url]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit("wrk exited with status %d:\n%s%s" % (run.returncode, run.stdout, run.stderr))
    for line in run.stdout.splitlines():
        if line.startswith("BENCH_WRK_JSON "):
            return json.loads(line[len("BENCH_WRK_JSON "):])
    raise SystemExit("wrk printed no result line:\n" + run.stdout)


def wrk_all(urls, scenario, seconds, connections, load_cpus, keys, timeout=5, value_bytes=100):
    """One wrk per URL at once, the connections split between them as evenly as they go. Requests
    and errors are summed; latency percentiles are the worst of the wrk processes' (an upper bound)."""
    k = len(urls)
    shares = [connections // k + (1 if i < connections % k else 0) for i in range(k)]
    with ThreadPoolExecutor(k) as pool:
        results = list(pool.map(lambda u, c: wrk(u, scenario, seconds, c, load_cpus, keys, timeout, value_bytes),
                                urls, shares))
    return {"requests": sum(r["requests"] for r in results),
            "duration_us": max(r["duration_us"] for r in results),
            "latency_us": {q: max(r["latency_us"][q] for r in results) for q in results[0]["latency_us"]},
            "errors": {e: sum(r["errors"][e] for r in results) for e in results[0]["errors"]}}


def settle(pids, run_load, step, max_s, jit_share, label, log=log):
    """Load in step-second runs (run_load(step) runs one: the scenario's own load in the Python
    steps, a mix on every node in bench/run.sh) until the JIT compiler threads used at most
    jit_share of the processes' CPU in one run, or max_s seconds have passed. JVMs sharing one CPU
    compile for a minute or more after their first load; measured earlier, their CPU per request
    counts the compilation of their own code (and the first scenario measured pays the most).
    Returns what each run saw."""
    pids = list(pids)
    steps, spent = [], 0
    while spent < max_s:
        cpu0, jit0 = process_cpu_seconds(pids), jit_cpu_seconds(pids)
        run_load(step)
        spent += step
        cpu, jit = process_cpu_seconds(pids) - cpu0, jit_cpu_seconds(pids) - jit0
        share = jit / cpu if cpu > 0 else 0.0
        steps.append({"seconds": spent, "cpu_s": cpu, "jit_cpu_s": jit, "jit_share": share})
        log("settling %s: %d s, the JIT used %.1f %% of the nodes' %.1f CPU-s in the last %d s" % (
            label, spent, 100 * share, cpu, step))
        if share <= jit_share:
            break
    return steps


def prefill(urls, keys, value, expect=(201,), load_cpus=None, workers=64, passes=5, pass_timeout=300,
            vegeta_bin=None, on_pass=None, log=log):
    """Writes key0000000 .. key{keys-1} once with the value, through the URLs in turn (one URL or a
    list), as fast as vegeta's workers go; a key whose answer is not in expect (a 503 under the
    burst, a timeout) is written again in the next pass, up to passes passes, after which the run
    ends with the keys that remain and their answers. vegeta rather than a Python thread pool: by
    hand on the 2-core bench machine, with nginx answering, vegeta's 64 workers sent 32,000 PUTs/s
    where 16 urllib threads sent 2,300/s, so the client is never what limits 100,000 keys.
    on_pass(pass, csv_path) is called after each pass with vegeta's CSV of it."""
    urls = [urls] if isinstance(urls, str) else list(urls)
    vegeta_bin = vegeta_bin or vegeta.ensure_vegeta()
    pin = ["taskset", "-c", load_cpus] if load_cpus else []
    with tempfile.TemporaryDirectory(prefix="ringkv-prefill.") as tmp:
        body = os.path.join(tmp, "value")
        with open(body, "wb") as f:
            f.write(value)
        todo = ["%s/v0/entity?id=key%07d" % (urls[i % len(urls)].rstrip("/"), i) for i in range(keys)]
        for n in range(1, passes + 1):
            targets, results, csv_path = (os.path.join(tmp, "%s-%d" % (x, n)) for x in ("targets", "results", "csv"))
            vegeta.write_targets(targets, [("PUT", url, body) for url in todo])
            # -lazy: vegeta reads the targets as it sends and stops when they end; rate 0: as fast
            # as the workers go.
            cmd = pin + [vegeta_bin, "attack", "-lazy", "-format=http", "-targets", targets, "-rate", "0",
                         "-max-workers", str(workers), "-workers", str(workers), "-timeout", "10s", "-max-body", "0",
                         "-output", results]
            t0 = time.time()
            try:
                attack = subprocess.run(cmd, capture_output=True, text=True, timeout=pass_timeout)
            except subprocess.TimeoutExpired:
                raise SystemExit("prefill: pass %d took longer than %ds" % (n, pass_timeout))
            if attack.returncode != 0:
                raise SystemExit("prefill: vegeta attack failed (status %d):\n%s" % (attack.returncode, attack.stderr))
            seconds = time.time() - t0
            with open(csv_path, "wb") as out:
                subprocess.run([vegeta_bin, "encode", "--to", "csv", results], stdout=out, check=True)
            codes, failed = collections.Counter(), []
            with open(csv_path, newline="") as f:
                # timestamp, code, latency, bytes out, bytes in, error, body, attack, seq, method, URL, ...
                for row in csv.reader(f):
                    if row[5] == NO_TARGETS:
                        continue
                    codes[int(row[1])] += 1
                    if int(row[1]) not in expect:
                        failed.append(row[10])
            log("prefill pass %d: %d requests at %.0f/s, answers %s" % (
                n, sum(codes.values()), sum(codes.values()) / max(seconds, 1e-3),
                {str(c): k for c, k in sorted(codes.items())}))
            if on_pass:
                on_pass(n, csv_path)
            if sum(codes.values()) < len(todo):
                raise SystemExit("prefill: vegeta sent %d of %d requests in pass %d" % (sum(codes.values()), len(todo), n))
            if not failed:
                return
            todo = failed
            if n < passes:
                log("WARNING: %d keys not stored in pass %d; writing them again" % (len(todo), n))
                time.sleep(1)  # a node that shed the burst gets a moment before the next
        raise SystemExit("prefill: %d keys not stored after %d passes (answers of the last: %s), e.g. %s" % (
            len(todo), passes, {str(c): k for c, k in sorted(codes.items()) if c not in expect}, todo[0]))


# ---- the command line (bench/run.sh) ---------------------------------------------------------

def positive_int(text):
    value = int(text)
    if value <= 0:
        raise ValueError(text)
    return value


positive_int.__name__ = "positive number"  # argparse names the type in its message


def non_negative_int(text):
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


non_negative_int.__name__ = "non-negative number"


def cpu_list(text):
    if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", text):
        raise ValueError(text)
    return text


cpu_list.__name__ = "CPU list (e.g. 0 or 0,1)"


def url(text):
    if not re.fullmatch(r"https?://[^\s/]+/?", text):
        raise ValueError(text)
    return text.rstrip("/")


url.__name__ = "node URL (http://host:port)"


def pid_list(text):
    return [positive_int(p) for p in text.split(",")]


pid_list.__name__ = "comma-separated process ids"


def status_list(text):
    codes = [int(c) for c in text.split(",")]
    if not all(100 <= c <= 599 for c in codes):
        raise ValueError(text)
    return codes


status_list.__name__ = "comma-separated HTTP statuses"


def cmd_ports(a):
    print(" ".join(str(p) for p in free_ports(a.count)))


def cmd_start(a):
    """Starts the nodes and leaves them running; the caller stops them by their process groups.
    Each "URL PID" line is printed as its node starts, so a caller interrupted while this waits
    still knows what to stop; should this process fail or be stopped first, it stops them."""
    def started(node_url, pid):
        print(node_url, pid, flush=True)

    started_nodes = []
    try:
        if a.fake_nginx:
            from nginx import Nginx  # not at the top: only --fake-nodes runs need it
            for i in range(a.nodes):
                # The bash harness's fake nodes answer any PUT with 200 and a 2-byte body, as its baseline does.
                server = Nginx(os.path.join(a.dir, a.name, "node%d" % (i + 1)), 2, a.server_cpus, h2=False)
                started_nodes.append(server)
                started(server.url.rstrip("/"), server.proc.pid)
            urls = [s.url.rstrip("/") for s in started_nodes]
        else:
            cluster = Cluster(a.name, a.nodes, a.node_args.split(), a.dir, a.server_cpus,
                              env={"RINGKV_JVM_OPTS": a.jvm_opts},
                              first_jvm_opts=("-XX:StartFlightRecording=name=bench,settings=profile,disk=true,maxage=1h,"
                                              "filename=%s,dumponexit=true" % os.path.join(a.dir, a.name, "node1.jfr"))
                              if a.jfr_first else "",
                              on_start=started)
            started_nodes.append(cluster)
            cluster.await_ready(a.timeout)
            urls = cluster.urls
    except BaseException:
        for s in started_nodes:
            s.stop()
        raise
    log("%d %s ready: %s (CPUs %s)" % (a.nodes, "nginx stand-in(s) for nodes" if a.fake_nginx else "node(s)",
                                       " ".join(urls), a.server_cpus))


def cmd_prefill(a):
    on_pass = None
    if a.fragments:
        def on_pass(n, csv_path):
            # The results file keeps each pass as a fragment (bench/report/assemble.py's "prefill").
            subprocess.run([sys.executable, os.path.join(BENCH_DIR, "report", "fragment.py"), "vegeta",
                            "--target", "ringkv", "--nodes", str(a.cluster_nodes), "--scenario", "prefill",
                            "--rate", "0", "--percent", "0", "--expect", ",".join(map(str, a.expect)),
                            "--out", "%s-%d.json" % (a.fragments, n), csv_path], check=True)
    prefill(a.urls, a.keys, b"v" * a.value_bytes, expect=a.expect, load_cpus=a.load_cpus, workers=a.workers,
            passes=a.passes, pass_timeout=a.pass_timeout, vegeta_bin=a.vegeta, on_pass=on_pass)


def cmd_settle(a):
    def run_load(seconds):
        wrk_all(a.urls, a.scenario, seconds, a.connections, a.load_cpus, a.keys, a.timeout, a.value_bytes)
    steps = settle(a.pids, run_load, a.step, a.max, a.jit_percent / 100, a.label)
    print(steps[-1]["seconds"] if steps else 0, "%.1f" % (100 * steps[-1]["jit_share"]) if steps else "-")


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Each command has its own --help.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="{ports,start,prefill,settle}")

    p = sub.add_parser("ports", help="N free TCP ports on 127.0.0.1")
    p.add_argument("count", type=positive_int)
    p.set_defaults(run=cmd_ports)

    p = sub.add_parser("start", help="start the nodes of one cluster and wait until they answer")
    p.add_argument("--nodes", type=positive_int, required=True)
    p.add_argument("--name", required=True, help="the cluster's directory under --dir")
    p.add_argument("--dir", required=True, help="where data directories and logs go")
    p.add_argument("--server-cpus", type=cpu_list, required=True, help="taskset CPU list of the nodes")
    p.add_argument("--timeout", type=positive_int, default=120, help="seconds for every node to answer (default 120)")
    p.add_argument("--jvm-opts", default="", help="RINGKV_JVM_OPTS of every node (write --jvm-opts=...)")
    p.add_argument("--node-args", default="", help="extra flags for every `ringkv serve` (write --node-args=...)")
    p.add_argument("--jfr-first", action="store_true",
                   help="the first node records a JFR profile for its whole life (node1.jfr beside its log)")
    p.add_argument("--fake-nginx", action="store_true", help="nginx instances stand in for the nodes")
    p.set_defaults(run=cmd_start)

    p = sub.add_parser("prefill", help="write the key space, again the keys that were not stored")
    p.add_argument("--keys", type=positive_int, required=True)
    p.add_argument("--value-bytes", type=positive_int, default=100)
    p.add_argument("--expect", type=status_list, default=[201],
                   help="answers that mean stored (default 201)")
    p.add_argument("--workers", type=positive_int, default=64, help="vegeta's workers (default 64)")
    p.add_argument("--passes", type=positive_int, default=5, help="passes over keys not stored (default 5)")
    p.add_argument("--pass-timeout", type=positive_int, default=300, help="seconds for one pass (default 300)")
    p.add_argument("--load-cpus", type=cpu_list, help="taskset CPU list of vegeta (default: not pinned)")
    p.add_argument("--vegeta", help="the vegeta binary (default: built on demand into bench/.tools/)")
    p.add_argument("--fragments", metavar="PREFIX",
                   help="write each pass as a results fragment, PREFIX-<pass>.json (bench/report/fragment.py)")
    p.add_argument("--cluster-nodes", type=positive_int, default=1, help="the fragments' cluster size")
    p.add_argument("urls", nargs="+", type=url)
    p.set_defaults(run=cmd_prefill)

    p = sub.add_parser("settle", help="closed-loop load until the nodes' JIT is calm")
    p.add_argument("--pids", type=pid_list, required=True, help="the node processes, comma-separated")
    p.add_argument("--scenario", default="mix", choices=("get", "put", "mix", "range"), help="bench/lua script")
    p.add_argument("--step", type=positive_int, default=10, help="seconds per run (default 10)")
    p.add_argument("--max", type=non_negative_int, default=120, help="at most this many seconds (default 120)")
    p.add_argument("--jit-percent", type=float, default=2.0,
                   help="settled when the JIT used at most this %% of the nodes' CPU in one run (default 2)")
    p.add_argument("--connections", type=positive_int, default=64, help="wrk connections, split over the URLs")
    p.add_argument("--timeout", type=positive_int, default=5, help="wrk's request timeout in seconds (default 5)")
    p.add_argument("--load-cpus", type=cpu_list, required=True, help="taskset CPU list of wrk")
    p.add_argument("--keys", type=positive_int, default=100000, help="the prefilled key space (default 100000)")
    p.add_argument("--value-bytes", type=positive_int, default=100)
    p.add_argument("--label", default="the cluster", help="what the progress lines call the nodes")
    p.add_argument("urls", nargs="+", type=url)
    p.set_defaults(run=cmd_settle)
    return ap


def main(argv=None):
    ap = parser()
    a = ap.parse_args(argv)
    if a.command == "settle" and not 0 <= a.jit_percent <= 100:
        ap.error("settle --jit-percent must be between 0 and 100")
    if a.command == "settle" and len(a.urls) > a.connections:
        ap.error("settle: fewer --connections (%d) than URLs (%d): a wrk without a connection" % (
            a.connections, len(a.urls)))
    # bench/run.sh stops a step it gives up on with SIGTERM: unwind, so that `start` stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.run(a)


if __name__ == "__main__":
    main()
