# shellcheck shell=bash
# Starts and stops what the benchmark measures: the nginx baseline and ringkv nodes.
# Each start function sets TARGET_URLS (the URLs the load goes to) and TARGET_PGIDS.

# start_nginx NAME [http2]: nginx answering every request with a fixed 200 "ok" (2 bytes),
# one worker (comparable to one pinned node), no access log, config in its own temp dir.
start_nginx() {
  local name=$1 http2=${2:-} dir port
  dir="$RUN_TMP/$name"; mkdir -p "$dir/tmp"
  port=$(free_ports 1)
  cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  default_type text/plain;
  keepalive_requests 100000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  server {
    listen 127.0.0.1:$port${http2:+ http2};
    location / { return 200 "ok"; }
  }
}
EOF
  spawn "$SERVER_CPUS" "$dir/nginx.out" "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log"
  TARGET_PGIDS=("$SPAWNED_PID")
  TARGET_URLS=("http://127.0.0.1:$port")
  wait_http_ok "${TARGET_URLS[0]}/" "$SPAWNED_PID" 20 "$dir/error.log"
  log "nginx ($name) on ${TARGET_URLS[0]}, pid $SPAWNED_PID, CPUs $SERVER_CPUS"
}

# start_nodes N: N ringkv node processes of one cluster (bench/cluster_harness.py start, as the
# Python steps start theirs: each node its own data dir and process group, pinned to the server
# CPUs, all given the same --cluster list and a fresh cluster secret, BENCH_JVM_OPTS and
# BENCH_NODE_ARGS passed on). With --profile, the first node of each cluster records a JFR for
# its whole life; profile_dump cuts the GET and PUT windows out of that recording. With
# BENCH_FAKE_NODES=nginx, N nginx instances stand in for the nodes (to test the harness itself).
start_nodes() {
  local n=$1 args
  args=(start --nodes "$n" --name "nodes$n" --dir "$RUN_TMP" --server-cpus "$SERVER_CPUS"
    --timeout "$NODE_START_TIMEOUT" "--jvm-opts=${BENCH_JVM_OPTS:-}" "--node-args=${BENCH_NODE_ARGS:-}")
  [[ ${BENCH_FAKE_NODES:-} == nginx ]] && args+=(--fake-nginx)
  ((PROFILE)) && args+=(--jfr-first)
  STARTING_NODES="$RUN_TMP/nodes$n.txt"
  harness "$LOAD_CPUS" "$STARTING_NODES" "${args[@]}" || { adopt_nodes; die "the $n-node cluster did not start"; }
  TARGET_URLS=() TARGET_PGIDS=()
  adopt_nodes
  ((PROFILE)) && PROFILE_PID=${TARGET_PGIDS[0]}
  return 0
}

# adopt_nodes: records the nodes that the last start_nodes listed ("URL PID" lines, each PID its
# node's process group) as this run's targets and groups to stop. Also called on exit, so that
# nodes of a start that was interrupted before it returned are stopped too.
adopt_nodes() {
  local node_url pid
  [[ -n ${STARTING_NODES:-} && -f $STARTING_NODES ]] || return 0
  while read -r node_url pid; do
    [[ -n $pid ]] || continue
    TARGET_URLS+=("$node_url"); TARGET_PGIDS+=("$pid"); SPAWNED_PGIDS+=("$pid")
  done <"$STARTING_NODES"
  STARTING_NODES=''
}

# The baseline runs beside the nodes for the whole run (idle between its steps), so that its
# open-loop steps can use the same offered rates as a ringkv scenario.
start_baseline() {
  start_nginx baseline
  BASELINE_URLS=("${TARGET_URLS[@]}"); BASELINE_PGID=${TARGET_PGIDS[0]}
  TARGET_URLS=(); TARGET_PGIDS=()
}

stop_baseline() { stop_group "$BASELINE_PGID" 10; BASELINE_URLS=(); }

stop_targets() {
  local pg
  for pg in "${TARGET_PGIDS[@]}"; do stop_group "$pg" 20; done
  TARGET_PGIDS=(); TARGET_URLS=()
}

# speaks_h2c URL: true when URL answers an HTTP/2 request sent with prior knowledge
# (RFC 9113 §3.3), which is how h2load talks to a cleartext server.
speaks_h2c() {
  [[ $(curl -s -o /dev/null -w '%{http_version}' --http2-prior-knowledge --max-time 3 "$1" || true) == 2 ]]
}
