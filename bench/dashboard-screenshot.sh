#!/usr/bin/env bash
# Takes the dashboard's screenshot for the docs (docs/img/dashboard.png): a local 3-node cluster
# (./ringkv up) under a closed-loop GET/PUT mix from wrk against every node, the dashboard polled
# for a minute (a node keeps the charts' history only while a dashboard asks; the first 15 s of
# load, the JIT warming up, are left out so that the charts' scale shows the steady state), then
# headless Chromium's screenshot of the page, with a key looked up, while the load still runs.
# Takes about 100 s.
#
#   bench/dashboard-screenshot.sh [--kill-one] [OUT.png]
#
# --kill-one SIGKILLs node-3 a while before the screenshot (the load goes on against the other
# two), so the picture shows a node down, its gap in the charts and the errors it caused; the
# docs' picture is taken that way. Needs wrk, curl and chromium (Debian: wrk, curl, chromium).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KILL_ONE=false
if [[ ${1:-} == --kill-one ]]; then
  KILL_ONE=true
  shift
fi
OUT="${1:-$ROOT/docs/img/dashboard.png}"
PORT="${RINGKV_SCREENSHOT_PORT:-18480}" # node i listens on PORT+i-1
WARM_UP_SECONDS=15
WATCH_SECONDS=60
KILL_AFTER_SECONDS=40 # of watching
LOAD_SECONDS=$((WARM_UP_SECONDS + WATCH_SECONDS + 15))
KEY=greeting

for tool in wrk curl chromium; do
  command -v "$tool" >/dev/null 2>&1 || { echo "dashboard-screenshot: $tool is not installed" >&2; exit 1; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ringkv-screenshot.XXXXXX")"
UP_PID=""
cleanup() {
  if [[ -n "$UP_PID" ]]; then
    kill "$UP_PID" 2>/dev/null || true # SIGTERM: ./ringkv up stops every node it started
    wait "$UP_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$ROOT/ringkv" up --data "$WORK/data" --base-port "$PORT" >"$WORK/up.log" 2>&1 &
UP_PID=$!
urls=("http://127.0.0.1:$PORT" "http://127.0.0.1:$((PORT + 1))" "http://127.0.0.1:$((PORT + 2))")
deadline=$((SECONDS + 180)) # the launcher may build first
for url in "${urls[@]}"; do
  until [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/v0/status")" == 200 ]]; do
    ((SECONDS < deadline)) || { echo "dashboard-screenshot: $url did not start; log:" >&2; tail -20 "$WORK/up.log" >&2; exit 1; }
    kill -0 "$UP_PID" 2>/dev/null || { echo "dashboard-screenshot: ./ringkv up exited; log:" >&2; tail -20 "$WORK/up.log" >&2; exit 1; }
    sleep 0.5
  done
done
curl -s -o /dev/null -X PUT --data-binary 'hello' "${urls[0]}/v0/entity?id=$KEY"

echo "dashboard-screenshot: ${LOAD_SECONDS} s of load on 3 nodes, the dashboard watched after ${WARM_UP_SECONDS} s..." >&2
for url in "${urls[@]}"; do
  BENCH_LUA_DIR="$ROOT/bench/lua" BENCH_KEYS=1000 \
    wrk -t1 -c4 -d"${LOAD_SECONDS}s" -s "$ROOT/bench/lua/mix.lua" "$url" >"$WORK/wrk-${url##*:}.log" 2>&1 &
done
sleep "$WARM_UP_SECONDS"
# Timed by the clock, not by rounds: on a loaded machine a round takes longer than its second.
watch_start=$SECONDS
killed=false
while ((SECONDS - watch_start < WATCH_SECONDS)); do
  curl -s -o /dev/null --max-time 5 "${urls[0]}/ui/api/cluster" || true
  if $KILL_ONE && ! $killed && ((SECONDS - watch_start >= KILL_AFTER_SECONDS)); then
    # node-3's JVM: the java command whose arguments name its data directory (not this awk, whose do too)
    node3="$(ps -eo pid=,args= | awk -v data="$WORK/data/node-3" '$2 ~ /\/java$/ && index($0, data) {print $1}')"
    [[ "$node3" =~ ^[0-9]+$ ]] || { echo "dashboard-screenshot: cannot find node-3's process" >&2; exit 1; }
    kill -KILL "$node3"
    killed=true
    echo "dashboard-screenshot: killed node-3 (pid $node3)" >&2
  fi
  sleep 1
done

# While the load still runs. The virtual time budget lets the page poll a few times before the
# picture is taken; the page fetches the minutes of history the node kept.
rm -f "$OUT"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --disable-dev-shm-usage --hide-scrollbars \
  --user-data-dir="$WORK/profile" --window-size=1280,1080 --virtual-time-budget=3000 \
  --screenshot="$OUT" "${urls[0]}/ui/?key=$KEY" >"$WORK/chromium.log" 2>&1
[[ -s "$OUT" ]] || { echo "dashboard-screenshot: no screenshot; chromium said:" >&2; tail -20 "$WORK/chromium.log" >&2; exit 1; }
wait $(jobs -p | grep -v "^$UP_PID$") 2>/dev/null || true
echo "dashboard-screenshot: wrote $OUT ($(stat -c %s "$OUT") bytes)" >&2
