#!/usr/bin/env python3
"""Large values by hints alone: how long a restarted replica takes to get large writes it missed.

Issue 32's case and target: 3 nodes, node 3 down, 300 values of 100 KB and one of 15 MiB written
at `replicas=2/3`; node 3 restarted holds all 301 within 60 s of its restart, by hints alone.

Starts three node processes as `./ringkv serve` starts them (default flags, the warm-up
included, plus `--anti-entropy-interval PT24H` so that no anti-entropy round runs; the results
record the nodes' ringkv_anti_entropy_rounds_total), pinned to the server CPUs. Then per round:
node 3 stops (SIGTERM); the round's values go to node 1, one PUT at a time, in key order, each
acknowledged (201) by nodes 1 and 2, the large one in the middle (--large-at) so that the hints
after it must get past it; the hint counters of nodes 1 and 2 are read; node 3 starts again on its
data, and from that moment its own copies of the round's keys are read every 0.5 s (`local=true`
ranges, keysOnly, which neither ask other replicas nor repair anything; nothing reads the keys
through the cluster) until it holds all of them. The time counts from node 3's process start to
the end of the read that found every key; its /v0/status turning 200 (the end of its warm-up) is
recorded beside it. Then one local range with values must be, byte for byte, what was written.
Hint counters of nodes 1 and 2 are read once a second meanwhile.

Writes bench/results/large-hints-<time>-<rev>.json (per round: seconds, ready after, the poll's
progress, the hint counters) and a .txt beside it. Run it as `./ringkv bench --large-hints
[options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import os
import random
import sys
import tempfile
import time
import urllib.error
import urllib.request

import results_file
from replicated_path import Cluster, ROOT, interval

TARGET_S = 60


def log(msg):
    print("[large-hints %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not a number: %r" % text)
        if not value >= 1:  # also refuses NaN
            raise argparse.ArgumentTypeError("%s must be at least 1" % text)
        return value
    return parse


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=positive(int), default=3, help="rounds, each with keys of its own (default 3)")
    ap.add_argument("--values", type=positive(int), default=300, help="ordinary values per round (default 300)")
    ap.add_argument("--value-bytes", type=positive(int), default=100 * 1024, help="their size (default 102400)")
    ap.add_argument("--large-bytes", type=positive(int), default=15 << 20,
                    help="the one large value's size, at most the nodes' --max-body (default 15728640, 15 MiB)")
    ap.add_argument("--large-at", type=int, default=150,
                    help="how many ordinary values are written before the large one (default 150)")
    ap.add_argument("--timeout", type=positive(int), default=180,
                    help="seconds after node 3's restart a round waits for it to hold every key (default 180)")
    ap.add_argument("--target", type=positive(int), default=TARGET_S,
                    help="the catch-up time the verdict is against (default 60, issue 32)")
    ap.add_argument("--node-args", default="",
                    help="extra flags for every `ringkv serve` (--anti-entropy-interval PT24H is added unless set here)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0,1"),
                    help="CPUs the nodes are pinned to (default 0,1: no load generator runs beside them)")
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    results_file.add_summarise_argument(ap)
    return ap


def key(rnd, i):
    return "lh-r%d-%03d" % (rnd, i)


def round_values(rnd, args):
    """[(key, value)] in key order: --values ordinary ones and the large one after --large-at of them."""
    rng = random.Random(rnd)
    sizes = [args.value_bytes] * args.values
    sizes.insert(min(max(args.large_at, 0), args.values), args.large_bytes)
    return [(key(rnd, i), rng.randbytes(size)) for i, size in enumerate(sizes)]


def put(url, k, value):
    req = urllib.request.Request("%s/v0/entity?id=%s&replicas=2/3" % (url, k), data=value, method="PUT")
    with urllib.request.urlopen(req, timeout=30) as r:
        if r.status != 201:
            raise SystemExit("PUT %s answered %d" % (k, r.status))


def local_range(url, rnd, keys_only, timeout=10):
    """node's own records of round rnd (local=true: no other replica asked, nothing repaired)."""
    q = "%s/v0/entities?start=lh-r%d-&end=lh-r%d.&local=true%s" % (url, rnd, rnd, "&keysOnly=true" if keys_only else "")
    with urllib.request.urlopen(q, timeout=timeout) as r:
        return r.read()


