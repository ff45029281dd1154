#!/usr/bin/env bash
# Per-request system calls, context switches and CPU time of one client benchmark row, by thread
# group: perf stat attaches to the JMH fork for 6 s of a 12 s measurement and the counts are
# divided by the requests made in those 6 s. Counts are steadier than ops/s on a shared machine.
# The -p options must pick exactly one combination.
#
#   bench/client-syscalls.sh RING oneCaller "-p size=1 -p method=GET -p protocol=H1 -p tls=false"
#
# Needs bench/target/benchmarks.jar (bench/client-bench.sh builds it), perf (Debian linux-perf)
# and permission to trace system calls (root, or kernel.perf_event_paranoid <= 1).
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
client=${1:?client: JDK, JETTY or RING}; mode=${2:?mode: oneCaller or inFlight64}; params=${3:-}
JAR="$BENCH_DIR/target/benchmarks.jar"
[[ -f $JAR ]] || { echo "no $JAR: run bench/client-bench.sh --no-render once, or mvn -pl bench -am package" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 1; }
JAVA_BIN="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
[[ -x $JAVA_BIN ]] || { echo "no JDK 25 at $JAVA_BIN: set JAVA_HOME" >&2; exit 1; }
work=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# shellcheck disable=SC2086
"$JAVA_BIN" -jar "$JAR" "HttpClientBenchmark.$mode" -jvmArgs '-Xms1g -Xmx1g' -f 1 -wi 4 -w 2s -i 1 -r 12s -p client="$client" $params \
  -rf json -rff "$work/result.json" >"$work/jmh.log" 2>&1 &
jmh=$!
until grep -q "^Iteration   1" "$work/jmh.log" 2>/dev/null; do
  kill -0 $jmh 2>/dev/null || { tail -20 "$work/jmh.log" >&2; exit 1; }
  sleep 0.5
done
fork=$(pgrep -f ForkedMain | head -1)
sleep 2
perf stat --per-thread -x, -p "$fork" -e 'syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex,context-switches,task-clock' \
  -- sleep 6 2>"$work/perf.csv"
wait $jmh
python3 - "$work/result.json" "$work/perf.csv" <<'PY'
import collections, json, re, sys
results = json.load(open(sys.argv[1]))
if len(results) != 1:
    sys.exit(f"the -p options must pick one combination; they picked {len(results)} "
             "(pin size, method, protocol and tls)")
requests = results[0]["primaryMetric"]["score"] * 6
groups = collections.defaultdict(collections.Counter)
for line in open(sys.argv[2]):
    fields = line.strip().split(",")
    if len(fields) < 4:
        continue
    try:
        value = float(fields[1])
    except ValueError:
        continue
    thread = re.sub(r"\d+$", "", re.sub(r"-\d+$", "", fields[0]))  # kernel names are cut at 15 characters
    groups[thread][fields[3].replace("syscalls:sys_enter_", "")] += value
events = ["read", "write", "writev", "epoll_wait", "futex", "context-switches", "task-clock"]
print(f"{requests / 6:,.0f} requests/s; per request (task-clock in us of CPU):")
print(f"{'thread group':<18}" + "".join(f"{e[:12]:>13}" for e in events))
for name, c in sorted(groups.items(), key=lambda kv: -kv[1]["task-clock"]):
    if c["task-clock"] * 1000 / requests >= 0.5:
        print(f"{name[:18]:<18}" + "".join(
            f"{(c[e] * 1000 if e == 'task-clock' else c[e]) / requests:>13.2f}" for e in events))
PY
