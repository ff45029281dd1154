# shellcheck shell=bash
# The load generators: wrk (closed loop), vegeta (open loop), h2load (HTTP/2); the prefill and
# settling, through bench/cluster_harness.py. Each measurement leaves one JSON fragment in
# $RUN_TMP/fragments/, written by bench/report/fragment.py; bench/report/assemble.py joins them
# into the results.
#
# With several target URLs (a cluster), the load is spread over all nodes: one wrk process
# per node sharing the connections, and vegeta targets that alternate between the nodes.

FRAGMENT_SEQ=0
declare -A WRK_MAX_RPS=()   # "<nodes>:<scenario>" -> closed-loop requests per second

next_fragment() {
  FRAGMENT_SEQ=$((FRAGMENT_SEQ + 1))
  printf '%s/fragments/%03d-%s.json' "$RUN_TMP" "$FRAGMENT_SEQ" "$1"
}

# select_urls NODES: URLS becomes the nginx baseline's URL or the running cluster's URLs.
select_urls() {
  if [[ $1 == nginx ]]; then URLS=("${BASELINE_URLS[@]}"); else URLS=("${TARGET_URLS[@]}"); fi
}

# Range reads: one 10k-record answer (about 1.1 MB) costs a node ~0.2 s of CPU, so 64 of them
# at once would make each wait ~10 s; fewer connections and a longer timeout keep the
# closed loop measuring throughput rather than timeouts.
connections_for() { if [[ $1 == range ]]; then echo "$RANGE_CONNECTIONS"; else echo "$CONNECTIONS"; fi; }
timeout_for() { if [[ $1 == range ]]; then echo "$RANGE_TIMEOUT"; else echo "$REQUEST_TIMEOUT"; fi; }

# wrk_all SCRIPT DURATION OUTPREFIX CONNECTIONS TIMEOUT: one wrk per URL in URLS, connections
# split between them, all pinned to the load CPUs and run concurrently; WRK_LOGS lists logs.
wrk_all() {
  local script=$1 duration=$2 prefix=$3 total=$4 timeout=$5 k=${#URLS[@]} i conns pids=() logs=() rc=0
  for i in "${!URLS[@]}"; do
    conns=$((total / k + (i < total % k ? 1 : 0)))
    logs+=("$prefix-$i.log")
    BENCH_CONNECTIONS=$conns spawn "$LOAD_CPUS" "${logs[i]}" \
      wrk -t1 -c"$conns" -d"${duration}s" --timeout "${timeout}s" -s "$LUA_DIR/$script" "${URLS[i]}"
    pids+=("$SPAWNED_PID")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[i]}" || rc=$?
    forget_pgid "${pids[i]}"
  done
  ((rc == 0)) || { cat "${logs[@]}" >&2; die "wrk exited with status $rc"; }
  WRK_LOGS=("${logs[@]}")
}

# prefill NODES: writes each of the BENCH_KEYS keys once, through all nodes in turn
# (bench/cluster_harness.py prefill, as the Python steps prefill: vegeta, CONNECTIONS workers);
# keys that were not stored (a 503 under the burst, say) are written again, up to PREFILL_PASSES
# passes in all, or the run ends. Each pass leaves a results fragment.
prefill() {
  local nodes=$1 f
  f=$(next_fragment prefill)
  harness "$LOAD_CPUS" /dev/null prefill --keys "$BENCH_KEYS" --value-bytes "$BENCH_VALUE_BYTES" \
    --expect "$EXPECT_PUT" --workers "$CONNECTIONS" --passes "$PREFILL_PASSES" --pass-timeout "$PREFILL_TIMEOUT" \
    --load-cpus "$LOAD_CPUS" --vegeta "$VEGETA_BIN" --fragments "${f%.json}" --cluster-nodes "$nodes" \
    "${TARGET_URLS[@]}" || die "prefill of the $nodes-node cluster failed"
}

target_kind() { if [[ $1 == nginx ]]; then echo nginx; else echo ringkv; fi; }

