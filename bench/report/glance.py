#!/usr/bin/env python3
"""Writes the "at a glance" block at the top of docs/benchmarks.md from committed results files.

bench/results/current.json names, per kind of figure, the results file that holds the current
figures (a path under bench/results, or null while there is none):

  replicated_path  bench/replicated_path.py: 1 node, 3 nodes over h2c: req/s, CPU per request, p99 at a constant rate
  replicated_path_constant_rate  optional: another bench/replicated_path.py run (more rounds of 3n-h2,
                   say) whose constant-rate runs give the p99 rows instead of replicated_path's
  replicated_path_rate_cpu  optional: a bench/replicated_path.py run with --rate 500,5000 whose
                   CPU per request at those rates over its closed loop gives rows of its own (by
                   default the constant-rate file's, else replicated_path's)
  h2_one_node      bench/h2_compare.py: one node's GETs over h2c and HTTP/1.1, /v0/status against nginx
  cold_start       bench/cold_start.py: a new 3-node cluster's first seconds under load
  cold_start_sessions, cold_start_restart  optional: more bench/cold_start.py runs, rows of their
                   own (nodes in a session each; a rolling restart's step, --restart)
  up_start         optional: bench/up_start.py (bench --cold-start --up): `./ringkv up` as users run it,
                   seconds from the launch until every node answers 200 and the idle cluster's CPU after
  http_client      bench/client-bench.sh (read with client_report.py): ours against the JDK's and Jetty's clients
  h2_abuse         optional: bench/h2_abuse.py: one hostile HTTP/2 connection per attack, the node's heap over
                   the idle phase's and other clients' GET p99 over the idle p99
  large_hints      optional: bench/large_hints.py: seconds until a restarted replica holds large values it
                   missed, by hints alone
  etcd_compare     optional: bench/etcd_compare.py (bench --etcd): ringkv's and etcd's p99 at constant
                   rates, in one run

Every number in the block is computed here from those files, with the same interval function the
benchmark scripts use for their own summaries (replicated_path.interval) and, for the client,
client_report.py's own scores and "ahead" rule. The block is the text between BEGIN and END; when
the page has no block yet it is inserted before the page's first "## " section, after the intro.

  python3 bench/report/glance.py [--doc docs/benchmarks.md] [--check]

--check renders without writing and exits 1 when the page's block differs (the page is not
current with the files current.json names). Standard library only.
"""
import argparse
import difflib
import json
import math
import os
import re
import sys

REPORT_DIR = os.path.dirname(os.path.abspath(__file__))
BENCH_DIR = os.path.dirname(REPORT_DIR)
ROOT = os.path.dirname(BENCH_DIR)
# Importing the bench scripts must not leave __pycache__ directories in bench/ on every check.
sys.dont_write_bytecode = True
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, REPORT_DIR)
import client_report  # noqa: E402
from replicated_path import interval  # noqa: E402  (mean and 95 % Student-t half-width over rounds)

BEGIN = "<!-- BEGIN GENERATED: at-a-glance (bench/report/glance.py; do not edit by hand) -->"
END = "<!-- END GENERATED: at-a-glance -->"
KINDS = ("replicated_path", "replicated_path_constant_rate", "replicated_path_rate_cpu", "h2_one_node", "cold_start", "cold_start_sessions",
         "cold_start_restart", "up_start", "http_client", "h2_abuse", "large_hints", "etcd_compare")
OPTIONAL_KINDS = ("replicated_path_constant_rate", "replicated_path_rate_cpu", "cold_start_sessions", "cold_start_restart", "up_start",
                  "http_client", "h2_abuse", "large_hints", "etcd_compare")

# Sections of docs/benchmarks.md that describe each measurement (GitHub's heading anchors).
SECTIONS = {
    "replicated_path": ("the replicated path", "#the-replicated-path-1-node-3-nodes-over-h2c-3-nodes-over-http11"),
    "h2_one_node": ("HTTP/2 on one node", "#http2-on-one-node"),
    "cold_start": ("cold start", "#cold-start"),
    "http_client": ("HTTP client (JMH)", "#http-client-jmh"),
    "h2_abuse": ("one hostile HTTP/2 connection", "#one-hostile-http2-connection"),
    "large_hints": ("large values by hints alone", "#large-values-by-hints-alone"),
    "etcd_compare": ("ringkv beside etcd", "#ringkv-beside-etcd"),
}

