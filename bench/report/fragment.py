#!/usr/bin/env python3
"""Turns one load tool's raw output into a JSON fragment of the results file.

  fragment.py wrk    ... LOG...   wrk logs carrying the BENCH_WRK_JSON line of bench/lua/common.lua
  fragment.py vegeta ... CSV|-    `vegeta encode --to csv` output
  fragment.py h2load ... LOG      h2load's text report
  fragment.py skip   ... --reason a scenario that could not run, and why
  fragment.py profile ... --jfr F SUMMARY   a JFR recording and its text summary

Latencies are reported in milliseconds. Standard library only (runs without the venv).
"""
import argparse
import csv
import json
import re
import sys

ERROR_URL = re.compile(r'^[A-Z]+ "[^"]*": ')  # Go's `Get "http://...": ` prefix of client errors
NO_TARGETS = "no targets to attack"  # vegeta's error once a lazy targets file is exhausted
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9))


def percentile(sorted_values, pct):
    """Nearest-rank percentile of an ascending list (the value below which pct% fall)."""
    if not sorted_values:
        return 0.0
    rank = max(1, int(-(-pct * len(sorted_values) // 100)))  # ceil without floats drifting
    return sorted_values[min(rank, len(sorted_values)) - 1]


def read_wrk(path):
    with open(path) as f:
        for line in f:
            if line.startswith("BENCH_WRK_JSON "):
                return json.loads(line[len("BENCH_WRK_JSON "):])
    raise SystemExit("no BENCH_WRK_JSON line in %s (did wrk run the bench Lua script?)" % path)


def wrk_fragment(a):
    parts = [read_wrk(p) for p in a.inputs]
    requests = sum(p["requests"] for p in parts)
    rps = sum(p["requests"] / (p["duration_us"] / 1e6) for p in parts if p["duration_us"] > 0)
    # Several wrk processes (one per node) ran side by side: the request-weighted mean of
    # their percentiles is an approximation, the maximum is exact.
    lat = {}
    for name, _ in PERCENTILES + (("mean", 0),):
        lat[name] = sum(p["latency_us"][name] * p["requests"] for p in parts) / max(requests, 1) / 1000
    lat["max"] = max(p["latency_us"]["max"] for p in parts) / 1000
    errors = {k: sum(p["errors"][k] for p in parts) for k in parts[0]["errors"]}
    return {
        "kind": "closed", "tool": "wrk", "connections": a.connections,
        "processes": len(parts), "requests": requests,
        "duration_s": max(p["duration_us"] for p in parts) / 1e6,
        "rps": rps, "bytes": sum(p["bytes"] for p in parts), "latency_ms": lat,
        # wrk counts every status >= 400 as a status error: for GET this includes the
        # expected 404s of missed keys (about 20%).
        "non2xx": errors["status"],
        "socket_errors": errors["connect"] + errors["read"] + errors["write"] + errors["timeout"],
        "errors": errors,
    }


def vegeta_fragment(a):
    expected = {int(c) for c in a.expect.split(",")}
    src = sys.stdin if a.inputs == ["-"] else open(a.inputs[0])
    latencies, codes = [], {}
    first_ts = last_ts = last_end = None
    transport_errors = 0
    error_texts = {}
    # Columns: timestamp(ns), code, latency(ns), bytes_out, bytes_in, error, body, ...
    failed = open(a.failed_out, "w") if a.failed_out else None
    for row in csv.reader(src):
        if row[5] == NO_TARGETS:  # a lazily read targets file ran out: not a request
            continue
        ts, code, latency = int(row[0]), int(row[1]), int(row[2])
        if failed and code not in expected:
            # Columns 9 and 10 are the method and URL: enough to retry a prefill PUT.
            failed.write("%s %s\n%s\n" % (row[9], row[10], "@" + a.body_file + "\n" if a.body_file else ""))
        latencies.append(latency)
        codes[code] = codes.get(code, 0) + 1
        if code == 0:
            transport_errors += 1
        if row[5]:
            text = ERROR_URL.sub("", row[5])
            error_texts[text] = error_texts.get(text, 0) + 1
        first_ts = ts if first_ts is None else min(first_ts, ts)
        last_ts = ts if last_ts is None else max(last_ts, ts)
        last_end = ts + latency if last_end is None else max(last_end, ts + latency)
    if failed:
        failed.close()
    total = len(latencies)
    latencies.sort()
    ok = sum(n for c, n in codes.items() if c in expected)
    sent_span = (last_ts - first_ts) / 1e9 if total > 1 else 0
    lat = {name: percentile(latencies, pct) / 1e6 for name, pct in PERCENTILES}
    lat["max"] = latencies[-1] / 1e6 if latencies else 0
    lat["mean"] = sum(latencies) / total / 1e6 if total else 0
    return {
        "kind": "open", "tool": "vegeta", "percent_of_max": a.percent, "rate_of": a.rate_of,
        "offered_rps": a.rate, "requests": total,
        # Achieved rate: how fast requests actually left (falls short of the offered rate
        # when the generator itself saturates); throughput: expected answers per second.
        "achieved_rps": (total - 1) / sent_span if sent_span > 0 else 0,
        "throughput_rps": ok / ((last_end - first_ts) / 1e9) if total else 0,
        "latency_ms": lat,
        "status_codes": {str(c): n for c, n in sorted(codes.items())},
        "expected_statuses": sorted(expected),
        "error_ratio": (total - ok) / total if total else 0,
        "ratio_503": codes.get(503, 0) / total if total else 0,
        "transport_errors": transport_errors,
        "top_errors": dict(sorted(error_texts.items(), key=lambda kv: -kv[1])[:3]),
    }


def h2load_fragment(a):
    text = open(a.inputs[0]).read()
    m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", text)
    if not m:
        raise SystemExit("cannot read h2load output in " + a.inputs[0])
    req = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed", text)
    codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    t = re.search(r"time for request:\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)", text)
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    return {
        "kind": "h2", "tool": "h2load", "connections": a.connections, "streams": a.streams,
        "rps": float(m.group(3)),
        "requests": int(req.group(1)) if req else None,
        "failed": int(req.group(5)) if req else None,
        "status_classes": dict(zip(["2xx", "3xx", "4xx", "5xx"], map(int, codes.groups()))) if codes else None,
        "latency_ms": {"min": float(t.group(1)) * scale[t.group(2)], "max": float(t.group(3)) * scale[t.group(4)],
                       "mean": float(t.group(5)) * scale[t.group(6)]} if t else None,
    }


def loadavg():
    """The 1-minute load average as the step ends: other work on the machine shows up here."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tool", choices=["wrk", "vegeta", "h2load", "skip", "profile"])
    p.add_argument("--target", required=True, choices=["ringkv", "nginx"])
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--scenario", required=True)
    p.add_argument("--connections", type=int, default=None)
    p.add_argument("--streams", type=int, default=None)
    p.add_argument("--rate", type=int, default=None)
    p.add_argument("--percent", type=int, default=None)
    p.add_argument("--rate-of", default=None, help="<nodes>:<scenario> whose maximum set the rate")
    p.add_argument("--expect", default="200")
    p.add_argument("--reason", default=None)
    p.add_argument("--failed-out", default=None, help="vegeta: write targets of unexpected answers here")
    p.add_argument("--body-file", default=None, help="vegeta: body of the --failed-out targets")
    p.add_argument("--jfr", default=None)
    p.add_argument("--seconds", type=int, default=None)
    p.add_argument("--out", required=True)
    p.add_argument("inputs", nargs="*")
    a = p.parse_intermixed_args()
    if a.tool == "skip":
        frag = {"kind": "skipped", "reason": a.reason}
    elif a.tool == "profile":
        frag = {"kind": "profile", "jfr": a.jfr, "window_s": a.seconds,
                "summary": open(a.inputs[0]).read()}
    else:
        frag = {"wrk": wrk_fragment, "vegeta": vegeta_fragment, "h2load": h2load_fragment}[a.tool](a)
    frag.update(target=a.target, nodes=a.nodes, scenario=a.scenario, loadavg_1m=loadavg())
    with open(a.out, "w") as f:
        json.dump(frag, f, indent=1)


if __name__ == "__main__":
    main()
