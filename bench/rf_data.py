#!/usr/bin/env python3
"""Data per node with a replication factor: what share of the keys and value bytes each node stores.

Issue 33's case and target: a 5-node cluster at replication factor 3 stores 3/5 of the data per
node (within 10 %). Starts five node processes as `./ringkv serve` starts them (plus
`--replication-factor 3 --warm-up PT0S`), pinned to the server CPUs, writes --keys keys of
--value-bytes random bytes each at the default `replicas` (2/3) through the nodes in turn, from a
few threads, then reads each node's own copies (`local=true` ranges, which ask no other node and
repair nothing) until every node's count stays the same for two reads in a row. A node's share is
the keys (and value bytes) it stores over those written; the target is 3/5 ± 10 % of 3/5 for each.
The 3 × keys total is recorded too: every key on exactly its three owners.

Writes bench/results/rf-data-<time>-<rev>.json and a .txt beside it. Run it as
`./ringkv bench --rf-data [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import concurrent.futures
import os
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import results_file
from replicated_path import Cluster, ROOT

TARGET_SHARE = 3 / 5
TOLERANCE = 0.10


def log(msg):
    print("[rf-data %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=20000, help="keys written (default 20000)")
    ap.add_argument("--value-bytes", type=int, default=1024, help="bytes per value (default 1024)")
    ap.add_argument("--nodes", type=int, default=5, help="nodes (default 5)")
    ap.add_argument("--rf", type=int, default=3, help="replication factor (default 3)")
    ap.add_argument("--threads", type=int, default=8, help="writing threads (default 8)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0,1"))
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    results_file.add_summarise_argument(ap)
    return ap


def key(i):
    return "rfd-%07d" % i


def put(url, i, value):
    target = "%s/v0/entity?id=%s" % (url, urllib.parse.quote(key(i)))
    for attempt in range(5):
        req = urllib.request.Request(target, data=value, method="PUT")
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                if r.status == 201:
                    return attempt
        except Exception as e:  # a 504 on a loaded machine: the write is retried, it is idempotent by key
            last = e
        time.sleep(0.2)
    raise SystemExit("PUT %s failed 5 times: %s" % (key(i), last))


def local_share(url):
    """(keys, value bytes) the node stores itself under the bench's prefix."""
    target = url + "/v0/entities?start=rfd-&end=rfd-~&local=true"
    keys = value_bytes = 0
    with urllib.request.urlopen(target, timeout=120) as r:
        body = r.read()
    # One record per chunk, "key\nvalue"; values are random bytes, so split on the known key form.
    pos = 0
    while pos < len(body):
        nl = body.index(b"\n", pos)
        assert body[pos:pos + 4] == b"rfd-", "unexpected record at %d" % pos
        keys += 1
        pos = nl + 1 + VALUE_BYTES
        value_bytes += VALUE_BYTES
    return keys, value_bytes


VALUE_BYTES = 1024


def summarise(doc):
    meta, nodes = doc["meta"], doc["nodes"]
    lines = ["%d nodes, replication factor %d, %d keys of %d bytes at the default replicas" % (
        meta["nodes"], meta["rf"], meta["keys"], meta["value_bytes"]),
        "target: %.3f of the data per node, +-%d %%" % (meta["target_share"], TOLERANCE * 100), ""]
    lines.append("%-24s %8s %12s %8s %s" % ("node", "keys", "value bytes", "share", "verdict"))
    for n in nodes:
        ok = abs(n["share"] - meta["target_share"]) <= TOLERANCE * meta["target_share"]
        lines.append("%-24s %8d %12d %8.3f %s" % (n["url"], n["keys"], n["value_bytes"], n["share"],
                                                   "met" if ok else "NOT met"))
    total = sum(n["keys"] for n in nodes)
    lines.append("")
    lines.append("copies in all: %d = %.3f x the keys written (%d expected: every key on exactly its owners)" % (
        total, total / meta["keys"], meta["rf"] * meta["keys"]))
    lines.append("writes retried after a failed attempt: %d" % doc["retries"])
    return "\n".join(lines)


def main():
    global VALUE_BYTES
    args = parser().parse_args()
    if args.summarise:
        results_file.rewrite_summary(args.summarise, summarise)
        return
    VALUE_BYTES = args.value_bytes
    run_id, rev, dirty = results_file.run_id()
    node_args = ["--replication-factor", str(args.rf), "--warm-up", "PT0S"]
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "nodes": args.nodes, "rf": args.rf,
            "keys": args.keys, "value_bytes": args.value_bytes, "target_share": args.rf / args.nodes,
            "node_args": node_args, "server_cpus": args.server_cpus, "cores": os.cpu_count(),
            "loadavg_at_start": results_file.loadavg(),
            "command": " ".join(["./ringkv", "bench", "--rf-data"] + sys.argv[1:])}
    value = os.urandom(args.value_bytes)
    with tempfile.TemporaryDirectory(prefix="ringkv-rf-data.") as tmp:
        cluster = Cluster("c", args.nodes, node_args, tmp, args.server_cpus)
        try:
            cluster.await_ready()
            log("%d nodes ready at %s" % (args.nodes, ", ".join(cluster.urls)))
            started = time.time()
            with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
                retries = sum(pool.map(lambda i: put(cluster.urls[i % args.nodes], i, value), range(args.keys)))
            log("%d keys written in %.1f s (%d retries)" % (args.keys, time.time() - started, retries))
            previous = None
            while True:
                shares = [local_share(url) for url in cluster.urls]
                if shares == previous:
                    break
                previous = shares
                time.sleep(2)
        finally:
            cluster.stop()
    meta["loadavg_at_end"] = results_file.loadavg()
    nodes = [{"url": url, "keys": k, "value_bytes": b, "share": k / args.keys}
             for url, (k, b) in zip(cluster.urls, shares)]
    doc = {"meta": meta, "nodes": nodes, "retries": retries}
    base = results_file.write(args.out_dir, "rf-data", meta, doc, summarise(doc))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


if __name__ == "__main__":
    main()