# closed_loop NODES SCENARIO: a warm-up run (discarded), then the measured wrk run.
closed_loop() {
  local nodes=$1 scenario=$2 script=$2.lua f conns timeout
  [[ $nodes == nginx ]] && script=get.lua
  conns=$(connections_for "$scenario") timeout=$(timeout_for "$scenario")
  select_urls "$nodes"
  if ((WARMUP > 0)); then
    wrk_all "$script" "$WARMUP" "$RUN_TMP/wrk-$nodes-$scenario-warmup" "$conns" "$timeout"
  fi
  local duration=$DURATION
  # A range answer can take seconds under load: give the closed loop time to see many.
  [[ $scenario == range ]] && ((duration < RANGE_DURATION_MIN)) && duration=$RANGE_DURATION_MIN
  wrk_all "$script" "$duration" "$RUN_TMP/wrk-$nodes-$scenario" "$conns" "$timeout"
  f=$(next_fragment "closed-$nodes-$scenario")
  "$PYTHON" "$REPORT_DIR/fragment.py" wrk --target "$(target_kind "$nodes")" --nodes "${nodes/nginx/1}" \
    --scenario "$scenario" --connections "$conns" --out "$f" "${WRK_LOGS[@]}"
  WRK_MAX_RPS[$nodes:$scenario]=$(json_get "$f" 'round(d["rps"])')
  log "closed loop $nodes/$scenario: $(json_get "$f" '"%.0f req/s, p50 %.2f ms, p99 %.2f ms, non-2xx %d, socket errors %d" % (d["rps"], d["latency_ms"]["p50"], d["latency_ms"]["p99"], d["non2xx"], d["socket_errors"])')"
}

# settle NODES: closed-loop mix (wrk, all nodes) in SETTLE_STEP-second runs, not measured, until
# the nodes' JIT compiler threads used at most SETTLE_JIT_PERCENT % of the nodes' CPU in one run,
# or SETTLE_MAX seconds have passed (bench/cluster_harness.py settle, the Python steps' settling
# with this load). Nodes sharing one CPU still compile for a minute or more after their warm-up;
# measured before that, a scenario measures the compilers too (the first scenario most, and
# ratios between scenarios then say more about their order than their cost).
settle() {
  local n=$1 out="$RUN_TMP/settle-$1.txt" spent share
  harness "$LOAD_CPUS" "$out" settle --pids "$(IFS=,; echo "${TARGET_PGIDS[*]}")" --scenario mix \
    --step "$SETTLE_STEP" --max "$SETTLE_MAX" --jit-percent "$SETTLE_JIT_PERCENT" --connections "$CONNECTIONS" \
    --timeout "$REQUEST_TIMEOUT" --load-cpus "$LOAD_CPUS" --keys "$BENCH_KEYS" --value-bytes "$BENCH_VALUE_BYTES" \
    --label "$n-node (mixed load)" "${TARGET_URLS[@]}" || die "settling the $n-node cluster failed"
  read -r spent share <"$out"
  SETTLED+=("$n-node: ${spent} s, last JIT share $share %")
}

expected_statuses() {
  case $1 in
    put) echo "$EXPECT_PUT" ;;
    get) echo "200,404" ;;
    mix) echo "200,404,$EXPECT_PUT" ;;
    *) echo 200 ;;
  esac
}