def held_keys(url, rnd):
    """How many of round rnd's keys the node holds, or None while it does not answer."""
    try:
        return len(local_range(url, rnd, keys_only=True).splitlines())
    except (urllib.error.URLError, OSError, ValueError):
        return None


def counters(url):
    """The node's hint counters and anti-entropy rounds from /metrics (None when it does not answer)."""
    want = {"ringkv_hints_queued": "queued", "ringkv_hints_stored_total": "stored",
            "ringkv_hints_replayed_total": "replayed", "ringkv_hints_dropped_total": "dropped",
            "ringkv_anti_entropy_rounds_total": "anti_entropy_rounds"}
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=2) as r:
            text = r.read().decode()
    except Exception:
        return None
    sums = {v: 0.0 for v in want.values()}
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        name, value = line.rsplit(" ", 1)
        family = name.split("{", 1)[0]
        if family in want:
            sums[want[family]] += float(value)
    return sums


def ready(url):
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=2) as r:
            return r.status == 200
    except Exception:
        return False


def run_round(cluster, rnd, args):
    values = round_values(rnd, args)
    coordinator, others, third = cluster.urls[0], cluster.urls[:2], cluster.urls[2]
    log("round %d: stopping node 3" % rnd)
    cluster.stop_node(2)
    began = time.monotonic()
    for k, v in values:
        put(coordinator, k, v)
    written_s = time.monotonic() - began
    at_restart = {u: counters(u) for u in others}
    log("round %d: %d values (%.1f MB) written in %.1f s; hints queued on nodes 1, 2: %s; starting node 3" % (
        rnd, len(values), sum(len(v) for _, v in values) / 1e6, written_s,
        ", ".join("%.0f" % (c or {}).get("queued", float("nan")) for c in at_restart.values())))
    start = time.monotonic()
    cluster.start_node(2)
    progress, hint_samples = [], []
    ready_s = held_s = None
    next_sample = start
    while True:
        now = time.monotonic() - start
        if ready_s is None and ready(third):
            ready_s = time.monotonic() - start
        held = held_keys(third, rnd)
        if not progress or progress[-1][1] != held:
            progress.append((round(now, 2), held))
        if time.monotonic() >= next_sample:
            hint_samples.append({"t_s": round(time.monotonic() - start, 2),
                                 "nodes": [counters(u) for u in others]})
            next_sample += 1
        if held == len(values):
            held_s = time.monotonic() - start
            break
        if now > args.timeout:
            break
        time.sleep(0.5)
    while ready_s is None and time.monotonic() - start < args.timeout + 120:
        if ready(third):
            ready_s = time.monotonic() - start
        else:
            time.sleep(0.2)
    intact = None
    if held_s is not None:
        expected = b"".join(k.encode() + b"\n" + v for k, v in values)
        intact = local_range(third, rnd, keys_only=False, timeout=60) == expected
    after = {u: counters(u) for u in cluster.urls}
    res = {"round": rnd, "values": len(values), "bytes": sum(len(v) for _, v in values), "written_s": written_s,
           "held_all_s": held_s, "held_at_end": progress[-1][1] if progress else None, "ready_s": ready_s,
           "values_intact": intact, "progress": progress, "hints_at_restart": list(at_restart.values()),
           "hint_samples": hint_samples, "counters_at_end": list(after.values())}
    log("round %d: node 3 %s; ready after %s s; values intact: %s" % (
        rnd, "held all %d after %.1f s" % (len(values), held_s) if held_s is not None else
        "held %s of %d when the round gave up after %d s" % (res["held_at_end"], len(values), args.timeout),
        "%.1f" % ready_s if ready_s is not None else "-", intact))
    return res


