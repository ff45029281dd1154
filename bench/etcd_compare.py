#!/usr/bin/env python3
"""ringkv beside etcd: three ringkv nodes and three etcd members (Debian's etcd-server, v3 JSON
gateway) on loopback, the same open-loop GET and PUT rates against each, in one run, so that the
machine's speed cancels out of the ratios (issue 34's read-tail and write-rate targets).

Per round, per rate (--rates), per system and operation: vegeta sends that many requests per
second for --duration seconds, spread evenly over the three nodes (members), each a 100-byte
value under a prefilled key. ringkv: GET and PUT /v0/entity at the default replicas (2/3: a
quorum read, a write acknowledged by two replicas). etcd: POST /v3/kv/range (serializable by
default, --etcd-reads linearizable for a read through the leader) and POST /v3/kv/put (committed
by a Raft majority). Recorded per run: p50/p99/max latency, failed requests (no 2xx, or no
answer), and the CPU the system's processes used per request (utime+stime from /proc, all three
of them). Both systems' processes run on --server-cpus, the load on --load-cpus (with the same
CPU for both, as users run them on one machine, give both the same list).

The summary gives, per operation and rate, the mean p99 and CPU per request of each system with
95 % confidence intervals over the rounds, and the per-round ratios ringkv / etcd.

Writes bench/results/etcd-compare-<time>-<rev>.json and .txt. Run it as
`./ringkv bench --etcd [options]` (the launcher builds first and sets JAVA_HOME; etcd-server
is installed with apt-get when missing and this runs as root).
"""
import argparse
import base64
import collections
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import replicated_path as rp
import results_file
import vegeta

VALUE = b"v" * 100
OPS = ("get", "put")


def log(msg):
    print("[etcd-compare %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class Etcd:
    """Three etcd members on loopback, each in its own session, pinned to the server CPUs."""

    def __init__(self, tmp, server_cpus):
        binary = shutil.which("etcd")
        if binary is None:
            raise SystemExit("etcd is not installed: apt-get install etcd-server (Debian), or put etcd on PATH")
        ports = rp.free_ports(6)
        self.urls = ["http://127.0.0.1:%d" % ports[2 * i] for i in range(3)]
        peers = ["http://127.0.0.1:%d" % ports[2 * i + 1] for i in range(3)]
        initial = ",".join("m%d=%s" % (i, peers[i]) for i in range(3))
        self.procs = []
        for i in range(3):
            data = os.path.join(tmp, "etcd", "m%d" % i)
            os.makedirs(data, exist_ok=True)
            cmd = ["taskset", "-c", server_cpus, binary, "--name", "m%d" % i, "--data-dir", data,
                   "--listen-client-urls", self.urls[i], "--advertise-client-urls", self.urls[i],
                   "--listen-peer-urls", peers[i], "--initial-advertise-peer-urls", peers[i],
                   "--initial-cluster", initial, "--initial-cluster-state", "new", "--log-level", "error"]
            with open(os.path.join(tmp, "etcd", "m%d.log" % i), "a") as logf:
                self.procs.append(subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                   start_new_session=True))

    def await_ready(self, timeout=60):
        deadline = time.time() + timeout
        for url in self.urls:
            while True:
                try:
                    put(url, "ready", b"1")
                    break
                except Exception:
                    if time.time() > deadline:
                        raise SystemExit("etcd member %s did not take a put within %d s" % (url, timeout))
                    time.sleep(0.2)

    def cpu_seconds(self):
        return rp.process_cpu_seconds(p.pid for p in self.procs)

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def b64(data):
    return base64.b64encode(data).decode()


def put_body(key, value):
    return json.dumps({"key": b64(key.encode()), "value": b64(value)}).encode()


def range_body(key, serializable):
    body = {"key": b64(key.encode())}
    if serializable:
        body["serializable"] = True
    return json.dumps(body).encode()


def put(url, key, value):
    req = urllib.request.Request(url + "/v3/kv/put", data=put_body(key, value), method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        if r.status != 200:
            raise IOError("etcd put answered %d" % r.status)


def prefill_etcd(urls, keys):
    def one(i):
        for _ in range(5):
            try:
                put(urls[i % len(urls)], "key%07d" % i, VALUE)
                return
            except Exception:
                time.sleep(0.05)
        raise SystemExit("prefill: key %d not stored in etcd" % i)
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(one, range(keys)))


