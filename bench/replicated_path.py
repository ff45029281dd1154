#!/usr/bin/env python3
"""The replicated path, A/B: what a replicated request costs over each inter-node protocol.

Starts, once, a 1-node cluster and one 3-node cluster per inter-node protocol (all nodes pinned
to the server CPU), writes the key space into each, lets each settle (closed-loop load per
scenario until its JIT compiler threads use at most 2 % of its CPU, at most two minutes: three
JVMs sharing one CPU keep compiling for a minute or more after their first load, and that
compilation would otherwise be counted as the cost of a request), then measures them in
interleaved rounds so that the machine's drift hits every configuration alike: per round and configuration, a wrk
warm-up and a measured closed-loop run (PUT, then GET) against the first node, pinned to the
load CPU. For every run it records the requests per second, wrk's latency percentiles, and the
server CPU per request: the CPU time (user + system, from /proc) that all of the configuration's
node processes spent during the run, divided by the requests it answered, and the JIT
compiler threads' share of that CPU.

Writes bench/results/replicated-path-<time>-<rev>.json (every run) and a .txt beside it (mean and
95 % confidence interval per configuration and scenario, and the ratios the issue's targets are
stated in). Run it as `./ringkv bench --replicated-path [options]` (the launcher builds first and
sets JAVA_HOME), or directly once built.
"""
import argparse
import collections
import math
import os
import statistics
import subprocess
import sys
import time

import results_file
import vegeta
# The cluster chores (node start, prefill, settling, CPU from /proc) live in cluster_harness, shared
# with bench/run.sh; the steps that import them from here keep doing so.
from cluster_harness import (BENCH_DIR, CLK_TCK, GROUP_NAME, LUA_DIR, RATIS_THREAD, ROOT, Cluster,  # noqa: F401
                             free_ports, jit_cpu_seconds, prefill, process_cpu_seconds, settle, stat_cpu_ticks,
                             thread_groups, wrk, wrk_all)
from nginx import Nginx

# Two-sided 95 % Student t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(df):
    return T95[max(k for k in T95 if k <= df)] if df >= 1 else float("nan")