def summarise(doc):
    meta, rounds = doc["meta"], doc["rounds"]
    target = meta["target_s"]
    lines = ["3 nodes, node 3 down; per round %d values of %d bytes and one of %d bytes written at 2/3 through node 1; "
             "node 3 restarted; anti-entropy %s" % (meta["values"], meta["value_bytes"], meta["large_bytes"],
                                                    meta["anti_entropy"]), "",
             "%-6s %22s %16s %14s %22s %16s" % ("round", "all held after (s)", "ready after (s)", "values intact",
                                                 "hints queued at restart", "hints dropped")]
    for r in rounds:
        queued = [c["queued"] for c in r["hints_at_restart"] if c]
        dropped = [c["dropped"] for c in r["counters_at_end"][:2] if c]
        lines.append("%-6d %22s %16s %14s %22s %16s" % (
            r["round"], "%.1f" % r["held_all_s"] if r["held_all_s"] is not None else
            "not (%s of %d)" % (r["held_at_end"], r["values"]),
            "%.1f" % r["ready_s"] if r["ready_s"] is not None else "-", r["values_intact"],
            " + ".join("%.0f" % q for q in queued), "%.0f" % sum(dropped)))
    ae = [c["anti_entropy_rounds"] for r in rounds for c in r["counters_at_end"] if c]
    lines.append("")
    lines.append("anti-entropy rounds run on the nodes by the end: %s" % (max(ae) if ae else "unknown"))
    done = [r["held_all_s"] for r in rounds if r["held_all_s"] is not None]
    if len(done) < len(rounds):
        lines.append("%d of %d rounds did not see node 3 hold every key within %d s: target of %d s missed" % (
            len(rounds) - len(done), len(rounds), meta["timeout_s"], target))
    elif len(done) < 2:
        lines.append("one round: no interval, no verdict (run --rounds 2 or more)")
    else:
        mean, half = interval(done)
        ready_mean, ready_half = interval([r["ready_s"] for r in rounds])
        verdict = ("met, the interval below it" if mean + half < target else
                   "missed, the interval above it" if mean - half >= target else
                   "inconclusive, the interval straddles it")
        lines.append("all held after %.1f ± %.1f s (95 %% CI; ready after %.1f ± %.1f s); worst round %.1f s; "
                     "target %d s: %s" % (mean, half, ready_mean, ready_half, max(done), target, verdict))
    bad = [r["round"] for r in rounds if r["values_intact"] is False]
    if bad:
        lines.append("VALUES DIFFER from what was written in round(s) %s" % ", ".join(map(str, bad)))
    return "\n".join(lines)


def main():
    ap = parser()
    args = ap.parse_args()
    if args.summarise:
        results_file.rewrite_summary(args.summarise, summarise)
        return
    node_args = args.node_args.split()
    if "--anti-entropy-interval" not in node_args:
        node_args += ["--anti-entropy-interval", "PT24H"]
    run_id, rev, dirty = results_file.run_id()
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "values": args.values,
            "value_bytes": args.value_bytes, "large_bytes": args.large_bytes, "large_at": args.large_at,
            "timeout_s": args.timeout, "target_s": args.target, "node_args": node_args,
            "anti_entropy": node_args[node_args.index("--anti-entropy-interval") + 1] + " interval",
            "server_cpus": args.server_cpus, "cores": os.cpu_count(), "loadavg_at_start": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--large-hints"] + sys.argv[1:])}
    rounds = []
    with tempfile.TemporaryDirectory(prefix="ringkv-large-hints.") as tmp:
        cluster = Cluster("c", 3, node_args, tmp, args.server_cpus)
        try:
            cluster.await_ready()
            log("3 nodes ready at %s" % ", ".join(cluster.urls))
            for rnd in range(1, args.rounds + 1):
                rounds.append(run_round(cluster, rnd, args))
        finally:
            cluster.stop()
    meta["loadavg_at_end"] = results_file.loadavg()
    doc = {"meta": meta, "rounds": rounds}
    base = results_file.write(args.out_dir, "large-hints", meta, doc, summarise(doc))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