def targets(system, op, urls, rate, seconds, keys, tmp, serializable):
    """A vegeta targets file: rate*seconds requests over the nodes in turn, keys spread over the prefilled ones."""
    path = os.path.join(tmp, "%s-%s-%d.targets" % (system, op, rate))
    if os.path.exists(path):
        return path
    count = rate * seconds
    step = max(1, keys // count)
    value_file = os.path.join(tmp, "value")
    with open(value_file, "wb") as f:
        f.write(VALUE)
    bodies = os.path.join(tmp, "bodies-%s-%s" % (system, op))
    os.makedirs(bodies, exist_ok=True)
    requests = []
    for i in range(count):
        url = urls[i % len(urls)]
        key = "key%07d" % ((i * step) % keys)
        if system == "ringkv":
            requests.append(("GET" if op == "get" else "PUT", "%s/v0/entity?id=%s" % (url, key),
                             None if op == "get" else value_file))
        else:
            body = os.path.join(bodies, key)
            if not os.path.exists(body):
                with open(body, "wb") as f:
                    f.write(range_body(key, serializable) if op == "get" else put_body(key, VALUE))
            requests.append(("POST", "%s/v3/kv/%s" % (url, "range" if op == "get" else "put"), body))
    vegeta.write_targets(path, requests)
    return path


def run_one(vegeta_bin, system, op, urls, cpu_seconds, rate, args, tmp):
    path = targets(system, op, urls, rate, args.duration, args.keys, tmp, args.etcd_reads == "serializable")
    errors = collections.Counter()
    cpu_before = cpu_seconds()
    rows = vegeta.attack(vegeta_bin, path, rate, args.duration, args.load_cpus, errors)
    cpu = cpu_seconds() - cpu_before
    ok = {200, 404} if (system, op) == ("ringkv", "get") else ({201} if system == "ringkv" else {200})
    lat = sorted(ms for _, _, ms in rows)
    failed = collections.Counter(str(code) for _, code, _ in rows if code not in ok)
    return {"system": system, "op": op, "rate": rate, "requests": len(rows), "failed": sum(failed.values()),
            "failed_statuses": dict(failed), "errors": dict(errors.most_common(5)),
            "p50_ms": vegeta.percentile(lat, 0.5), "p99_ms": vegeta.percentile(lat, 0.99),
            "max_ms": lat[-1] if lat else float("nan"),
            "cpu_us_per_request": cpu * 1e6 / len(rows) if rows else float("nan")}


def interval(values):
    values = [v for v in values if v == v]
    if not values:
        return float("nan"), float("nan")
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, rp.t95(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5


def summarise(doc):
    runs = doc["runs"]
    lines = ["%d rounds of %d s per run; etcd reads %s; keys %d" % (doc["rounds"], doc["duration"], doc["etcd_reads"],
                                                                     doc["keys"]),
             "",
             "%-4s %6s | %-22s %-22s | %-22s %-22s | %s" % ("op", "rate", "ringkv p99 ms", "etcd p99 ms",
                                                          "ringkv CPU us/req", "etcd CPU us/req", "failed ringkv/etcd")]
    ratio_lines = ["", "Per-round ratios ringkv / etcd (mean +- 95 % CI):"]
    for op in OPS:
        for rate in doc["rates"]:
            def of(system, field):
                return [r[field] for r in sorted(runs, key=lambda r: r["round"])
                        if r["system"] == system and r["op"] == op and r["rate"] == rate]
            cells = []
            for field in ("p99_ms", "cpu_us_per_request"):
                for system in ("ringkv", "etcd"):
                    mean, half = interval(of(system, field))
                    cells.append("%8.2f +- %-10.2f" % (mean, half))
            failed = "%d / %d" % (sum(of("ringkv", "failed")), sum(of("etcd", "failed")))
            lines.append("%-4s %6d | %s %s | %s %s | %s" % (op, rate, cells[0], cells[1], cells[2], cells[3], failed))
            for field, name in (("p99_ms", "p99"), ("cpu_us_per_request", "CPU per request")):
                pairs = [a / b for a, b in zip(of("ringkv", field), of("etcd", field)) if b and b == b and a == a]
                mean, half = interval(pairs)
                ratio_lines.append("  %-4s %6d/s %-16s %.2fx +- %.2f" % (op, rate, name, mean, half))
    return "\n".join(lines + ratio_lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    results_file.add_run_arguments(ap)
    ap.add_argument("--rates", default="500,2000,5000", help="requests per second per run, comma-separated "
                                                             "(default 500,2000,5000)")
    ap.add_argument("--keys", type=int, default=10000, help="keys prefilled in each system (default 10000)")
    ap.add_argument("--etcd-reads", choices=("serializable", "linearizable"), default="serializable",
                    help="etcd's range: read from the member's own state (serializable, the default) or "
                         "through the leader (linearizable)")
    ap.add_argument("--node-args", default="", help="extra flags for every `ringkv serve`")
    ap.add_argument("--summarise", metavar="JSON", help="only rewrite the .txt beside an earlier results file")
    args = ap.parse_args()
    if args.summarise:
        results_file.rewrite_summary(args.summarise, summarise)
        return
    try:
        args.rate_list = [int(r) for r in args.rates.split(",")]
    except ValueError:
        ap.error("--rates: comma-separated requests per second, e.g. 500,2000")
    if args.rounds < 1 or args.duration < 1 or args.keys < 1 or any(r < 1 for r in args.rate_list):
        ap.error("--rounds, --duration, --keys and every rate must be positive")
    vegeta_bin = vegeta.ensure_vegeta()
    run, rev, dirty = results_file.run_id()
    command = "./ringkv bench --etcd " + " ".join(sys.argv[1:])
    runs = []
    with tempfile.TemporaryDirectory(prefix="ringkv-etcd-bench-") as tmp:
        cluster = rp.Cluster("ringkv", 3, ["--warm-up", "PT0S"] + args.node_args.split(), tmp, args.server_cpus)
        etcd = Etcd(tmp, args.server_cpus)
        try:
            cluster.await_ready()
            etcd.await_ready()
            log("both ready; prefilling %d keys in each" % args.keys)
            rp.prefill(cluster.urls[0], args.keys, VALUE)
            prefill_etcd(etcd.urls, args.keys)
            systems = {"ringkv": (cluster.urls, cluster.cpu_seconds), "etcd": (etcd.urls, etcd.cpu_seconds)}
            for rnd in range(args.rounds):
                for op in OPS:
                    for rate in args.rate_list:
                        # Alternate which system goes first, so neither always runs on a machine the other just warmed.
                        order = ("ringkv", "etcd") if (rnd + rate) % 2 == 0 else ("etcd", "ringkv")
                        for system in order:
                            urls, cpu = systems[system]
                            if args.warmup:
                                warm = dict(vars(args), duration=args.warmup)
                                run_one(vegeta_bin, system, op, urls, cpu, rate, argparse.Namespace(**warm), tmp)
                            result = run_one(vegeta_bin, system, op, urls, cpu, rate, args, tmp)
                            result["round"] = rnd
                            runs.append(result)
                            log("round %d %s %s %d/s: p99 %.2f ms, %.0f us CPU/request, %d failed" % (
                                rnd, system, op, rate, result["p99_ms"], result["cpu_us_per_request"], result["failed"]))
        finally:
            cluster.stop()
            etcd.stop()
    etcd_version = subprocess.run(["etcd", "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    meta = {"command": command, "run_id": run, "revision": rev, "dirty": dirty, "loadavg": results_file.loadavg(),
            "etcd": etcd_version[0] if etcd_version else "unknown", "server_cpus": args.server_cpus,
            "load_cpus": args.load_cpus}
    doc = {"meta": meta, "command": command, "rounds": args.rounds, "duration": args.duration, "warmup": args.warmup,
           "rates": args.rate_list, "keys": args.keys, "etcd_reads": args.etcd_reads, "runs": runs}
    base = results_file.write(args.out_dir, "etcd-compare", meta, doc, summarise(doc))
    log("wrote %s.json and .txt" % base)


if __name__ == "__main__":
    main()