# The targets, as the issues and the sections below state them.
PUT_VS_GET = 0.8         # issue 16: one node's PUT maximum at least 0.8x its GET maximum
CPU_VS_ONE_NODE = 3.0    # issue 16: a replicated request at most 3x the CPU of a one-node request
P99_RATE = 5000          # issue 16: p99 under P99_LIMIT_MS at this constant rate, 3 nodes over h2c
P99_LIMIT_MS = 5.0
H2C_VS_H1 = 1.0          # issue 16: GETs over h2c at least as many as over HTTP/1.1
STATUS_VS_NGINX = 0.7    # issue 16: /v0/status over h2c at least 0.7x nginx's HTTP/2
COLD_P99_LIMIT_MS = 10.0  # issue 19: a fresh cluster's p99 under 10 ms, and no 503
ABUSE_HEAP_MIB = 64      # issue 32: one hostile HTTP/2 connection costs the node under 64 MB of heap
ABUSE_P99_RATIO = 2.0    # issue 32: and leaves other clients' p99 within 2x the idle p99
UP_READY_S = 5.0         # issue 34: every node of `./ringkv up` answers 200 within 5 s of the launch
UP_IDLE_PCT = 20.0       # issue 34: and the new cluster then idles under 20 % of a core
LARGE_HINTS_S = 60       # issue 32: large values missed while down are on the replica within 60 s of its restart
# Issue 34: a request at a constant rate costs at most this many times its closed-loop CPU (3 nodes, same round).
RATE_CPU_OVER_CLOSED = {5000: 1.5, 500: 3.0}
ETCD_GET_RATE = 5000     # issue 34: ringkv's GET p99 at this rate within ETCD_GET_P99_RATIO x etcd's
ETCD_GET_P99_RATIO = 2.0  # ... and its PUT p99 below etcd's at every rate etcd sustains (no failed request)

MET, MET_ON_MEAN, NOT_MET = "met", "met on the mean", "not met"


class Figure:
    """A mean and the half-width of its 95 % interval (nan when the file has one round only)."""

    def __init__(self, mean, half):
        self.mean, self.half = mean, half

    @classmethod
    def over(cls, values):
        return cls(*interval(list(values)))

    # Without an interval, lo and hi are nan: every comparison with them is false, so a figure
    # without an interval is never "clear" of a target, at best met on the mean.
    @property
    def lo(self):
        return self.mean - self.half

    @property
    def hi(self):
        return self.mean + self.half


def at_least(a, b, k):
    """Target a >= k * b: met when a's lower end reaches k times b's upper end."""
    if a.lo >= k * b.hi:
        return MET
    return MET_ON_MEAN if a.mean >= k * b.mean else NOT_MET


def at_most(a, b, k):
    """Target a <= k * b: met when a's upper end stays within k times b's lower end."""
    if a.hi <= k * b.lo:
        return MET
    return MET_ON_MEAN if a.mean <= k * b.mean else NOT_MET


def below(a, limit):
    """Target a < limit (strictly)."""
    if a.hi < limit:
        return MET
    return MET_ON_MEAN if a.mean < limit else NOT_MET


def weakest(*verdicts):
    """The least of several verdicts on one target (met > met on the mean > not met)."""
    order = (NOT_MET, MET_ON_MEAN, MET)
    return min(verdicts, key=order.index)


def none_of(a):
    """Target a == 0 (a share that must stay at zero, such as 503s)."""
    if a.hi <= 0:
        return MET
    return MET_ON_MEAN if a.mean <= 0 else NOT_MET


def fmt(f, digits=0, unit=""):
    half = "?" if math.isnan(f.half) else f"{f.half:,.{digits}f}"
    return f"{f.mean:,.{digits}f} ± {half}{unit}"


def verdict(target, result):
    return f"{target}: **{result}**" if result == MET else f"{target}: {result}"


def read_json(path):
    with open(path) as f:
        return json.load(f)


