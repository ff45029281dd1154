#!/usr/bin/env bash
# ringkv load benchmark: `./ringkv bench [options]` (the launcher builds the project, sets
# JAVA_HOME to a JDK 25 and execs this script). See docs/benchmarks.md for the method.
set -euo pipefail
# The whole script is one compound command, so bash has read all of it before it runs:
# editing this file during a run cannot change the running instance.
{
export PYTHONDONTWRITEBYTECODE=1

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
LUA_DIR="$BENCH_DIR/lua"
REPORT_DIR="$BENCH_DIR/report"
# shellcheck source=bench/lib/common.sh
source "$BENCH_DIR/lib/common.sh"
# shellcheck source=bench/lib/tools.sh
source "$BENCH_DIR/lib/tools.sh"
# shellcheck source=bench/lib/servers.sh
source "$BENCH_DIR/lib/servers.sh"
# shellcheck source=bench/lib/load.sh
source "$BENCH_DIR/lib/load.sh"

usage() {
  cat <<'EOF'
Usage: ./ringkv bench [options]

Measures ringkv under load (wrk closed loop, vegeta open loop, h2load when the server
speaks HTTP/2) on a 1-node and a local 3-node cluster, next to an nginx baseline, and
writes bench/results/<time>-<gitrev>.json plus the "Store under load" section of
docs/benchmarks.md (tables and docs/img/*.png charts).

Options:
  --quick              short steps (5 s, rates 50/100/125 %): the whole run takes minutes
  --profile            JFR profile (CPU, allocation, locks) of the first node of each cluster
                       during the GET and PUT scenarios, kept beside the results (*.jfr +
                       a summary in the results)
  --nodes 1|3|both     cluster sizes to measure (default: both)
  --scenario LIST      comma-separated from put,get,mix,range (default: all)
  --duration SECONDS   length of each measured step (default 20, quick 5)
  --rates LIST         open-loop rates in % of the closed-loop maximum (default 25,50,75,100,125)
  --no-baseline        skip the nginx baseline (ratios are then omitted)
  --no-render          do not regenerate docs/benchmarks.md and docs/img
  --keep-tmp           keep the temporary directory (logs, node data) for inspection
  --fake-nodes         nginx instances stand in for the nodes (tests the harness itself;
                       results go to bench/results/tmp/)
  --self-check         fast checks of the scripts themselves (no load, no servers)
  -h, --help           this text

Other steps, each its own script with its own --help (./ringkv bench --STEP --help):
  --replicated-path, --h2, --cold-start, --metrics-cost, --anti-entropy-impact, --handoff,
  --h2-abuse (one hostile HTTP/2 connection: the node's heap and other clients' p99),
  --large-hints (large values missed by a replica that was down: how long hints take),
  --cas-throughput (PUT with If-Match against plain PUT through one node of 3),
  --etcd (three ringkv nodes beside three etcd members: p99 and CPU per request at the same rates),
  --membership (grow 3->4, shrink 4->3, replace a node under constant load: failures, p99, streaming),
  --interference (a loaded cluster's p99 while a neighbour that never talks to it uses the cores),
  --wakeup-latency (a sleeping thread's wait for a CPU beside busy loops, by their scheduling)

Environment: BENCH_SERVER_CPUS (default 0) and BENCH_LOAD_CPUS (default 1) choose the
taskset pinning; BENCH_JVM_OPTS adds JVM options to every node, BENCH_NODE_ARGS flags to
every `ringkv serve` (e.g. "--durability ..."); both are recorded in the results.
EOF
}

# ---- options -------------------------------------------------------------------------
QUICK=0 PROFILE=0 NODES_OPT=both SCENARIOS=put,get,mix,range DURATION='' RATES='' BASELINE=1
RENDER=1 KEEP_TMP=0 FAKE=0 SELF_CHECK=0
while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --profile) PROFILE=1 ;;
    --nodes) NODES_OPT=${2:?--nodes needs 1, 3 or both}; shift ;;
    --scenario | --scenarios) SCENARIOS=${2:?--scenario needs a list}; shift ;;
    --duration) DURATION=${2:?--duration needs seconds}; shift ;;
    --rates) RATES=${2:?--rates needs a list}; shift ;;
    --no-baseline) BASELINE=0 ;;
    --no-render) RENDER=0 ;;
    --keep-tmp) KEEP_TMP=1 ;;
    --fake-nodes) FAKE=1 ;;
    --self-check) SELF_CHECK=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
  shift
done

if ((SELF_CHECK)); then
  exec "$BENCH_DIR/lib/self-check.sh"
fi

case $NODES_OPT in
  1) NODE_COUNTS=(1) ;; 3) NODE_COUNTS=(3) ;; both) NODE_COUNTS=(1 3) ;;
  *) die "--nodes must be 1, 3 or both" ;;
esac
IFS=, read -r -a SCENARIO_LIST <<<"$SCENARIOS"
for s in "${SCENARIO_LIST[@]}"; do
  [[ $s =~ ^(put|get|mix|range)$ ]] || die "unknown scenario '$s' (put, get, mix, range)"
done
if ((QUICK)); then
  DURATION=${DURATION:-5} WARMUP=2 RATES=${RATES:-50,100,125} SETTLE_MAX=30
else
  DURATION=${DURATION:-20} WARMUP=5 RATES=${RATES:-25,50,75,100,125} SETTLE_MAX=120
fi
SETTLE_STEP=10 SETTLE_JIT_PERCENT=2 SETTLED=()   # see settle() in lib/load.sh
[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || die "--duration must be a positive number of seconds"
IFS=, read -r -a RATE_LIST <<<"$RATES"

# ---- fixed parameters (recorded in the results) ---------------------------------------
CONNECTIONS=64                 # wrk connections, as issue #6 asks
RANGE_CONNECTIONS=8            # wrk connections for range reads (see connections_for)
REQUEST_TIMEOUT=5 RANGE_TIMEOUT=30   # seconds before wrk/vegeta count a request as timed out
RANGE_DURATION_MIN=10          # seconds: the shortest closed-loop range measurement
H2_CONNECTIONS=8 H2_STREAMS=8  # h2load: 64 concurrent streams, like wrk's 64 connections
VEGETA_MAX_WORKERS=512         # bound on vegeta's concurrency (and connections) past saturation
NODE_START_TIMEOUT=120         # seconds for a node to answer /v0/status
PREFILL_TIMEOUT=300            # seconds allowed for one pass of writing the key space
PREFILL_PASSES=3               # passes over keys that were not stored (e.g. 503 under the burst)
export BENCH_KEYS=100000 BENCH_VALUE_BYTES=100 BENCH_RANGE_RECORDS=10000 BENCH_LUA_DIR=$LUA_DIR
EXPECT_PUT=201
if ((FAKE)); then export BENCH_FAKE_NODES=nginx; EXPECT_PUT=200; fi

if (($(nproc) >= 2)); then
  SERVER_CPUS=${BENCH_SERVER_CPUS:-0} LOAD_CPUS=${BENCH_LOAD_CPUS:-1}
else
  SERVER_CPUS=${BENCH_SERVER_CPUS:-0} LOAD_CPUS=${BENCH_LOAD_CPUS:-0}
  warn "one CPU only: servers and load generators share it"
fi

GITREV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
RUN_ID="$(date -u +%Y%m%dT%H%M%SZ)-$GITREV"
RESULTS_DIR="$BENCH_DIR/results"
((FAKE)) && RESULTS_DIR="$BENCH_DIR/results/tmp"
mkdir -p "$RESULTS_DIR"
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ringkv-bench.XXXXXX")
mkdir -p "$RUN_TMP/fragments"
PROFILE_PID='' STARTING_NODES='' BASELINE_URLS=() BASELINE_PGID='' TARGET_URLS=() TARGET_PGIDS=()

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  adopt_nodes
  cleanup_all
  if ((KEEP_TMP || rc != 0)); then
    log "logs and data kept in $RUN_TMP"
  else
    rm -rf "$RUN_TMP"
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'log "interrupted; stopping everything this run started"; exit 130' INT TERM

# ---- tools ------------------------------------------------------------------------------
ensure_debian_tools
ensure_vegeta
ensure_venv
if ((PROFILE)); then
  command -v jcmd >/dev/null && command -v jfr >/dev/null || die "--profile needs jcmd and jfr from the JDK on PATH"
fi

# ---- the plan: every step with its planned seconds, so progress can show what is left ----
PLAN=()
plan() { PLAN+=("$1|$2|$3"); }   # planned-seconds | description | command line

plan_rates() { # NODES SCENARIO LABEL [RATE_OF]
  local pct
  for pct in "${RATE_LIST[@]}"; do
    plan $((DURATION + 2)) "$3: open loop (vegeta) at $pct% of max" "open_loop $1 $2 $pct ${4:-}"
  done
}

# The baseline's open-loop steps use the rates of the first ringkv GET scenario (or the
# first scenario measured), so nginx and ringkv latencies compare at equal offered load.
BASELINE_RATE_OF="${NODE_COUNTS[0]}:${SCENARIO_LIST[0]}"
[[ ,$SCENARIOS, == *,get,* ]] && BASELINE_RATE_OF="${NODE_COUNTS[0]}:get"
if ((BASELINE)); then
  plan 3 "nginx baseline: start" "start_baseline"
  plan $((WARMUP + DURATION)) "nginx baseline: closed loop (wrk, $CONNECTIONS connections)" "closed_loop nginx baseline"
fi
for n in "${NODE_COUNTS[@]}"; do
  plan 20 "$n-node: start" "start_nodes $n"
  plan 20 "$n-node: prefill $BENCH_KEYS keys" "prefill $n"
  plan "$SETTLE_MAX" "$n-node: settle (mixed load until the JIT is calm, at most $SETTLE_MAX s)" "settle $n"
  for s in "${SCENARIO_LIST[@]}"; do
    plan $((WARMUP + DURATION)) "$n-node $s: closed loop (wrk, $(connections_for "$s") connections)" "begin_scenario $n $s"
    plan_rates "$n" "$s" "$n-node $s"
    if ((PROFILE)) && [[ $s =~ ^(get|put)$ ]]; then
      plan 5 "$n-node $s: profile dump" "profile_dump $n $s"
    fi
    if ((BASELINE)) && [[ $n:$s == "$BASELINE_RATE_OF" ]]; then
      plan_rates nginx baseline "nginx baseline at the rates of $n-node $s" "$BASELINE_RATE_OF"
    fi
  done
  plan $((WARMUP + DURATION)) "$n-node: HTTP/2 GET (h2load)" "h2_load $n"
  plan 5 "$n-node: stop" "stop_targets"
done
((BASELINE)) && plan 2 "nginx baseline: stop" "stop_baseline"
plan 5 "results and report" "finish"
STEP_TOTAL=${#PLAN[@]}
for entry in "${PLAN[@]}"; do STEP_PLANNED_TOTAL=$((STEP_PLANNED_TOTAL + ${entry%%|*})); done

declare -A SCENARIO_T0=()
begin_scenario() { SCENARIO_T0[$1:$2]=$(date +%s); closed_loop "$1" "$2"; }

# profile_dump NODES SCENARIO: cuts the window since the scenario began out of the first
# node's continuous recording, and summarises CPU, allocation and lock hot spots.
profile_dump() {
  local n=$1 s=$2 secs jfr_file summary f
  secs=$(($(date +%s) - SCENARIO_T0[$n:$s] + 1))
  jfr_file="$RESULTS_DIR/$RUN_ID-${n}node-$s.jfr"
  jcmd "$PROFILE_PID" JFR.dump name=bench begin="-${secs}s" filename="$jfr_file" >"$RUN_TMP/jcmd-$n-$s.log" 2>&1 \
    || { cat "$RUN_TMP/jcmd-$n-$s.log" >&2; warn "jcmd JFR.dump failed; no profile for $n-node $s"; return 0; }
  summary="$RUN_TMP/profile-$n-$s.txt"
  "$BENCH_DIR/lib/profile-summary.sh" "$jfr_file" >"$summary" 2>&1 || warn "profile summary incomplete"
  f=$(next_fragment "profile-$n-$s")
  "$PYTHON" "$REPORT_DIR/fragment.py" profile --target ringkv --nodes "$n" --scenario "$s" \
    --jfr "${jfr_file#"$ROOT"/}" --seconds "$secs" --out "$f" "$summary"
  log "profile of the $s window (${secs}s) in $jfr_file"
  sed -n '/== hot methods/,/^$/p' "$summary" | head -n 12 >&2
}

finish() {
  local results="$RESULTS_DIR/$RUN_ID.json"
  "$PYTHON" "$REPORT_DIR/assemble.py" --run-dir "$RUN_TMP" --out "$results" \
    --meta run_id="$RUN_ID" --meta git_rev="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)" \
    --meta git_dirty="$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true || echo false)" \
    --meta started_epoch="$BENCH_T0" --meta quick="$QUICK" --meta fake_nodes="$FAKE" \
    --meta duration_s="$DURATION" --meta warmup_s="$WARMUP" --meta connections="$CONNECTIONS" \
    --meta range_connections="$RANGE_CONNECTIONS" --meta request_timeout_s="$REQUEST_TIMEOUT" --meta range_timeout_s="$RANGE_TIMEOUT" \
    --meta rates_percent="$RATES" --meta keys="$BENCH_KEYS" --meta value_bytes="$BENCH_VALUE_BYTES" \
    --meta range_records="$BENCH_RANGE_RECORDS" --meta server_cpus="$SERVER_CPUS" --meta load_cpus="$LOAD_CPUS" \
    --meta jvm_opts="${BENCH_JVM_OPTS:-}" --meta node_args="${BENCH_NODE_ARGS:-}" --meta vegeta_max_workers="$VEGETA_MAX_WORKERS" \
    --meta h2load_connections="$H2_CONNECTIONS" --meta h2load_streams="$H2_STREAMS" \
    --meta settle_max_s="$SETTLE_MAX" --meta settle_jit_percent="$SETTLE_JIT_PERCENT" \
    --meta settled="$(IFS=';'; echo "${SETTLED[*]}")" \
    --tools-json "$(tool_versions_json)"
  log "results: ${results#"$ROOT"/}"
  if ((RENDER)); then
    local doc="$ROOT/docs/benchmarks.md" img="$ROOT/docs/img"
    ((FAKE)) && doc="$RESULTS_DIR/benchmarks.md" img="$RESULTS_DIR/img"
    "$PYTHON" "$REPORT_DIR/render.py" "$results" --doc "$doc" --img-dir "$img"
    log "report: ${doc#"$ROOT"/} (charts in ${img#"$ROOT"/})"
  fi
  "$PYTHON" "$REPORT_DIR/render.py" "$results" --summary >&2
}

log "run $RUN_ID: ${#PLAN[@]} steps, about $(fmt_secs "$STEP_PLANNED_TOTAL") planned; servers on CPU $SERVER_CPUS, load on CPU $LOAD_CPUS; temp dir $RUN_TMP"
for entry in "${PLAN[@]}"; do
  IFS='|' read -r planned desc cmd <<<"$entry"
  step "$desc" "$planned"
  read -r -a words <<<"$cmd"
  "${words[@]}"
done
log "done in $(fmt_secs $(($(date +%s) - BENCH_T0)))"
exit 0
}