def log(msg):
    print("[replicated-path %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class NginxConfig:
    """The `nginx` configuration: one nginx worker answering every GET with a fixed 100-byte body
    over HTTP/1.1, on the server CPU, in place of a cluster. Its CPU per request at a constant rate
    over its closed loop is what a request that arrives alone costs on this machine when the server
    does the least work there is (one wake-up, one read, one write): the floor under the nodes'
    factors, measured in the same run."""

    independent = False
    scenarios = ("get",)  # its answer is a GET's
    prefilled = False  # every path answers
    compiles = False  # no JIT to settle

    def __init__(self, name, tmp, server_cpus):
        self.name = name
        self.server = Nginx(tmp, 100, server_cpus, h2=False)
        self.urls = [self.server.url.rstrip("/")]

    def await_ready(self, timeout=120):
        pass  # Nginx() returns once it answers

    def node_counters(self):
        return {}

    def cpu_seconds(self):
        return process_cpu_seconds(self.server.pids())

    def jit_cpu_seconds(self):
        return 0.0

    def thread_groups(self):
        return thread_groups(self.server.pids())

    def stop(self):
        self.server.stop()


def thread_costs(before, after, requests):
    """Per thread group between two thread_groups() snapshots: CPU us and voluntary switches per
    request; groups with under 1 us and 0.01 switches per request are left out."""
    out = {}
    for group, (ticks, switches) in after.items():
        t0, s0 = before.get(group, (0, 0))
        cpu_us = (ticks - t0) * 1e6 / CLK_TCK / max(requests, 1)
        per_req = (switches - s0) / max(requests, 1)
        if cpu_us >= 1 or per_req >= 0.01:
            out[group] = {"cpu_us": round(cpu_us, 1), "switches": round(per_req, 3)}
    return out


def load(cluster, scenario, seconds, connections, load_cpus, keys):
    """A closed-loop run against the cluster's first node; against every node at once (connections
    // nodes each, one wrk per node) when its nodes are independent (see cluster_harness.wrk_all)."""
    if not cluster.independent:
        return wrk(cluster.urls[0], scenario, seconds, connections, load_cpus, keys)
    each = max(1, connections // len(cluster.urls))
    return wrk_all(cluster.urls, scenario, seconds, each * len(cluster.urls), load_cpus, keys)


def constant_rate(vegeta_bin, url, scenario, rate, seconds, load_cpus, keys, tmp):
    """PUTs or GETs at a constant rate, open loop; the GETs draw keys as get.lua does (about 20 % misses)."""
    targets = os.path.join(tmp, "constant-%s-%s.targets" % (scenario, url.rsplit(":", 1)[1]))
    if not os.path.exists(targets):
        body = os.path.join(tmp, "value")
        with open(body, "wb") as f:
            f.write(b"v" * 100)
        space = keys * 5 // 4 if scenario == "get" else keys
        count = rate * seconds
        step = max(1, space // count)
        vegeta.write_targets(targets, [("PUT" if scenario == "put" else "GET",
                                        "%s/v0/entity?id=key%07d" % (url, (i * step) % space),
                                        body if scenario == "put" else None) for i in range(count)])
    errors = collections.Counter()
    rows = vegeta.attack(vegeta_bin, targets, rate, seconds, load_cpus, errors)
    lat = sorted(ms for _, _, ms in rows)
    ok = (201,) if scenario == "put" else (200, 404)
    failed = collections.Counter(str(code) for _, code, _ in rows if code not in ok)
    # The failed answers' statuses tell a shed request (503) from one that timed out (504) or never
    # got an answer (0).
    return {"requests": len(rows), "non_2xx": sum(failed.values()), "failed_statuses": dict(failed),
            "errors": dict(errors.most_common(5)),
            "p50_ms": vegeta.percentile(lat, 0.5), "p99_ms": vegeta.percentile(lat, 0.99), "max_ms": lat[-1]}


def summarise_constant_rate(runs, rates):
    if not runs:
        return ""
    lines = ["", "At constant rates (vegeta, open loop; issue 16's target: p99 < 5 ms at 5000/s):",
             "%-15s %-4s %6s %20s %10s %22s %s" % ("config", "op", "rate", "p99 ms (95% CI)", "p50 ms",
                                                  "CPU us/req (95% CI)", "failed (not 201; GET: not 200/404)")]
    for c in sorted({r["config"] for r in runs}):
        for s in ("put", "get"):
            for rate in rates:
                # Runs written before rates were a list carry no "rate": they had the one rate.
                rs = [r for r in runs if r["config"] == c and r["scenario"] == s and r.get("rate", rates[0]) == rate]
                if rs:
                    p99 = interval([r["p99_ms"] for r in rs])
                    statuses = collections.Counter()
                    for r in rs:
                        statuses.update(r.get("failed_statuses", {}))  # absent in runs written before it was kept
                    cpu = interval([r["cpu_us_per_request"] for r in rs if "cpu_us_per_request" in r] or [float("nan")])
                    lines.append("%-15s %-4s %6d %9.2f ± %-8.2f %10.2f %11.1f ± %-8.1f %d of %d%s" % (
                        c, s, rate, p99[0], p99[1], statistics.median(r["p50_ms"] for r in rs), cpu[0], cpu[1],
                        sum(r["non_2xx"] for r in rs), sum(r["requests"] for r in rs),
                        " (" + ", ".join("%s: %d" % kv for kv in sorted(statuses.items())) + ")" if statuses else ""))
                    errors = collections.Counter()
                    nodes = collections.Counter()
                    for r in rs:
                        errors.update(r.get("errors", {}))  # absent in runs written before they were kept
                        nodes.update(r.get("nodes", {}))
                    if errors:
                        lines.append("%-15s      no answer: %s" % ("", "; ".join("%s (%d)" % kv for kv in errors.most_common(3))))
                    if nodes:
                        lines.append("%-15s      nodes meanwhile, summed: %s" % ("", ", ".join(
                            "%s %.3g" % kv for kv in sorted(nodes.items()))))
    return "\n".join(lines) + "\n"


def rate_over_closed_loop(runs, fixed_rate_runs, configs, scenarios, rates):
    """Per configuration, scenario and rate: CPU per request at the constant rate over CPU per
    request in the same round's closed loop (issue 34's target at 500/s: at most 3x). One node
    beside three tells how much of the factor the replica path adds and how much a request that
    arrives alone costs anywhere on this machine (its threads sleep between requests); nginx's
    fixed answer, when run, tells the least such a request costs here, and each GET factor is also
    given over nginx's in the same round."""
    lines = ["", "CPU per request at a constant rate over the same round's closed loop (95% CI over rounds):"]
    for c in configs:
        for s in scenarios:
            closed = {r["round"]: r["cpu_us_per_request"] for r in runs if r["config"] == c and r["scenario"] == s}
            for rate in rates:
                ratios = [r["cpu_us_per_request"] / closed[r["round"]] for r in fixed_rate_runs
                          if r["config"] == c and r["scenario"] == s and r.get("rate") == rate
                          and closed.get(r["round"]) and "cpu_us_per_request" in r]
                if ratios:
                    mean, half = interval(ratios)
                    lines.append("  %-15s %-4s at %5d/s: %5.1fx ± %.1f" % (c, s, rate, mean, half))
    if "nginx" in configs and "get" in scenarios:
        floor = factors_by_round(runs, fixed_rate_runs, "nginx", "get")
        for c in configs:
            ours = factors_by_round(runs, fixed_rate_runs, c, "get") if c != "nginx" else {}
            for rate in rates:
                ratios = [ours[k] / floor[k] for k in ours if k[1] == rate and k in floor]
                if ratios:
                    mean, half = interval(ratios)
                    lines.append("  %-15s get at %5d/s: that factor %.2fx ± %.2f nginx's (per round)" % (c, rate, mean, half))
    return lines + [""] if len(lines) > 2 else []


def factors_by_round(runs, fixed_rate_runs, config, scenario):
    """{(round, rate): CPU per request at that constant rate over the same round's closed loop}."""
    closed = {r["round"]: r["cpu_us_per_request"] for r in runs if r["config"] == config and r["scenario"] == scenario}
    return {(r["round"], r["rate"]): r["cpu_us_per_request"] / closed[r["round"]] for r in fixed_rate_runs
            if r["config"] == config and r["scenario"] == scenario and closed.get(r["round"]) and "rate" in r
            and "cpu_us_per_request" in r}


def summarise_threads(runs, fixed_rate_runs, configs, scenarios, rates):
    """Per configuration, scenario and load (closed loop, each constant rate): CPU us and voluntary
    context switches per request by thread group, summed over the nodes, means over the rounds."""
    lines = ["", "Where the nodes' CPU went, per request, by thread group (summed over the nodes; mean over rounds; "
                 "us CPU / voluntary context switches):"]
    for c in configs:
        for s in scenarios:
            for rate in [0] + rates:
                rs = [r for r in (runs if rate == 0 else fixed_rate_runs)
                      if r["config"] == c and r["scenario"] == s and (rate == 0 or r.get("rate") == rate) and "threads" in r]
                if not rs:
                    continue
                groups = collections.defaultdict(lambda: [0.0, 0.0])
                for r in rs:
                    for g, v in r["threads"].items():
                        groups[g][0] += v["cpu_us"] / len(rs)
                        groups[g][1] += v["switches"] / len(rs)
                top = sorted(groups.items(), key=lambda kv: -kv[1][0])
                lines.append("  %s %s %s: all %.0f us / %.2f switches; %s" % (
                    c, s, "closed loop" if rate == 0 else "at %d/s" % rate, sum(v[0] for v in groups.values()),
                    sum(v[1] for v in groups.values()),
                    ", ".join("%s %.0f / %.2f" % (g, v[0], v[1]) for g, v in top[:7])))
    return lines if len(lines) > 1 else []


def interval(values):
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, t95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


def summarise(runs, configs, scenarios):
    lines = []
    by = {}
    for r in runs:
        by.setdefault((r["config"], r["scenario"]), []).append(r)
    lines.append("%-15s %-4s %22s %24s %6s %12s %12s %s" % ("config", "op", "req/s (95% CI)", "server CPU us/req (95% CI)",
                                                      "JIT %", "p50 ms", "p99 ms", "status >= 400 (GET: 404 misses)"))
    stats = {}
    for c in configs:
        for s in scenarios:
            rs = by.get((c, s), [])
            if not rs:
                continue
            rps = interval([r["rps"] for r in rs])
            cpu = interval([r["cpu_us_per_request"] for r in rs])
            stats[(c, s)] = (rps, cpu)
            lines.append("%-15s %-4s %12.0f ± %-8.0f %14.1f ± %-8.1f %6.1f %12.2f %12.2f %d" % (
                c, s, rps[0], rps[1], cpu[0], cpu[1],
                100 * sum(r.get("jit_cpu_s", 0) for r in rs) / max(sum(r["server_cpu_s"] for r in rs), 1e-9),
                statistics.median(r["latency_us"]["p50"] for r in rs) / 1000,
                statistics.median(r["latency_us"]["p99"] for r in rs) / 1000,
                sum(r["non_2xx"] for r in rs)))
            nodes = collections.Counter()
            for r in rs:
                nodes.update(r.get("nodes", {}))  # absent in runs written before it was kept
            if nodes:
                lines.append("%-15s      nodes meanwhile, summed: %s" % ("", ", ".join(
                    "%s %.3g" % kv for kv in sorted(nodes.items()))))
    lines.append("")
    lines.append("Ratios of means (per scenario):")
    for s in scenarios:
        one = stats.get(("1node", s))
        for c in configs:
            if c in ("1node", "3x1node") or c.endswith(BASELINE_SUFFIX) or (c, s) not in stats:
                continue
            rps, cpu = stats[(c, s)]
            if one:
                lines.append("  %s %s: CPU per request %.2fx the 1-node request's" % (c, s, cpu[0] / one[1][0]))
        co = stats.get(("3x1node", s))
        if co:
            if one:
                lines.append("  3x1node %s: CPU per request %.2fx the 1-node request's (three node JVMs sharing the CPU)" % (
                    s, co[1][0] / one[1][0]))
            for c in ("3n-h2", "3n-h1"):
                if (c, s) in stats:
                    lines.append("  %s %s: CPU per request %.2fx the 3x1node request's" % (c, s, stats[(c, s)][1][0] / co[1][0]))
        if ("3n-h2", s) in stats and ("3n-h2-all", s) in stats:
            ours, every = stats[("3n-h2", s)], stats[("3n-h2-all", s)]
            lines.append("  %s: reads asking ack replicas / every replica: throughput %.2fx; CPU per request %.2fx" % (
                s, ours[0][0] / every[0][0], ours[1][0] / every[1][0]))
        if ("3n-h2", s) in stats and ("3n-h1", s) in stats:
            h2, h1 = stats[("3n-h2", s)], stats[("3n-h1", s)]
            lines.append("  %s: 3-node h2 / h1 throughput %.2fx; CPU per request %.2fx" % (
                s, h2[0][0] / h1[0][0], h2[1][0] / h1[1][0]))
    for c in configs:
        if (c, "put") in stats and (c, "get") in stats and c.split("@")[0] == "1node":
            lines.append("  %s: PUT throughput %.2fx its GET throughput (issue 16's target: at least 0.8x)" % (
                c, stats[(c, "put")][0][0] / stats[(c, "get")][0][0]))
    batching = [c for c in ("3n-h2-unbatched", "3n-h2-b2") if c in configs and "3n-h2" in configs]
    if batching:
        lines += ["", "3n-h2 (one batch in flight per peer) against (per-round ratios, mean ± 95 % CI):"]
        for other in batching:
            lines.extend(paired_ratios(by, "3n-h2", other, scenarios))
    if "5n-h2" in configs and "3n-h2" in configs:
        lines += ["", "5 nodes at RF 3 against 3 nodes (per-round ratios, mean ± 95 % CI; issue 33's target: CPU "
                  "per request at most 1.2x):"]
        lines.extend(paired_ratios(by, "5n-h2", "3n-h2", scenarios))
    if "3n-jdk" in configs and "3n-h2" in configs:
        lines += ["", "3n-h2 (the direct transport, h2c between the nodes) against 3n-jdk (the JDK's client, "
                  "HTTP/1.1) (per-round ratios, mean ± 95 % CI; issue 34's target: throughput at least 1.3x, CPU "
                  "per request at most 1/1.3 = 0.77x):"]
        lines.extend(paired_ratios(by, "3n-h2", "3n-jdk", scenarios))
    if "3n-ring" in configs and "3n-h2" in configs:
        lines += ["", "3n-h2 (the direct transport on the nodes' loops) against 3n-ring (ringkv's java.net.http "
                  "client on its own loop, h2c) (per-round ratios, mean ± 95 % CI):"]
        lines.extend(paired_ratios(by, "3n-h2", "3n-ring", scenarios))
    lines.extend(baseline_ratios(by, configs, scenarios))
    return "\n".join(lines)


def paired_ratios(by, ours, other, scenarios):
    """{ours} against {other} within each round both ran in, then the mean and 95 % interval of
    those ratios over the rounds."""
    lines = []
    for s in scenarios:
        now = {r["round"]: r for r in by.get((ours, s), [])}
        before = {r["round"]: r for r in by.get((other, s), [])}
        rounds = sorted(set(now) & set(before))
        if not rounds:
            continue
        rps = interval([now[r]["rps"] / before[r]["rps"] for r in rounds])
        cpu = interval([now[r]["cpu_us_per_request"] / before[r]["cpu_us_per_request"] for r in rounds])
        p99 = interval([now[r]["latency_us"]["p99"] / before[r]["latency_us"]["p99"] for r in rounds])
        lines.append("  %s / %s %s: throughput %.2fx ± %.2f, CPU per request %.2fx ± %.2f, closed-loop p99 %.2fx ± %.2f "
                     "(%d rounds)" % (ours, other, s, rps[0], rps[1], cpu[0], cpu[1], p99[0], p99[1], len(rounds)))
    return lines


def baseline_constant_rate_ratios(fixed_rate_runs, configs, rates):
    """The constant-rate p99 of each configuration against its @baseline twin, per round (both ran
    in it), then the mean and 95 % interval of those ratios."""
    lines = []
    for c in configs:
        base = c + BASELINE_SUFFIX
        if base not in configs:
            continue
        for s in ("put", "get"):
            for rate in rates:
                def by_round(name):
                    return {r["round"]: r for r in fixed_rate_runs
                            if r["config"] == name and r["scenario"] == s and r.get("rate") == rate}
                now, before = by_round(c), by_round(base)
                rounds = sorted(set(now) & set(before))
                if rounds:
                    p99 = interval([now[r]["p99_ms"] / before[r]["p99_ms"] for r in rounds])
                    cpu = interval([now[r]["cpu_us_per_request"] / before[r]["cpu_us_per_request"] for r in rounds])
                    lines.append("  %s / %s %s at %d/s: p99 %.2fx ± %.2f, CPU per request %.2fx ± %.2f (%d rounds)" % (
                        c, base, s, rate, p99[0], p99[1], cpu[0], cpu[1], len(rounds)))
    return ["", "Against the baseline (--baseline checkout, --baseline-jvm-opts) at constant rates (per-round ratios, mean ± 95 % CI):"] + lines if lines else []


def baseline_ratios(by, configs, scenarios):
    """Each configuration against the same one started from the --baseline checkout: the ratio
    within each round (both ran in it, one after the other), then the mean and 95 % confidence
    interval of those ratios over the rounds."""
    lines = []
    for c in configs:
        if not c.endswith(BASELINE_SUFFIX) or c[:-len(BASELINE_SUFFIX)] not in configs:
            continue
        lines.extend(paired_ratios(by, c[:-len(BASELINE_SUFFIX)], c, scenarios))
    return ["", "Against the baseline (--baseline checkout, --baseline-jvm-opts) (per-round ratios, mean ± 95 % CI):"] + lines if lines else []


BASELINE_SUFFIX = "@baseline"


def baseline_checkout(ap, configs, known, path, log, jvm_opts=None):
    """Checks the configuration names (each one of known, optionally with BASELINE_SUFFIX, which
    needs --baseline); with a --baseline path, builds that checkout if it needs it and returns
    {dir, git_rev, git_dirty}, else None."""
    for c in configs:
        if c.split("@")[0] not in known or ("@" in c and not c.endswith(BASELINE_SUFFIX)):
            ap.error("unknown config %r (%s, each optionally with %s)" % (c, ", ".join(known), BASELINE_SUFFIX))
        if c.endswith(BASELINE_SUFFIX) and not path and jvm_opts is None:
            ap.error("%s needs --baseline DIR or --baseline-jvm-opts" % c)
    if not path:
        return None
    root = os.path.abspath(path)
    if not os.access(os.path.join(root, "ringkv"), os.X_OK):
        ap.error("--baseline %s: no ./ringkv there" % path)
    log("building the baseline checkout %s if it needs it" % root)
    subprocess.run([os.path.join(root, "ringkv"), "--help"], stdout=subprocess.DEVNULL, check=True)
    rev, dirty = results_file.checkout(root)
    return {"dir": root, "git_rev": rev, "git_dirty": dirty}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    results_file.add_run_arguments(ap)
    ap.add_argument("--settle-max", type=int, default=120,
                    help="before the rounds, per configuration and scenario: at most this many seconds of load until "
                         "the JIT is calm (0: skip; default 120)")
    ap.add_argument("--settle-step", type=int, default=10, help="seconds per settling run (default 10)")
    ap.add_argument("--settle-jit", type=float, default=0.02,
                    help="settled when the JIT compilers used at most this share of the cluster's CPU in one "
                         "settling run (default 0.02)")
    ap.add_argument("--configs", default="1node,3n-h2,3n-h1",
                    help="from 1node, 3n-h2 (the default transport between the nodes: HTTP/2 on their own loops), "
                         "3n-h1 (ringkv's client over HTTP/1.1), 3x1node (three independent single nodes on the server CPU, "
                         "loaded at once: the cost of sharing the CPU, without replication), 3n-h2-all (3n-h2 whose "
                         "reads ask every replica at once, --read-spare-delay PT0S), 3n-h2-unbatched (3n-h2 sending "
                         "each replica read and write as a request of its own), 3n-h2-b2 (3n-h2 with two batches in "
                         "flight per peer), 5n-h2 (five nodes at replication factor 3), 3n-jdk (the JDK's HttpClient "
                         "between the nodes, over HTTP/1.1), 3n-ring (ringkv's java.net.http client between the "
                         "nodes, h2c); default 1node,3n-h2,3n-h1")
    ap.add_argument("--scenarios", default="put,get", help="from put, get (default: both)")
    ap.add_argument("--keys", type=int, default=20000, help="keys written before the runs (default 20000)")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--rate", default="2500,5000",
                    help="per round, every configuration but 3x1node also gets PUTs and GETs at each of these constant "
                         "rates (comma-separated; vegeta, open loop) for --duration, for their p99 and CPU per request; "
                         "0: skip (default 2500,5000)")
    ap.add_argument("--node-args", default="", help="extra flags for every `ringkv serve`")
    ap.add_argument("--baseline-jvm-opts", metavar="OPTS",
                    help="JVM options (RINGKV_JVM_OPTS) for the nodes of the @baseline configurations only, which run "
                         "from this checkout unless --baseline names another: the same code with and without a JVM "
                         "flag, interleaved")
    ap.add_argument("--baseline", metavar="DIR",
                    help="another checkout (a git worktree of an earlier commit, say): a configuration named with "
                         "the suffix @baseline (e.g. --configs 1node,1node@baseline) runs from DIR's ./ringkv, "
                         "interleaved with the others, and the summary gives per-round ratios against it")
    args = ap.parse_args()
    try:
        args.rates = [int(r) for r in args.rate.split(",") if int(r) > 0]
    except ValueError:
        ap.error("--rate: comma-separated requests per second, e.g. 2500,5000 (0: none)")

    known = {"1node": (1, []), "3n-h2": (3, ["--internode-protocol", "h2"]),
             "3n-h1": (3, ["--internode-protocol", "h1"]), "3x1node": (3, []),
             # Reads ask every replica at once, as before --read-spare-delay: what asking only
             # ack replicas saves, in the same run.
             "3n-h2-all": (3, ["--internode-protocol", "h2", "--read-spare-delay", "PT0S"]),
             # Replica reads and writes one request each, and with two batches in flight per peer:
             # what batching (one in flight, the default) changes, in the same run.
             "3n-h2-unbatched": (3, ["--internode-protocol", "h2", "--internode-batches", "0"]),
             "3n-h2-b2": (3, ["--internode-protocol", "h2", "--internode-batches", "2"]),
             # Five nodes at replication factor 3 (the default for five): each key on three of them,
             # so a request through the first node finds it an owner of 3/5 of the keys (issue 33's
             # target: CPU per request within 1.2x the 3-node cluster's).
             "5n-h2": (5, ["--internode-protocol", "h2", "--replication-factor", "3"]),
             # The JDK's java.net.http client between the nodes (HTTP/1.1, as it cannot speak h2c
             # by prior knowledge): what our client and its HTTP/2 earn on the replica path (issue
             # 34's target: ours at least 1.3x its throughput and 1/1.3 its CPU per request).
             "3n-jdk": (3, ["--internode-client", "JDK"]),
             # Our own java.net.http client between the nodes (h2c, on its own event loop), where
             # the default is the direct transport on the nodes' server loops: what leaving the
             # java.net.http layer and the hop to the client's loop earns.
             "3n-ring": (3, ["--internode-client", "RING"]),
             # No node: nginx's fixed answer (NginxConfig), GETs only.
             "nginx": (0, [])}
    # Three single-node clusters on the server CPU at once: what sharing one CPU between three
    # node JVMs costs a request, without any replication (a baseline for the 3-node figures).
    independent = {"3x1node"}
    configs = args.configs.split(",")
    scenarios = args.scenarios.split(",")
    baseline = baseline_checkout(ap, configs, known, args.baseline, log, args.baseline_jvm_opts)
    if args.baseline_jvm_opts is not None:
        baseline = dict(baseline or {"dir": ROOT, "git_rev": None, "git_dirty": None}, jvm_opts=args.baseline_jvm_opts)
    for s in scenarios:
        if s not in ("put", "get"):
            ap.error("unknown scenario %r (put, get)" % s)
    run_id, rev, dirty = results_file.run_id()
    tmp = subprocess.run(["mktemp", "-d", "/tmp/ringkv-replicated-path.XXXXXX"], capture_output=True, text=True).stdout.strip()
    extra = args.node_args.split()
    clusters = {}
    try:
        for c in configs:
            nodes, flags = known[c.split("@")[0]]
            root = baseline["dir"] if c.endswith(BASELINE_SUFFIX) else ROOT
            env = {"RINGKV_JVM_OPTS": baseline["jvm_opts"]} if c.endswith(BASELINE_SUFFIX) and "jvm_opts" in baseline else None
            if c == "nginx":
                clusters[c] = NginxConfig(c, tmp, args.server_cpus)
                continue
            clusters[c] = Cluster(c, nodes, flags + extra, tmp, args.server_cpus, env=env,
                                  independent=c.split("@")[0] in independent, root=root)
        for c in configs:
            clusters[c].await_ready()
            if not clusters[c].prefilled:
                continue
            targets = clusters[c].urls if clusters[c].independent else clusters[c].urls[:1]
            for url in targets:
                log("%s ready at %s; writing %d keys" % (c, url, args.keys))
                prefill(url, args.keys, b"v" * 100, log=log)
        settling = {}
        if args.settle_max > 0:
            for c in configs:
                for s in scenarios:
                    if clusters[c].compiles and s in clusters[c].scenarios:
                        cluster = clusters[c]
                        settling["%s/%s" % (c, s)] = settle(
                            cluster.pids(), lambda secs: load(cluster, s, secs, args.connections, args.load_cpus, args.keys),
                            args.settle_step, args.settle_max, args.settle_jit, "%s %s" % (c, s), log)
        runs = []
        fixed_rate_runs = []
        vegeta_bin = vegeta.ensure_vegeta() if args.rates else None
        for rnd in range(1, args.rounds + 1):
            for c in configs:
                cluster = clusters[c]
                for s in scenarios:
                    if s not in cluster.scenarios:
                        continue
                    if args.warmup:
                        load(cluster, s, args.warmup, args.connections, args.load_cpus, args.keys)
                    counters_before = cluster.node_counters()
                    before, jit_before = cluster.cpu_seconds(), cluster.jit_cpu_seconds()
                    threads_before = cluster.thread_groups()
                    res = load(cluster, s, args.duration, args.connections, args.load_cpus, args.keys)
                    threads_after = cluster.thread_groups()
                    cpu = cluster.cpu_seconds() - before
                    jit = cluster.jit_cpu_seconds() - jit_before
                    counters_after = cluster.node_counters()
                    # wrk's "status" errors count non-2xx/3xx answers (503 from shedding, 504).
                    answered = res["requests"]
                    run = {"round": rnd, "config": c, "scenario": s, "requests": answered,
                           "rps": answered / (res["duration_us"] / 1e6), "server_cpu_s": cpu,
                           "cpu_us_per_request": cpu * 1e6 / max(answered, 1),
                           "jit_cpu_s": jit, "jit_share": jit / cpu if cpu > 0 else 0.0, "latency_us": res["latency_us"],
                           "non_2xx": res["errors"]["status"], "errors": res["errors"],
                           "threads": thread_costs(threads_before, threads_after, answered),
                           # What the nodes saw meanwhile (stalls, GC, storage calls sent off the loop, refusals).
                           "nodes": {k: round(counters_after[k] - counters_before[k], 3) for k in counters_after
                                     if counters_after[k] != counters_before[k]}}
                    runs.append(run)
                    log("round %d %s %s: %.0f req/s, %.1f us CPU/req (JIT %.1f %%), p99 %.2f ms, non-2xx %d; nodes: %s" % (
                        rnd, c, s, run["rps"], run["cpu_us_per_request"], 100 * run["jit_share"],
                        res["latency_us"]["p99"] / 1000, run["non_2xx"], run["nodes"] or "nothing of note"))
                    # Every configuration whose load enters one node (3x1node's goes to three at once).
                    for rate in ([] if cluster.independent else args.rates):
                        before = cluster.node_counters()
                        cpu_before = cluster.cpu_seconds()
                        threads_before = cluster.thread_groups()
                        fixed = constant_rate(vegeta_bin, cluster.urls[0], s, rate, args.duration, args.load_cpus,
                                              args.keys, tmp)
                        # The nodes' CPU per request at this rate, background work (flushes, compactions) included.
                        fixed["cpu_us_per_request"] = (cluster.cpu_seconds() - cpu_before) * 1e6 / max(fixed["requests"], 1)
                        fixed["threads"] = thread_costs(threads_before, cluster.thread_groups(), fixed["requests"])
                        after = cluster.node_counters()
                        # What the nodes saw meanwhile: their stalls, GC and refusals.
                        fixed["nodes"] = {k: round(after[k] - before[k], 3) for k in after if after[k] != before[k]}
                        fixed.update({"round": rnd, "config": c, "scenario": s, "rate": rate})
                        fixed_rate_runs.append(fixed)
                        log("round %d %s %s at %d/s: p99 %.2f ms (max %.1f), non-2xx %d of %d, %.1f us CPU/req; nodes: %s%s" % (
                            rnd, c, s, rate, fixed["p99_ms"], fixed["max_ms"], fixed["non_2xx"], fixed["requests"],
                            fixed["cpu_us_per_request"],
                            fixed["nodes"] or "nothing of note",
                            "; errors: %s" % fixed["errors"] if fixed["errors"] else ""))
        meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "duration_s": args.duration,
                "warmup_s": args.warmup, "connections": args.connections, "keys": args.keys, "value_bytes": 100,
                "server_cpus": args.server_cpus, "load_cpus": args.load_cpus, "node_args": args.node_args,
                "constant_rates": args.rates, "settle_max_s": args.settle_max, "settle_step_s": args.settle_step,
                "settle_jit_share": args.settle_jit,
                "configs": {c: known[c.split("@")[0]][1] for c in configs}, "baseline": baseline,
                "jvm_opts": os.environ.get("RINGKV_JVM_OPTS", ""),
                "loadavg_at_end": results_file.loadavg(),
                "command": " ".join(["./ringkv", "bench", "--replicated-path"] + sys.argv[1:])}
        base = results_file.write(args.out_dir, "replicated-path", meta,
                                  {"meta": meta, "settling": settling, "runs": runs, "constant_rate_runs": fixed_rate_runs},
                                  summarise(runs, configs, scenarios) + "\n" + summarise_constant_rate(fixed_rate_runs, args.rates)
                                  + "\n".join(baseline_constant_rate_ratios(fixed_rate_runs, configs, args.rates))
                                  + "\n".join(rate_over_closed_loop(runs, fixed_rate_runs, configs, scenarios, args.rates))
                                  + "\n".join(summarise_threads(runs, fixed_rate_runs, configs, scenarios, args.rates)))
        log("results: %s.json and .txt" % os.path.relpath(base, ROOT))
    finally:
        for cluster in clusters.values():
            cluster.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
