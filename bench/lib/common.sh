# shellcheck shell=bash
# Shared helpers for bench/run.sh: logging, progress, free ports, and the process registry
# that guarantees every process the benchmark starts is stopped again.
#
# Every long-lived or load-generating process is started through `spawn` (or `harness`), which
# puts it in its own process group (setsid) and records the group id. `cleanup_all` (the EXIT
# trap) signals each recorded group, so children of children (java under ./ringkv, nginx
# workers) go too. Nothing is started with `&` anywhere else. The nodes, which
# bench/cluster_harness.py starts in groups of their own, are recorded as it names them
# (adopt_nodes in servers.sh).

BENCH_T0=$(date +%s)
SPAWNED_PGIDS=()        # process groups started by this run, in start order
STEP_INDEX=0
STEP_TOTAL=0
STEP_PLANNED_DONE=0     # planned seconds of the steps already finished
STEP_PLANNED_TOTAL=0

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { log "WARNING: $*"; }
die() { log "ERROR: $*"; exit 1; }

fmt_secs() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }

# step DESCRIPTION PLANNED_SECONDS: announces the next step with elapsed and remaining time.
# Remaining time is the planned time left, scaled by how far actual time has run over or
# under plan so far (so a slow machine's estimate corrects itself as the run proceeds), once
# enough of the plan has run for that ratio to mean something.
step() {
  local desc=$1 planned=$2 now elapsed remaining
  now=$(date +%s); elapsed=$((now - BENCH_T0))
  STEP_INDEX=$((STEP_INDEX + 1))
  remaining=$((STEP_PLANNED_TOTAL - STEP_PLANNED_DONE))
  if ((STEP_PLANNED_DONE >= 60 && elapsed > 0)); then
    remaining=$((remaining * elapsed / STEP_PLANNED_DONE))
  fi
  printf '\n[step %d/%d | %s elapsed | ~%s left] %s\n' "$STEP_INDEX" "$STEP_TOTAL" \
    "$(fmt_secs "$elapsed")" "$(fmt_secs "$remaining")" "$desc" >&2
  STEP_PLANNED_DONE=$((STEP_PLANNED_DONE + planned))
}

# free_ports N: prints N distinct TCP ports that were free on 127.0.0.1 a moment ago
# (bench/cluster_harness.py's free_ports, shared with the Python steps).
free_ports() { python3 "$BENCH_DIR/cluster_harness.py" ports "$1"; }

# spawn CPUS LOGFILE CMD...: starts CMD pinned to CPUS in a new process group, output to
# LOGFILE; sets SPAWNED_PID (also the group id, since setsid makes it the leader).
spawn() {
  local cpus=$1 logfile=$2; shift 2
  setsid taskset -c "$cpus" "$@" >"$logfile" 2>&1 </dev/null &
  SPAWNED_PID=$!
  SPAWNED_PGIDS+=("$SPAWNED_PID")
}

# run_pinned CPUS LOGFILE CMD...: runs CMD to completion like spawn, but waits for it.
# Waiting with `wait` keeps the shell responsive to Ctrl-C (the trap runs at once).
run_pinned() {
  spawn "$@"
  local pid=$SPAWNED_PID rc=0
  wait "$pid" || rc=$?
  forget_pgid "$pid"
  return "$rc"
}

# harness CPUS OUTFILE COMMAND [ARG...]: runs `bench/cluster_harness.py COMMAND ARG...` (the
# cluster chores this harness shares with the Python steps: node start, prefill, settling) to
# completion like run_pinned, but its progress lines (stderr) reach the terminal as they come;
# its answer (stdout) goes to OUTFILE.
harness() {
  local cpus=$1 out=$2 pid rc=0; shift 2
  setsid taskset -c "$cpus" "${PYTHON:-python3}" "$BENCH_DIR/cluster_harness.py" "$@" >"$out" </dev/null &
  pid=$!
  SPAWNED_PGIDS+=("$pid")
  wait "$pid" || rc=$?
  forget_pgid "$pid"
  return "$rc"
}

forget_pgid() {
  local keep=() pg
  for pg in "${SPAWNED_PGIDS[@]}"; do [[ $pg == "$1" ]] || keep+=("$pg"); done
  SPAWNED_PGIDS=("${keep[@]}")
}

group_alive() { kill -0 -- "-$1" 2>/dev/null; }

# stop_group PGID [GRACE_SECONDS]: SIGTERM to the group, SIGKILL after the grace period.
stop_group() {
  local pg=$1 grace=${2:-15} deadline
  if group_alive "$pg"; then
    kill -TERM -- "-$pg" 2>/dev/null || true
    deadline=$(($(date +%s) + grace))
    while group_alive "$pg" && (($(date +%s) < deadline)); do sleep 0.2; done
    if group_alive "$pg"; then
      warn "process group $pg ignored SIGTERM for ${grace}s; sending SIGKILL"
      kill -KILL -- "-$pg" 2>/dev/null || true
    fi
  fi
  wait "$pg" 2>/dev/null || true
  forget_pgid "$pg"
}

# The EXIT trap: stops every group still registered, newest first.
cleanup_all() {
  local i
  for ((i = ${#SPAWNED_PGIDS[@]} - 1; i >= 0; i--)); do
    stop_group "${SPAWNED_PGIDS[i]}" 10
  done
}

# http_status URL: prints the HTTP status of a GET (000 when nothing answered).
http_status() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true
}

# wait_http_ok URL PGID TIMEOUT LOGFILE: waits until URL answers 200, failing early if the
# process group dies, with the end of its log to explain why.
wait_http_ok() {
  local url=$1 pg=$2 timeout=$3 logfile=$4 deadline
  deadline=$(($(date +%s) + timeout))
  until [[ $(http_status "$url") == 200 ]]; do
    if ! group_alive "$pg"; then
      tail -n 30 "$logfile" >&2 || true
      die "process for $url exited before it was ready (log: $logfile)"
    fi
    if (($(date +%s) >= deadline)); then
      tail -n 30 "$logfile" >&2 || true
      die "$url not ready after ${timeout}s (log: $logfile)"
    fi
    sleep 0.3
  done
}

# json_get FILE EXPR [ARG...]: evaluates a Python expression over the JSON document `d` in
# FILE (further arguments are sys.argv[3:]).
json_get() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}