# open_loop NODES SCENARIO PERCENT [RATE_OF]: vegeta at PERCENT of the closed-loop maximum
# of RATE_OF ("<nodes>:<scenario>", by default this scenario's own).
open_loop() {
  local nodes=$1 scenario=$2 pct=$3 rate_of=${4:-$1:$2} max rate targets res f
  select_urls "$nodes"
  max=${WRK_MAX_RPS[$rate_of]:-0}
  rate=$((max * pct / 100))
  if ((rate < 1)); then
    warn "no closed-loop maximum for $nodes/$scenario; skipping the ${pct}% rate"
    return 0
  fi
  targets="$RUN_TMP/targets-$nodes-$scenario.txt"
  if [[ ! -f $targets ]]; then
    "$PYTHON" "$REPORT_DIR/targets.py" --scenario "$scenario" --keys "$BENCH_KEYS" \
      --range-records "$BENCH_RANGE_RECORDS" --value-bytes "$BENCH_VALUE_BYTES" \
      --body-dir "$RUN_TMP" --out "$targets" "${URLS[@]}"
  fi
  res="$RUN_TMP/vegeta-$nodes-$scenario-$pct.bin"
  log "vegeta: $rate req/s for ${DURATION}s (${pct}% of $max, the maximum of $rate_of)"
  run_pinned "$LOAD_CPUS" "$res.log" "$VEGETA_BIN" attack -targets "$targets" -rate "$rate/1s" \
    -duration "${DURATION}s" -timeout "$(timeout_for "$scenario")s" -max-workers "$VEGETA_MAX_WORKERS" -max-body 0 \
    -name "$scenario-$pct" -output "$res" || { cat "$res.log" >&2; die "vegeta attack failed"; }
  f=$(next_fragment "open-$nodes-$scenario-$pct")
  "$VEGETA_BIN" encode --to csv "$res" | "$PYTHON" "$REPORT_DIR/fragment.py" vegeta \
    --target "$(target_kind "$nodes")" --nodes "${nodes/nginx/1}" --scenario "$scenario" \
    --rate "$rate" --percent "$pct" --rate-of "$rate_of" --expect "$(expected_statuses "$scenario")" --out "$f" -
  rm -f "$res"
  log "open loop $nodes/$scenario @ $rate/s: $(json_get "$f" '"sent %.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.1f ms, errors %.2f%%, 503 %.2f%%" % (d["achieved_rps"], d["latency_ms"]["p50"], d["latency_ms"]["p99"], d["latency_ms"]["p999"], d["latency_ms"]["max"], 100 * d["error_ratio"], 100 * d["ratio_503"])')"
}

# h2_load NODES: GETs over HTTP/2 (prior-knowledge h2c) with h2load, or a recorded skip.
h2_load() {
  local nodes=$1 url f uris
  select_urls "$nodes"; url=${URLS[0]}
  f=$(next_fragment "h2-$nodes")
  local probe="$url/v0/status"
  [[ $nodes == nginx || ${BENCH_FAKE_NODES:-} == nginx ]] && probe="$url/"
  if ! speaks_h2c "$probe"; then
    log "HTTP/2: SKIPPED - $url does not answer prior-knowledge h2c (the server speaks HTTP/1.1 only so far)"
    "$PYTHON" "$REPORT_DIR/fragment.py" skip --target "$(target_kind "$nodes")" --nodes "${nodes/nginx/1}" \
      --scenario get-h2 --reason "server does not answer prior-knowledge h2c at $probe" --out "$f"
    return 0
  fi
  uris="$RUN_TMP/h2-uris-$nodes.txt"
  "$PYTHON" "$REPORT_DIR/targets.py" --scenario get --format uris --keys "$BENCH_KEYS" --out "$uris" "$url"
  # A warm-up as wrk gets one: the HTTP/2 code paths are not JIT-compiled by the HTTP/1.1 steps.
  if ((WARMUP > 0)); then
    run_pinned "$LOAD_CPUS" "$RUN_TMP/h2load-warmup-$nodes.log" h2load -t1 -c"$H2_CONNECTIONS" -m"$H2_STREAMS" \
      -D "$WARMUP" -i "$uris" || { cat "$RUN_TMP/h2load-warmup-$nodes.log" >&2; die "h2load warm-up failed"; }
  fi
  run_pinned "$LOAD_CPUS" "$RUN_TMP/h2load-$nodes.log" h2load -t1 -c"$H2_CONNECTIONS" -m"$H2_STREAMS" \
    -D "$DURATION" -i "$uris" || { cat "$RUN_TMP/h2load-$nodes.log" >&2; die "h2load failed"; }
  "$PYTHON" "$REPORT_DIR/fragment.py" h2load --target "$(target_kind "$nodes")" --nodes "${nodes/nginx/1}" \
    --scenario get-h2 --connections "$H2_CONNECTIONS" --streams "$H2_STREAMS" --out "$f" "$RUN_TMP/h2load-$nodes.log"
  log "HTTP/2 GET: $(json_get "$f" '"%.0f req/s" % d["rps"]')"
}
