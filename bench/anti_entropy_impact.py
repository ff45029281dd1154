#!/usr/bin/env python3
"""Foreground latency while anti-entropy works, against the same cluster idle.

Starts a 3-node cluster (node processes pinned to the server CPU), writes the key space, then
alternates, for several rounds: an idle phase and a busy phase of the same open-loop GET load
(vegeta at a constant rate against the first node, pinned to the load CPU). In the busy phase
`ringkv repair --node <first node> --wait --rounds N` runs rounds back to back, so one is in
progress for the whole phase. The nodes keep their digests per write, so replicas in sync compare
without reading their stores; to give every round work, a writer PUTs with `replicas=1/1` (one
copy, which node 1's rounds copy to its peers when node 1 holds it) at --diverge-rate through the
second node, in both phases alike, cycling through --diverge-keys keys of its own (new ones at
first, then newer versions of them), so that the stores keep their size and every round finds
differing buckets and scans the stores for them (at the nodes' scan pace) and takes about as long
as the last. Nodes run only the rounds asked for (--anti-entropy-interval PT24H unless
--node-args sets it). A discarded warm-up of one idle and one busy phase comes first, and each
idle phase starts only once node 1 reports no round running (stopping the repair client does not
stop a round the node has started). Each phase records p50/p99 and the share of non-2xx answers
(a GET of a written key is 200).

Writes bench/results/anti-entropy-impact-<time>-<rev>.json and a .txt with the p99 of busy
phases against idle ones (mean and 95 % interval over the rounds). Run it as
`./ringkv bench --anti-entropy-impact [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import results_file  # noqa: E402
import replicated_path as rp  # noqa: E402  (the cluster, prefill and interval helpers)
import vegeta as vegeta_tool  # noqa: E402  (builds vegeta when missing)

ROOT = rp.ROOT
VEGETA = os.path.join(BENCH_DIR, ".tools", "vegeta")


def vegeta(url, keys, rate, seconds, load_cpus, tmp):
    targets = os.path.join(tmp, "targets.txt")
    if not os.path.exists(targets):
        with open(targets, "w") as f:
            for i in range(keys):
                f.write("GET %s/v0/entity?id=key%07d\n\n" % (url, i))
    attack = subprocess.Popen(["taskset", "-c", load_cpus, VEGETA, "attack", "-targets", targets, "-rate", str(rate),
                               "-duration", "%ds" % seconds, "-timeout", "5s", "-max-workers", "512"],
                              stdout=subprocess.PIPE)
    report = subprocess.run([VEGETA, "report", "-type", "json"], stdin=attack.stdout, capture_output=True, text=True,
                            check=True).stdout
    attack.wait()
    r = json.loads(report)
    codes = r.get("status_codes", {})
    non_ok = sum(v for k, v in codes.items() if k != "200")
    return {"requests": r["requests"], "p50_ms": r["latencies"]["50th"] / 1e6, "p99_ms": r["latencies"]["99th"] / 1e6,
            "max_ms": r["latencies"]["max"] / 1e6, "non_200": non_ok, "status_codes": codes}


class DivergingWriter:
    """PUTs with replicas=1/1 at a steady rate until stopped: one copy each, so replicas differ.

    Cycles through `keys` keys (their names fixed for the run, the position carried over from phase
    to phase by `cursor`): new keys on the first pass, newer versions of them afterwards, so the
    stores stop growing and rounds stop getting longer."""

    def __init__(self, url, rate, keys, cursor):
        self.url, self.rate, self.keys, self.cursor = url, rate, keys, cursor
        self.written = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        import http.client
        import urllib.parse
        parsed = urllib.parse.urlparse(self.url)
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=5)
        start = time.monotonic()
        while not self.stopped.is_set():
            due = start + self.written / self.rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                key = self.cursor[0] % self.keys
                self.cursor[0] += 1
                conn.request("PUT", "/v0/entity?id=diverge-%07d&replicas=1/1" % key, body=(b"%010d" % self.cursor[0]).ljust(100, b"d"))
                conn.getresponse().read()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=5)
            self.written += 1

    def __enter__(self):
        if self.rate > 0:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        if self.rate > 0:
            self.thread.join(timeout=30)


class RepairLoop:
    """One `ringkv repair --wait --rounds N` process for a busy phase: rounds back to back until stopped.

    One JVM per phase, started before the load: a JVM per round (as before) started on the load
    CPU during the measurement, and its start-up delayed the load generator's own requests.
    """

    def __init__(self, url, env, cpus):
        self.url, self.env, self.cpus = url, env, cpus
        self.rounds = 0
        self.process = None
        self.reader = threading.Thread(target=self.read, daemon=True)

    def read(self):
        for line in self.process.stdout:
            if line.startswith("ringkv repair: round done"):
                self.rounds += 1
            elif line.startswith("ringkv repair:") and "requested" not in line:
                rp.log("repair: " + line.strip())

    def __enter__(self):
        self.process = subprocess.Popen(["taskset", "-c", self.cpus, os.path.join(ROOT, "ringkv"), "repair", "--node",
                                         self.url, "--wait", "--rounds", "1000000"],
                                        env=self.env, stdout=subprocess.PIPE, text=True)
        self.reader.start()
        deadline = time.monotonic() + 60
        while self.rounds == 0 and self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the JVM is up and a round has run before the load starts
        self.rounds_at_start = self.rounds
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.reader.join(timeout=10)


def round_running(url):
    """Whether the node reports an anti-entropy round in progress (its /metrics gauge)."""
    with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("ringkv_anti_entropy_running"):
                return float(line.rsplit(" ", 1)[1]) != 0
    raise SystemExit("%s/metrics has no ringkv_anti_entropy_running gauge" % url)


def await_round_over(url, timeout=600):
    """Seconds until the node's round in progress ends. Stopping the `repair --wait` client does not
    stop a round the node has started, so an idle phase begins only after this."""
    start = time.monotonic()
    while round_running(url):
        if time.monotonic() - start > timeout:
            raise SystemExit("%s: an anti-entropy round still runs after %ds" % (url, timeout))
        time.sleep(0.05)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10, help="seconds per phase (default 10)")
    ap.add_argument("--rate", type=int, default=2000, help="GETs per second offered (default 2000)")
    ap.add_argument("--keys", type=int, default=50000, help="keys written first (default 50000)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "1"))
    ap.add_argument("--diverge-rate", type=int, default=200,
                    help="PUTs per second with replicas=1/1 in both phases, so that every round has differing "
                         "buckets to repair (0: none, replicas stay in sync; default 200)")
    ap.add_argument("--diverge-keys", type=int, default=20000,
                    help="keys the diverging writer cycles through: new at first, then newer versions, so the stores "
                         "keep their size (default 20000)")
    ap.add_argument("--node-args", default="",
                    help="extra flags for every `ringkv serve`, e.g. \"--anti-entropy-scan-rate 50000\"")
    ap.add_argument("--out-dir", default=os.path.join(BENCH_DIR, "results"))
    args = ap.parse_args()
    if vegeta_tool.ensure_vegeta() != VEGETA:
        raise SystemExit("vegeta was built somewhere other than %s" % VEGETA)
    run_id, rev, dirty = results_file.run_id()
    tmp = subprocess.run(["mktemp", "-d", "/tmp/ringkv-ae-impact.XXXXXX"], capture_output=True, text=True).stdout.strip()
    node_flags = args.node_args.split()
    if "--anti-entropy-interval" not in node_flags:
        # only the rounds the busy phases ask for: a node's own periodic round could fall in an idle phase
        node_flags += ["--anti-entropy-interval", "PT24H"]
    cluster = rp.Cluster("3n", 3, node_flags, tmp, args.server_cpus)
    try:
        cluster.await_ready()
        rp.log("writing %d keys" % args.keys)
        rp.prefill(cluster.urls[0], args.keys, b"v" * 100)
        repair_env = dict(os.environ, RINGKV_CLUSTER_SECRET=cluster.secret)
        cursor = [0]  # the diverging writer's position in its key cycle, carried over from phase to phase

        def idle_phase():
            with DivergingWriter(cluster.urls[1], args.diverge_rate, args.diverge_keys, cursor):
                return vegeta(cluster.urls[0], args.keys, args.rate, args.duration, args.load_cpus, tmp)

        def busy_phase():
            with DivergingWriter(cluster.urls[1], args.diverge_rate, args.diverge_keys, cursor), \
                    RepairLoop(cluster.urls[0], repair_env, args.load_cpus) as loop:
                res = vegeta(cluster.urls[0], args.keys, args.rate, args.duration, args.load_cpus, tmp)
            res["repair_rounds"] = loop.rounds - loop.rounds_at_start
            res["round_overrun_s"] = await_round_over(cluster.urls[0])
            return res

        # Warm-up, discarded: an idle and a busy phase, so that the first measured busy phase does
        # not also pay the JIT compiling the rounds' code.
        idle_phase()
        busy_phase()
        phases = []
        for rnd in range(1, args.rounds + 1):
            idle = idle_phase()
            busy = busy_phase()
            for name, res in (("idle", idle), ("busy", busy)):
                res.update({"round": rnd, "phase": name})
                phases.append(res)
                rp.log("round %d %s: p50 %.2f ms, p99 %.2f ms, non-200 %d%s" % (
                    rnd, name, res["p50_ms"], res["p99_ms"], res["non_200"],
                    ", %d repair rounds completed, the last ran on %.1f s after the phase" % (
                        res["repair_rounds"], res["round_overrun_s"]) if name == "busy" else ""))
        idle_p99 = [p["p99_ms"] for p in phases if p["phase"] == "idle"]
        busy_p99 = [p["p99_ms"] for p in phases if p["phase"] == "busy"]
        ratios = [b / i for b, i in zip(busy_p99, idle_p99)]
        mean_i, ci_i = rp.interval(idle_p99)
        mean_b, ci_b = rp.interval(busy_p99)
        mean_r, ci_r = rp.interval(ratios)
        meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "duration_s": args.duration,
                "rate": args.rate, "keys": args.keys, "server_cpus": args.server_cpus, "load_cpus": args.load_cpus,
                "node_args": " ".join(node_flags), "diverge_rate": args.diverge_rate, "diverge_keys": args.diverge_keys,
                "command": " ".join(["./ringkv", "bench", "--anti-entropy-impact"] + sys.argv[1:])}
        summary = "\n".join([
            "GET at %d/s against node 1 of 3, %d keys; anti-entropy rounds back to back in the busy phases; "
            "%d PUT/s with replicas=1/1 over %d keys of their own in both phases" % (args.rate, args.keys, args.diverge_rate,
                                                                                  args.diverge_keys),
            "p99 idle: %.2f ± %.2f ms" % (mean_i, ci_i),
            "p99 busy: %.2f ± %.2f ms" % (mean_b, ci_b),
            "p99 busy / idle, per round: %s; mean %.2fx ± %.2f (target: at most 1.5x)" % (
                ", ".join("%.2f" % r for r in ratios), mean_r, ci_r),
            "non-200 answers: idle %d, busy %d" % (sum(p["non_200"] for p in phases if p["phase"] == "idle"),
                                                   sum(p["non_200"] for p in phases if p["phase"] == "busy")),
            "repair rounds completed while busy: %s" % ", ".join(str(p["repair_rounds"]) for p in phases if p["phase"] == "busy"),
            "seconds the last round ran on after each busy phase (the next idle phase starts after it): %s" % ", ".join(
                "%.1f" % p["round_overrun_s"] for p in phases if p["phase"] == "busy"),
        ])
        base = results_file.write(args.out_dir, "anti-entropy-impact", meta, {"meta": meta, "phases": phases}, summary)
        rp.log("results: %s.json and .txt" % os.path.relpath(base, ROOT))
    finally:
        cluster.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