def load_current(current_path):
    """{kind: absolute path or None}; the paths in current.json are relative to its directory."""
    named = read_json(current_path)
    unknown = sorted(set(named) - set(KINDS))
    if unknown:
        raise SystemExit(f"{current_path}: unknown kinds {', '.join(unknown)} (known: {', '.join(KINDS)})")
    base = os.path.dirname(os.path.abspath(current_path))
    files = {}
    for kind in KINDS:
        name = named.get(kind)
        if name is None:
            if kind not in OPTIONAL_KINDS:
                raise SystemExit(f"{current_path}: {kind} names no results file")
            files[kind] = None
            continue
        path = os.path.join(base, name)
        if not os.path.exists(path):
            raise SystemExit(f"{current_path}: {kind}: {path} does not exist")
        files[kind] = path
    return files


class Block:
    """Collects the table rows and the facts the closing lines need."""

    def __init__(self, doc_dir):
        self.doc_dir, self.rows, self.commands, self.cpus, self.cores = doc_dir, [], [], set(), None

    def link(self, path):
        name = os.path.basename(path)
        stem = re.sub(r"(\.meta)?\.json$", "", name)
        return f"[{stem}]({os.path.relpath(path, self.doc_dir)})"

    def row(self, what, figure, against, target, path):
        self.rows.append(f"| {what} | {figure} | {against} | {target} | {self.link(path) if path else '—'} |")

    def note_run(self, meta):
        if meta.get("command") and meta["command"] not in self.commands:
            self.commands.append(meta["command"])
        for key in ("server_cpus", "load_cpus"):
            for part in str(meta.get(key, "")).split(","):
                if "-" in part:
                    a, b = part.split("-", 1)
                    self.cpus.update(range(int(a), int(b) + 1))
                elif part.strip():
                    self.cpus.add(int(part))


def replicated_rows(block, path, rate_path=None):
    """rate_path: another replicated-path run whose constant-rate runs give the p99 rows, or None."""
    doc = read_json(path)
    meta, runs = doc["meta"], doc["runs"]
    block.note_run(meta)

    def fig(config, scenario, field):
        values = [r[field] for r in runs if r["config"] == config and r["scenario"] == scenario]
        if not values:
            raise SystemExit(f"{path}: no {config} {scenario} runs")
        return Figure.over(values)

    one = {s: (fig("1node", s, "rps"), fig("1node", s, "cpu_us_per_request")) for s in ("put", "get")}
    three = {s: (fig("3n-h2", s, "rps"), fig("3n-h2", s, "cpu_us_per_request")) for s in ("put", "get")}
    put_rps, get_rps = one["put"][0], one["get"][0]
    block.row("1 node, PUT: req/s · server CPU µs/request",
              f"{fmt(put_rps)} · {fmt(one['put'][1], 1)}",
              f"its own GETs: PUT {put_rps.mean / get_rps.mean:.2f}× their req/s",
              verdict(f"PUT ≥ {PUT_VS_GET}× GET (16)", at_least(put_rps, get_rps, PUT_VS_GET)), path)
    block.row("1 node, GET: req/s · server CPU µs/request",
              f"{fmt(get_rps)} · {fmt(one['get'][1], 1)}", "—", "—", path)
    for s in ("put", "get"):
        rps, cpu = three[s]
        block.row(f"3 nodes, h2c between nodes, {s.upper()}: req/s · CPU µs/request (all nodes)",
                  f"{fmt(rps)} · {fmt(cpu, 1)}",
                  f"1 node: {cpu.mean / one[s][1].mean:.2f}× the CPU per request",
                  verdict(f"CPU ≤ {CPU_VS_ONE_NODE:g}× 1 node (16)", at_most(cpu, one[s][1], CPU_VS_ONE_NODE)), path)
    rate_doc = doc
    if rate_path:
        rate_doc = read_json(rate_path)
        block.note_run(rate_doc["meta"])
    else:
        rate_path = path
    fixed = rate_doc.get("constant_rate_runs", [])
    rates = rate_doc["meta"].get("constant_rates") or []
    for s in ("put", "get"):
        # Runs from before rates were a list carry no "rate": they had the file's one rate.
        p99 = [r["p99_ms"] for r in fixed
               if r["config"] == "3n-h2" and r["scenario"] == s and r.get("rate", rates[0] if rates else None) == P99_RATE]
        if not p99:
            block.row(f"3 nodes, h2c, p99 at {P99_RATE:,} {s.upper()}/s", "not in this file", "—", "—", rate_path)
            continue
        f = Figure.over(p99)
        block.row(f"3 nodes, h2c, p99 at a constant {P99_RATE:,} {s.upper()}/s (open loop)", fmt(f, 2, " ms"), "—",
                  verdict(f"< {P99_LIMIT_MS:g} ms (16)", below(f, P99_LIMIT_MS)), rate_path)
    return meta


