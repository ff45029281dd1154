#!/usr/bin/env bash
# One node on CPU 0, wrk on CPU 1: async-profiler CPU profiles (collapsed stacks) of closed-loop
# PUT and GET, with wrk's output beside them.
#   bench/profile-one-node.sh OUT_DIR        (ASYNC_PROFILER_LIB: path of libasyncProfiler.so)
# The key space (20,000 keys of 100 bytes) is written first; each scenario gets 40 s of settling
# load, then 20 s profiled at a 200 us interval.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT=${1:?usage: bench/profile-one-node.sh OUT_DIR}
LIB=${ASYNC_PROFILER_LIB:?set ASYNC_PROFILER_LIB to libasyncProfiler.so (async-profiler 3 or 4, linux-x64)}
mkdir -p "$OUT"
DATA=$(mktemp -d /tmp/ringkv-profile.XXXXXX)
PORT=18080
setsid taskset -c 0 ./ringkv serve --port $PORT --data "$DATA/n" > "$OUT/node.log" 2>&1 &
trap '[[ -n ${PID:-} ]] && kill -TERM "$PID" 2>/dev/null; sleep 3; rm -rf "$DATA"' EXIT
until curl -sf http://127.0.0.1:$PORT/v0/status >/dev/null 2>&1; do sleep 1; done
PID=$(pgrep -f "io.ringkv.node.Main serve --port $PORT")
export BENCH_LUA_DIR=bench/lua BENCH_KEYS=20000 BENCH_VALUE_BYTES=100
python3 - <<'PY'
import urllib.request
for i in range(20000):
    urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:18080/v0/entity?id=key%07d" % i,
                                                 data=b"v" * 100, method="PUT")).read()
PY
for scenario in put get; do
  taskset -c 1 wrk -t1 -c64 -d40s --timeout 5s -s bench/lua/$scenario.lua http://127.0.0.1:$PORT > "$OUT/$scenario-settle.txt"
  jcmd "$PID" JVMTI.agent_load "$LIB" "'start,event=cpu,interval=200us'" > /dev/null
  taskset -c 1 wrk -t1 -c64 -d20s --timeout 5s -s bench/lua/$scenario.lua http://127.0.0.1:$PORT > "$OUT/$scenario-wrk.txt"
  jcmd "$PID" JVMTI.agent_load "$LIB" "'stop,file=$OUT/$scenario.collapsed,collapsed'" > /dev/null
  grep "Requests/sec" "$OUT/$scenario-wrk.txt"
done
