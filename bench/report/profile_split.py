#!/usr/bin/env python3
"""Where a node's CPU went, from async-profiler collapsed stacks (bench/profile_nodes.py).

    python3 bench/report/profile_split.py --interval-us 200 --seconds 20 --rate REQ_PER_S FILE.collapsed

Prints three splits of the samples, each as a share and as microseconds per request
(samples x interval / (seconds x rate)):
  - by the leaf-most frame's owner (kernel, RocksDB, our modules by package, the JDK);
  - the socket writes, by the ringkv frame that flushed them (a public answer, a peer request...);
  - the inter-node client's own work: samples under io.ringkv.http.client or java.net.http/URI
    frames with nothing of the cluster, the server, the node or a socket write below them, i.e.
    what the java.net.http facade and the client engine cost before a reply's future completes
    (what a continuation then does inline is the cluster's, not the client's).
"""
import argparse
import collections
import gzip
import re

LEAF_OWNERS = [
    ("kernel", re.compile(r"_\[k\]$|^\[k\]")),
    ("rocksdb", re.compile(r"rocksdb|RocksDB")),
    ("crypto", re.compile(r"^(javax/crypto|sun/security|com/sun/crypto)")),
    ("hpack", re.compile(r"^io/ringkv/http/hpack/")),
    ("http-core h2", re.compile(r"^io/ringkv/http/h2/")),
    ("http-core other", re.compile(r"^io/ringkv/http/(?!client/|server/|h2/|hpack/)")),
    ("http-client", re.compile(r"^io/ringkv/http/client/")),
    ("http-server", re.compile(r"^io/ringkv/http/server/")),
    ("net", re.compile(r"^io/ringkv/net/")),
    ("cluster", re.compile(r"^io/ringkv/cluster/")),
    ("store", re.compile(r"^io/ringkv/store/")),
    ("node", re.compile(r"^io/ringkv/node/")),
    ("java.net (URI, java.net.http)", re.compile(r"^java/net/")),
    ("java.util.concurrent", re.compile(r"^java/util/concurrent/")),
    ("JDK nio", re.compile(r"^(sun/nio|java/nio)")),
    ("JDK other", re.compile(r"^(java|jdk|sun)/")),
]
CLIENT = re.compile(r"^(io/ringkv/http/client/|java/net/http/|java/net/URI)")
BELOW_CLIENT = re.compile(r"^io/ringkv/(cluster|http/server|node)/|SocketDispatcher")


def read(path):
    """(frames, samples) per line of a collapsed-stacks file, gzip or plain."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            stack, count = line.rstrip("\n").rsplit(" ", 1)
            yield stack.split(";"), int(count)





def leaf_owner(frames):
    for frame in reversed(frames):
        for name, pattern in LEAF_OWNERS:
            if pattern.search(frame):
                return name
    return "JVM (compiler, GC, interpreter)"


def socket_writer(frames):
    """The ringkv frame that flushed a socket write, or None when the sample is no socket write."""
    at = next((i for i, f in enumerate(frames) if f.endswith("OutboundQueue.writeUntilBlocked")), None)
    if at is None:
        return None
    callers = [f for f in frames[:at] if f.startswith("io/ringkv/") and not f.startswith("io/ringkv/net/")]
    return callers[-1].replace("io/ringkv/", "") if callers else "net"


def client_own(frames):
    marks = [i for i, f in enumerate(frames) if CLIENT.search(f)]
    return bool(marks) and not any(BELOW_CLIENT.search(f) for f in frames[marks[-1]:])


def split(records, interval_us, seconds, rate):
    """The three splits of one profile: {"samples", "us_per_request", "owners", "socket_writes",
    "client_own", "client_own_by_class"}, each split a list of [name, samples, us per request]."""
    total = 0
    owners = collections.Counter()
    writers = collections.Counter()
    own = collections.Counter()
    for frames, count in records:
        total += count
        owners[leaf_owner(frames)] += count
        writer = socket_writer(frames)
        if writer is not None:
            writers[writer] += count
        if client_own(frames):
            leaf = [f for f in frames if CLIENT.search(f) or f.startswith("io/ringkv/")][-1]
            own[leaf.rsplit(".", 1)[0]] += count
    us = interval_us / (seconds * rate)

    def rows(counter):
        return [[name, count, count * us] for name, count in counter.most_common()]

    return {"samples": total, "us_per_request": total * us, "owners": rows(owners), "socket_writes": rows(writers),
            "client_own": [sum(own.values()), sum(own.values()) * us], "client_own_by_class": rows(own)}


def render(title, result, top=8):
    total = result["samples"] or 1

    def line(row):
        return "  %-58s %5.1f %%  %6.2f us" % (row[0], 100.0 * row[1] / total, row[2])

    out = ["%s: %d samples, %.1f us of CPU per request" % (title, result["samples"], result["us_per_request"]),
           "by the leaf-most frame's owner:"]
    out += [line(row) for row in result["owners"]]
    out.append("socket writes, by the frame that flushed them:")
    out += [line(row) for row in result["socket_writes"][:top]]
    own = result["client_own"]
    out.append("the inter-node client's own work (below its first frame, above socket writes and continuations): "
               "%.1f %%, %.2f us" % (100.0 * own[0] / total, own[1]))
    out += [line(row) for row in result["client_own_by_class"][:top]]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interval-us", type=float, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--rate", type=float, required=True, help="requests per second while profiled")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("file", help="collapsed stacks, plain or .gz")
    args = ap.parse_args()
    print(render(args.file, split(read(args.file), args.interval_us, args.seconds, args.rate), args.top))


if __name__ == "__main__":
    main()