def rate_cpu_rows(block, path):
    """Issue 34's CPU per request at a constant rate over the same round's closed loop, 3 nodes over
    h2c, for each rate of RATE_CPU_OVER_CLOSED the file has (none: no row), beside nginx's own
    factor when the run measured it."""
    doc = read_json(path)
    block.note_run(doc["meta"])
    closed = {(r["scenario"], r["round"]): r["cpu_us_per_request"] for r in doc["runs"] if r["config"] == "3n-h2"}
    # The same factor for nginx's fixed answer, when the run had it: what this machine charges any
    # server for a request that arrives alone.
    nginx_closed = {r["round"]: r["cpu_us_per_request"] for r in doc["runs"] if r["config"] == "nginx"}
    floor = {}
    for rate in RATE_CPU_OVER_CLOSED:
        factors = [r["cpu_us_per_request"] / nginx_closed[r["round"]] for r in doc.get("constant_rate_runs", [])
                   if r["config"] == "nginx" and r.get("rate") == rate and nginx_closed.get(r["round"])]
        if factors:
            floor[rate] = Figure.over(factors)
    for rate, limit in sorted(RATE_CPU_OVER_CLOSED.items()):
        for s in ("put", "get"):
            pairs = [(r["cpu_us_per_request"], closed[(s, r["round"])]) for r in doc.get("constant_rate_runs", [])
                     if r["config"] == "3n-h2" and r["scenario"] == s and r.get("rate") == rate
                     and r.get("cpu_us_per_request") and closed.get((s, r["round"]))]
            if not pairs:
                continue
            ratio = Figure.over(at_rate / loop for at_rate, loop in pairs)
            against = f"{Figure.over(a for a, _ in pairs).mean:,.0f} against {Figure.over(c for _, c in pairs).mean:,.0f} µs"
            if floor.get(rate):
                against += f"; nginx's fixed answer, same run: {floor[rate].mean:.2f}× ± {floor[rate].half:.2f}"
            block.row(f"3 nodes, h2c, {s.upper()} at a constant {rate:,}/s: CPU µs/request over the same round's "
                      f"closed loop", f"{ratio.mean:.2f}× ± {ratio.half:.2f}", against,
                      verdict(f"≤ {limit:g}× (34)", at_most(ratio, Figure(1.0, 0.0), limit)), path)


def etcd_rows(block, path):
    """Issue 34's comparison with etcd, same run, as per-round ratios of the p99s (a round's two runs
    share the machine's state of the moment): GET p99 at ETCD_GET_RATE within ETCD_GET_P99_RATIO x
    etcd's; PUT p99 below etcd's at each rate where etcd failed no request."""
    doc = read_json(path)
    meta, runs = doc["meta"], doc["runs"]
    block.note_run(meta)

    def pick(system, op, rate):
        return {r["round"]: r for r in runs if r["system"] == system and r["op"] == op and r["rate"] == rate}

    def compare(op, rate, limit, target):
        ours, theirs = pick("ringkv", op, rate), pick("etcd", op, rate)
        rounds = sorted(set(ours) & set(theirs))
        if not rounds:
            return
        ratio = Figure.over(ours[r]["p99_ms"] / theirs[r]["p99_ms"] for r in rounds)
        failed = [sum(side[r]["failed"] for r in rounds) for side in (ours, theirs)]
        figure = Figure.over(ours[r]["p99_ms"] for r in rounds)
        against = Figure.over(theirs[r]["p99_ms"] for r in rounds)
        if failed[0]:
            result = f"{target}: not met, requests failed"
        elif op == "put" and failed[1]:
            result = f"{target}: etcd did not sustain the rate"
        else:
            result = verdict(target, at_most(ratio, Figure(1.0, 0.0), limit))
        block.row(f"3 nodes beside etcd's 3 members, {op.upper()} p99 at a constant {rate:,}/s (requests failed)",
                  f"{fmt(figure, 2, ' ms')} ({failed[0]})",
                  f"etcd: {fmt(against, 2, ' ms')} ({failed[1]}); per round {ratio.mean:.2f}× ± {ratio.half:.2f}",
                  result, path)

    compare("get", ETCD_GET_RATE, ETCD_GET_P99_RATIO, f"≤ {ETCD_GET_P99_RATIO:g}× etcd's (34)")
    for rate in sorted({r["rate"] for r in runs if r["op"] == "put"}):
        compare("put", rate, 1.0, "below etcd's (34)")


