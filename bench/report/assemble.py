#!/usr/bin/env python3
"""Joins the fragments of one benchmark run into its results file (JSON).

Layout of the results (schema "ringkv-bench/1"):
  run_id, git {rev, dirty}, started, finished, machine {...}, tools {...}, config {...}
  baseline: {closed, open[]} of nginx answering a fixed 2-byte 200 (absent with --no-baseline)
  results[]: {nodes, scenario, closed, open[], ratio_to_nginx}
  prefill[], http2[], profiles[]
Figures: requests per second, latencies in milliseconds. Standard library only.
"""
import argparse
import datetime
import glob
import json
import os
import platform

SCHEMA = "ringkv-bench/1"
INT_META = {"range_connections", "request_timeout_s", "range_timeout_s", "quick", "fake_nodes", "duration_s", "warmup_s", "connections", "keys", "value_bytes",
            "range_records", "vegeta_max_workers", "h2load_connections", "h2load_streams", "started_epoch"}


def machine():
    info = {"cores": os.cpu_count(), "kernel": platform.release(), "arch": platform.machine()}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["memory_mb"] = int(line.split()[1]) // 1024
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return info


def parse_meta(pairs):
    meta = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key in INT_META:
            meta[key] = int(value)
        elif value in ("true", "false"):
            meta[key] = value == "true"
        else:
            meta[key] = value
    if "rates_percent" in meta:
        meta["rates_percent"] = [int(r) for r in str(meta["rates_percent"]).split(",") if r]
    return meta


def ratio(value, base):
    return value / base if base else None


def assemble(fragments, meta, tools):
    baseline = None
    results, prefill, http2, profiles = {}, [], [], []
    for frag in fragments:
        kind = frag["kind"]
        if frag["target"] == "nginx":
            baseline = baseline or {"closed": None, "open": []}
            if kind == "closed":
                baseline["closed"] = frag
            elif kind == "open":
                baseline["open"].append(frag)
            continue
        if frag["scenario"] == "prefill":
            prefill.append(frag)
        elif frag["scenario"] == "get-h2":
            http2.append(frag)
        elif kind == "profile":
            profiles.append(frag)
        else:
            key = (frag["nodes"], frag["scenario"])
            entry = results.setdefault(key, {"nodes": key[0], "scenario": key[1], "closed": None, "open": []})
            if kind == "closed":
                entry["closed"] = frag
            else:
                entry["open"].append(frag)

    base_rps = baseline["closed"]["rps"] if baseline and baseline["closed"] else None
    # The baseline's open-loop steps ran at the rates of one ringkv scenario (rate_of):
    # that scenario's latencies get a ratio to nginx's at the same offered rate.
    base_open = {(o["rate_of"], o["percent_of_max"]): o for o in baseline["open"]} if baseline else {}
    for entry in results.values():
        entry["open"].sort(key=lambda o: o["offered_rps"])
        closed = entry["closed"]
        entry["ratio_to_nginx"] = {"rps": ratio(closed["rps"], base_rps) if closed else None}
        for o in entry["open"]:
            b = base_open.get((o["rate_of"], o["percent_of_max"]))
            if b:
                o["latency_ratio_to_nginx"] = {k: ratio(o["latency_ms"][k], b["latency_ms"][k])
                                               for k in ("p50", "p90", "p99", "p999")}

    started = meta.pop("started_epoch", None)
    return {
        "schema": SCHEMA,
        "run_id": meta.pop("run_id", None),
        "git": {"rev": meta.pop("git_rev", None), "dirty": meta.pop("git_dirty", None)},
        "started": datetime.datetime.fromtimestamp(started, datetime.timezone.utc).isoformat() if started else None,
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "tools": tools,
        "config": meta,
        "baseline": baseline,
        "results": sorted(results.values(), key=lambda e: (e["nodes"], e["scenario"])),
        "prefill": prefill,
        "http2": http2,
        "profiles": profiles,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--meta", action="append", default=[], help="key=value")
    p.add_argument("--tools-json", default="{}")
    a = p.parse_args()
    fragments = []
    for path in sorted(glob.glob(os.path.join(a.run_dir, "fragments", "*.json"))):
        with open(path) as f:
            fragments.append(json.load(f))
    doc = assemble(fragments, parse_meta(a.meta), json.loads(a.tools_json))
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
