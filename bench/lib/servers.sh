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

# start_nodes N: N ringkv node processes, each with its own data dir, all given the same
# --cluster list. With BENCH_FAKE_NODES=nginx, N nginx instances stand in for the nodes
# (used to test the harness itself before the node exists).
start_nodes() {
  local n=$1 ports i url urls=() cluster dir jvm_opts secret
  if [[ ${BENCH_FAKE_NODES:-} == nginx ]]; then
    local fake_urls=() fake_pgids=()
    for ((i = 1; i <= n; i++)); do
      start_nginx "fake-node$i"
      fake_urls+=("${TARGET_URLS[0]}"); fake_pgids+=("${TARGET_PGIDS[0]}")
    done
    TARGET_URLS=("${fake_urls[@]}"); TARGET_PGIDS=("${fake_pgids[@]}")
    return 0
  fi
  read -r -a ports <<<"$(free_ports "$n")"
  for i in "${!ports[@]}"; do urls+=("http://127.0.0.1:${ports[i]}"); done
  cluster=$(IFS=,; echo "${urls[*]}")
  TARGET_URLS=("${urls[@]}"); TARGET_PGIDS=()
  # Node-to-node requests are authenticated: every node of the cluster gets the same fresh secret.
  secret=$(head -c 32 /dev/urandom | base64)
  for i in "${!ports[@]}"; do
    dir="$RUN_TMP/nodes$n/node$((i + 1))"; mkdir -p "$dir/data"
    jvm_opts=${BENCH_JVM_OPTS:-}
    # With --profile, the first node of each cluster records for its whole life;
    # profile_dump cuts the GET and PUT windows out of that recording.
    if [[ $PROFILE == 1 && $i == 0 ]]; then
      jvm_opts+=" -XX:StartFlightRecording=name=bench,settings=profile,disk=true,maxage=1h,filename=$dir/node.jfr,dumponexit=true"
    fi
    # shellcheck disable=SC2086 # BENCH_NODE_ARGS is a list of extra flags
    RINGKV_CLUSTER_SECRET="$secret" RINGKV_JVM_OPTS="$jvm_opts" spawn "$SERVER_CPUS" "$dir/node.log" \
      "$ROOT/ringkv" serve --port "${ports[i]}" --data "$dir/data" --host 127.0.0.1 --cluster "$cluster" \
      ${BENCH_NODE_ARGS:-}
    TARGET_PGIDS+=("$SPAWNED_PID")
    [[ $PROFILE == 1 && $i == 0 ]] && PROFILE_PID=$SPAWNED_PID
  done
  for i in "${!ports[@]}"; do
    wait_http_ok "${urls[i]}/v0/status" "${TARGET_PGIDS[i]}" "$NODE_START_TIMEOUT" "$RUN_TMP/nodes$n/node$((i + 1))/node.log"
  done
  log "$n node(s) ready: ${urls[*]} (CPUs $SERVER_CPUS)"
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