def h2_rows(block, path):
    doc = read_json(path)
    block.note_run(doc["meta"])

    def fig(scenario):
        values = [r["rps"] for r in doc["runs"] if r["scenario"] == scenario]
        if not values:
            raise SystemExit(f"{path}: no {scenario} runs")
        return Figure.over(values)

    h2c, h1, status, nginx = fig("get-h2c"), fig("get-h1"), fig("status-h2c"), fig("nginx-h2c")
    block.row("1 node, GET over h2c: req/s", fmt(h2c),
              f"the same GETs over HTTP/1.1: {fmt(h1)} (h2c {h2c.mean / h1.mean:.2f}×)",
              verdict(f"≥ {H2C_VS_H1:g}× HTTP/1.1 (16)", at_least(h2c, h1, H2C_VS_H1)), path)
    block.row("1 node, `/v0/status` over h2c: req/s", fmt(status),
              f"nginx, a fixed answer as long, over h2c: {fmt(nginx)} (ours {status.mean / nginx.mean:.2f}×)",
              verdict(f"≥ {STATUS_VS_NGINX:g}× nginx (16)", at_least(status, nginx, STATUS_VS_NGINX)), path)


def cold_rows(block, path):
    doc = read_json(path)
    meta = doc["meta"]
    block.note_run(meta)
    runs = [r for r in doc["runs"] if r["config"] == "default"]
    if not runs:
        raise SystemExit(f"{path}: no runs of the default configuration")
    cold = [r for r in doc["runs"] if r["config"] == "cold"]
    # The code before a change, interleaved in the same run (--baseline, configuration default@baseline).
    before = [r for r in doc["runs"] if r["config"] == "default@baseline"]
    before_rev = (meta.get("baseline") or {}).get("git_rev", "?")
    steady = [r["steady"] for r in runs if r.get("steady")]
    secs, rate = meta["duration_s"], meta["rate"]
    session = "in one session, as `./ringkv up` starts them" if meta.get("shared_session") else "a session each"
    if meta.get("restart_after_s"):
        what = f"rolling restart, 1 of {meta['nodes']} nodes restarted beside warm ones, {session}"
    else:
        what = f"cold start, {meta['nodes']} new nodes {session}"
    shed = lambda rs: Figure.over(100.0 * r["status_503"] / r["requests"] for r in rs)

    ready = Figure.over(r["ready_s"] for r in runs)
    # Files from before the warm-up rule: every node warmed up. Since: only a node restarted beside serving peers.
    how = "AOT cache + warm-up" if meta.get("restart_after_s") or not meta.get("warm_up_rule") \
        else "AOT cache, no warm-up: no serving peer"
    ready_against = []
    if cold:
        ready_against.append(f"a cold JVM (neither): {fmt(Figure.over(r['ready_s'] for r in cold), 1, ' s')}")
    if before:
        ready_against.append(f"the code before ({before_rev}, same run): "
                             f"{fmt(Figure.over(r['ready_s'] for r in before), 1, ' s')}")
    block.row(f"{what} ({how}): s until ready", fmt(ready, 1, " s"), "; ".join(ready_against) or "—", "—", path)
    later = f"the same nodes {meta['steady_after_s'] + secs} s after the load began"
    first = f"{what}: first {secs} s at {rate:,} PUT/s"
    f503 = shed(r["overall"] for r in runs)
    block.row(f"{first}: `503` share", fmt(f503, 2, " %"),
              f"{later}: {fmt(shed(steady), 2, ' %')}" if steady else "—",
              verdict("no `503` (19)", none_of(f503)), path)
    p99 = Figure.over(r["overall"]["p99_ms"] for r in runs)
    p99_first = Figure.over(r["per_second"][0]["p99_ms"] for r in runs)
    against = []
    if steady:
        against.append(f"{later}: {fmt(Figure.over(s['p99_ms'] for s in steady), 1, ' ms')}")
    if cold:
        against.append(f"a cold JVM: {fmt(Figure.over(r['overall']['p99_ms'] for r in cold), 1, ' ms')}")
    if before:
        against.append(f"the code before ({before_rev}, same run): "
                       f"{fmt(Figure.over(r['overall']['p99_ms'] for r in before), 1, ' ms')} · "
                       f"{fmt(Figure.over(r['per_second'][0]['p99_ms'] for r in before), 1, ' ms')}")
    # The target holds "from the first second": the whole span and its first second both.
    block.row(f"{first}: p99 · p99 of the first second", f"{fmt(p99, 1, ' ms')} · {fmt(p99_first, 1, ' ms')}",
              "; ".join(against) or "—",
              verdict(f"< {COLD_P99_LIMIT_MS:g} ms (19)", weakest(below(p99, COLD_P99_LIMIT_MS),
                                                                   below(p99_first, COLD_P99_LIMIT_MS))), path)


def up_rows(block, path):
    doc = read_json(path)
    meta = doc["meta"]
    block.note_run(meta)
    runs = [r for r in doc["runs"] if r["config"] == "up" and "failed" not in r]
    if not runs:
        raise SystemExit(f"{path}: no complete runs of the up configuration")
    failed = sum(1 for r in doc["runs"] if r["config"] == "up" and "failed" in r)
    before = [r for r in doc["runs"] if r["config"] == "up@baseline" and "failed" not in r]
    before_failed = sum(1 for r in doc["runs"] if r["config"] == "up@baseline" and "failed" in r)
    gave_up = f"; {before_failed} more rounds failed" if before_failed else ""
    rev = (meta.get("baseline") or {}).get("git_rev", "?")
    what = f"`./ringkv up`, {meta['nodes']} new nodes, not pinned"
    ready = Figure.over(r["all_ready_s"] for r in runs)
    block.row(f"{what}: s from the launch until every node answers 200", fmt(ready, 1, " s"),
              f"the code before ({rev}, same run): {fmt(Figure.over(r['all_ready_s'] for r in before), 1, ' s')}{gave_up}"
              if before else "—",
              verdict(f"≤ {UP_READY_S:g} s (34)", NOT_MET if failed else below(ready, UP_READY_S)), path)
    # "From then on": each round counts at its busiest idle window.
    busiest = lambda rs: Figure.over(max(w["cpu_pct_of_a_core"] for w in r["idle"]) for r in rs)
    idle = busiest(runs)
    span = meta["idle_window_s"] * meta["idle_windows"]
    block.row(f"{what}: idle CPU of the nodes over the {span} s after ready (the busiest {meta['idle_window_s']} s), "
              f"% of a core", fmt(idle, 1, " %"),
              f"the code before ({rev}, same run): {fmt(busiest(before), 1, ' %')}" if before else "—",
              verdict(f"< {UP_IDLE_PCT:g} % (34)", below(idle, UP_IDLE_PCT)), path)


def client_row(block, path):
    what = "HTTP client (ours): ops/s on each row of the main table"
    against = "the JDK's client and Jetty's"
    target = "ahead of both on every row"
    if path is None:
        title, anchor = SECTIONS["http_client"]
        block.row(what, f"pending: no full run committed yet; see [{title}]({anchor})", against, f"{target}: pending", None)
        return
    try:
        cells, meta = client_report.load(path)
    except client_report.OldFormat as e:
        raise SystemExit(str(e))
    # The client's meta records its options, not a command line: rebuild the call that reproduces them.
    cmd = "bench/client-bench.sh" + (" --quick" if meta.get("quick") else "") + f" --forks {meta.get('forks', 3)}"
    if meta.get("extra_jmh_args"):
        cmd = f"CLIENT_BENCH_JMH_ARGS=\"{meta['extra_jmh_args']}\" " + cmd
    block.commands.append(cmd)
    if meta.get("cores"):
        block.cores = int(meta["cores"])
    c = client_report.counts(cells)
    keys = [k for k in client_report.rows(cells, client_report.MAIN) if client_report.verdict(cells, k) is not None]
    if not keys:
        # A partial run (some clients only) has no row to judge: say so rather than "0 of 0".
        block.row(what, "no main-table row with all three clients in this file", against, f"{target}: pending", path)
        return
    # "On the mean": ours' mean above both other clients' means on every row; the intervals
    # (client_report's "ahead") decide "met".
    on_mean = all(client_report.ops(cells, k, "RING").mean > client_report.ops(cells, k, o).mean
                           for k in keys for o in ("JDK", "JETTY"))
    result = MET if c["ahead"] == c["total"] else MET_ON_MEAN if on_mean else NOT_MET
    timing = sorted({cells[k][client]["timing"] for k in keys for client in client_report.CLIENTS if client in cells[k]},
                    key=str)
    bases = {cells[k][client]["ops"].basis for k in keys for client in client_report.CLIENTS if client in cells[k]}
    method = "; ".join(f"{f} forks × {i} iterations" for f, _, _, i, _ in timing)
    method += (", 95 % Student t over fork means" if bases == {"forks"} else
               f", **some scores from fewer than {client_report.MIN_FORKS} forks: intervals over pooled iterations, too narrow**")
    block.row(what, f"ahead of both on {c['ahead']} of {c['total']} rows, within the noise on {c['overlap']}, "
                    f"behind on {c['behind']} ({method})", against, verdict(target, result), path)


ATTACKS = {"flood": "flood (`WINDOW_UPDATE(0)`s, never reading)",
           "slow-body": "slow body (100 streams, 60 KB of 1 MiB each, then nothing)",
           "made-you-reset": "made-you-reset (a `GET`, then `WINDOW_UPDATE(0)` on it, stream after stream)"}


def h2_abuse_rows(block, path):
    """Per attack: the heap maximum over the same round's idle phase's, and the GET p99 over the
    idle p99, per round, as bench/h2_abuse.py's summary takes them."""
    doc = read_json(path)
    block.note_run(doc["meta"])
    phases = doc["phases"]
    idle = {p["round"]: p for p in phases if p["phase"] == "idle"}
    for attack, what in ATTACKS.items():
        pairs = [(idle[p["round"]], p) for p in phases if p["phase"] == attack and p["round"] in idle]
        if not pairs:
            raise SystemExit(f"{path}: no {attack} phases with an idle phase in their round")
        heap = Figure.over(a["heap_max_mib"] - i["heap_max_mib"] for i, a in pairs)
        ratio = Figure.over(a["p99_ms"] / i["p99_ms"] for i, a in pairs)
        idle_p99 = Figure.over(i["p99_ms"] for i, _ in pairs)
        closed = sum(a["attack"]["closed_by_node"] for _, a in pairs)
        block.row(f"one hostile HTTP/2 connection, {what}: node heap over idle · GET p99 / idle p99",
                  f"{fmt(heap, 0, ' MiB')} · {fmt(ratio, 2, '×')}",
                  f"idle GET p99 {fmt(idle_p99, 2, ' ms')}; the node closed {closed:,} of its connections "
                  f"in {len(pairs)} rounds",
                  # Two targets in one row, a verdict each.
                  verdict(f"heap < {ABUSE_HEAP_MIB} MiB (32)", below(heap, ABUSE_HEAP_MIB)) + " · "
                  + verdict(f"p99 < {ABUSE_P99_RATIO:g}× idle (32)", below(ratio, ABUSE_P99_RATIO)), path)


def large_hints_rows(block, path):
    doc = read_json(path)
    meta, rounds = doc["meta"], doc["rounds"]
    block.note_run(meta)
    what = (f"3 nodes, one down while {meta['values']} values of {meta['value_bytes'] // 1024} KiB and one of "
            f"{meta['large_bytes'] / (1 << 20):g} MiB were written at 2/3: s from its restart until it holds all "
            f"{meta['values'] + 1}, by hints alone")
    done = [r["held_all_s"] for r in rounds if r["held_all_s"] is not None and r.get("values_intact")]
    ready = Figure.over(r["ready_s"] for r in rounds if r["ready_s"] is not None)
    target = f"< {LARGE_HINTS_S} s (32)"
    if len(done) < len(rounds):
        block.row(what, f"not within {meta['timeout_s']} s (or not intact) in {len(rounds) - len(done)} of "
                        f"{len(rounds)} rounds", f"ready after {fmt(ready, 1, ' s')}", verdict(target, NOT_MET), path)
        return
    held = Figure.over(done)
    block.row(what, fmt(held, 1, " s"), f"ready (its warm-up over) after {fmt(ready, 1, ' s')}",
              verdict(target, below(held, LARGE_HINTS_S)), path)


def render(current_path, doc_path):
    files = load_current(current_path)
    block = Block(os.path.dirname(os.path.abspath(doc_path)))
    replicated_rows(block, files["replicated_path"], files["replicated_path_constant_rate"])
    rate_cpu_rows(block, files["replicated_path_rate_cpu"] or files["replicated_path_constant_rate"]
                  or files["replicated_path"])
    h2_rows(block, files["h2_one_node"])
    for kind in ("cold_start", "cold_start_sessions", "cold_start_restart"):
        if files[kind]:
            cold_rows(block, files[kind])
    if files["up_start"]:
        up_rows(block, files["up_start"])
    if files["h2_abuse"]:
        h2_abuse_rows(block, files["h2_abuse"])
    if files["large_hints"]:
        large_hints_rows(block, files["large_hints"])
    if files["etcd_compare"]:
        etcd_rows(block, files["etcd_compare"])
    client_row(block, files["http_client"])
    sections = ", ".join(f"[{t}]({a})" for kind, (t, a) in SECTIONS.items()
                         if kind not in ("h2_abuse", "large_hints", "etcd_compare") or files[kind])
    cores = block.cores or len(block.cpus)
    cpus = sorted(block.cpus)
    lines = [
        "**At a glance.** The current figures with their 95 % intervals (Student t over the rounds of one run), "
        "each computed from the results file in its row. A target is **met** when the interval is clear of it "
        "(for a ratio: the ends of both intervals), met on the mean when only the mean is, else not met. "
        f"How each was measured: {sections}.",
        "",
        "| what was measured | figure (95 % CI) | against what | target (issue): verdict | results file |",
        "|---|---|---|---|---|",
        *block.rows,
        "",
        "To make them again (each results file records the command that wrote it): "
        + "; ".join(f"`{c}`" for c in block.commands)
        + "; then name the new files in `bench/results/current.json` and run `python3 bench/report/glance.py`.",
        "",
        f"The machine: {cores} cores (the runs name CPUs {', '.join(map(str, cpus))} for nodes and load), shared "
        "with other jobs, so ratios within one run are what to compare, not figures across runs.",
    ]
    return "\n".join(lines) + "\n"


def with_block(text, body):
    """The page with its block replaced by body, or inserted before the first "## " section."""
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in text and END in text:
        return re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, count=1, flags=re.S)
    m = re.search(r"^## ", text, flags=re.M)
    if not m:
        return text.rstrip() + "\n\n" + block + "\n"
    return text[:m.start()] + block + "\n\n" + text[m.start():]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    ap.add_argument("--current", default=os.path.join(BENCH_DIR, "results", "current.json"),
                    help="the file naming the current results files (default bench/results/current.json)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when the page's block is not current")
    a = ap.parse_args(argv)
    body = render(a.current, a.doc)
    with open(a.doc) as f:
        text = f.read()
    new = with_block(text, body)
    if a.check:
        if new == text:
            return 0
        print(f"{a.doc}: the at-a-glance block is not what {os.path.relpath(a.current)} renders; "
              f"run python3 bench/report/glance.py", file=sys.stderr)
        sys.stderr.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), "page", "rendered", n=0))
        return 1
    if new != text:
        with open(a.doc, "w") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
