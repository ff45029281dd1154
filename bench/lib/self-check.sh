#!/usr/bin/env bash
# Fast self-checks of the benchmark scripts: no load, no servers, no network unless the
# venv for charts is missing (then pip installs matplotlib once; without it the chart check
# is skipped). Run by `bench/run.sh --self-check`. Prints "N passed, N failed" last and
# exits non-zero when anything failed.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
REPORT_DIR="$BENCH_DIR/report"
SAMPLE="$REPORT_DIR/testdata/sample-results.json"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringkv-bench-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0

check() { # NAME CMD...: runs CMD, quiet on success, its output on failure
  local name=$1; shift
  if "$@" >"$WORK/out" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$WORK/out" | tail -n 20
  fi
}

lua_parses() { # a LuaJIT-free syntax check: luac/luajit when present, else wrk itself
  local f
  for f in "$BENCH_DIR"/lua/*.lua; do
    if command -v luajit >/dev/null; then luajit -bl "$f" >/dev/null || return 1
    elif command -v luac >/dev/null; then luac -p "$f" || return 1
    fi
  done
  # wrk loads the script (and common.lua through it) before connecting: an unreachable
  # port then fails with a connection error, a script error fails earlier and says so.
  if command -v wrk >/dev/null; then
    for f in get put mix range; do
      if BENCH_LUA_DIR="$BENCH_DIR/lua" timeout 10 wrk -t1 -c1 -d1s -s "$BENCH_DIR/lua/$f.lua" \
        http://127.0.0.1:9/ 2>&1 | grep -Ei 'error|attempt to|expected' | grep -v 'connect' ; then
        return 1
      fi
    done
  fi
}

targets_are_well_formed() {
  python3 "$REPORT_DIR/targets.py" --scenario mix --count 200 --body-dir "$WORK" --out "$WORK/t.txt" \
    http://127.0.0.1:1 http://127.0.0.1:2 || return 1
  python3 - "$WORK/t.txt" <<'EOF'
import sys
blocks = [b for b in open(sys.argv[1]).read().split("\n\n") if b.strip()]
assert len(blocks) == 200, len(blocks)
for b in blocks:
    method, url = b.splitlines()[0].split(" ")
    assert method in ("GET", "PUT") and "/v0/entity?id=" in url, b
    assert (method == "PUT") == (len(b.splitlines()) == 2), b
assert blocks[0].split()[1].startswith("http://127.0.0.1:1/") and blocks[1].split()[1].startswith("http://127.0.0.1:2/")
EOF
}

fragments_parse_tool_output() {
  printf '%s\n' 'Running 1s test' \
    'BENCH_WRK_JSON {"requests":1000,"duration_us":1000000,"bytes":5000,"errors":{"connect":0,"read":0,"write":0,"status":7,"timeout":0},"latency_us":{"p50":100,"p90":200,"p99":300,"p999":400,"max":500,"mean":120.0}}' \
    >"$WORK/wrk.log"
  python3 "$REPORT_DIR/fragment.py" wrk --target ringkv --nodes 1 --scenario get --out "$WORK/w.json" "$WORK/wrk.log" || return 1
  # vegeta CSV: timestamp(ns), code, latency(ns), bytes out, bytes in, error, body, ...
  { for i in $(seq 1 98); do echo "$((1000000000 + i * 1000000)),200,$((i * 1000000)),0,2,,,a,$i,GET,http://x/,"; done
    echo "1200000000,503,1000,0,0,,,a,99,GET,http://x/,"
    echo "1201000000,0,5000000000,0,0,timeout,,a,100,GET,http://x/,"
    echo "1202000000,0,0,0,0,no targets to attack,,a,101,,,"; } >"$WORK/v.csv"
  python3 "$REPORT_DIR/fragment.py" vegeta --target ringkv --nodes 1 --scenario get --rate 100 --percent 50 \
    --expect 200,404 --failed-out "$WORK/failed.txt" --body-file /b --out "$WORK/v.json" "$WORK/v.csv" || return 1
  [[ $(grep -c '^GET http://x/$' "$WORK/failed.txt") == 2 && $(grep -c '^@/b$' "$WORK/failed.txt") == 2 ]] \
    || { echo "failed-out targets:"; cat "$WORK/failed.txt"; return 1; }
  python3 - "$WORK/w.json" "$WORK/v.json" <<'EOF'
import json, sys
w, v = (json.load(open(p)) for p in sys.argv[1:])
assert w["rps"] == 1000 and w["non2xx"] == 7 and w["latency_ms"]["p99"] == 0.3, w
assert v["requests"] == 100, v
assert v["status_codes"] == {"0": 1, "200": 98, "503": 1}, v["status_codes"]
assert abs(v["error_ratio"] - 0.02) < 1e-9 and abs(v["ratio_503"] - 0.01) < 1e-9, v
assert v["latency_ms"]["p50"] == 49.0 and v["latency_ms"]["max"] == 5000.0, v["latency_ms"]
EOF
}

# renders_twice_alike SCRIPT RESULTS DOC IMG_DIR: a report script renders its section into DOC, and
# a second render leaves DOC as the first left it.
renders_twice_alike() {
  "$PYTHON" "$1" "$2" --doc "$3" --img-dir "$4" || return 1
  cp "$3" "$3.first"
  "$PYTHON" "$1" "$2" --doc "$3" --img-dir "$4" || return 1
  cmp -s "$3" "$3.first" || { echo "second render changed the document"; return 1; }
}

render_writes_only_its_section() {
  printf '# Benchmarks\n\nintro stays\n\n## HPACK (http-core)\n\nhpack text stays\n' >"$WORK/doc.md"
  renders_twice_alike "$REPORT_DIR/render.py" "$SAMPLE" "$WORK/doc.md" "$WORK/img" || return 1
  grep -q 'intro stays' "$WORK/doc.md" && grep -q 'hpack text stays' "$WORK/doc.md" || return 1
  grep -q '^## Store under load' "$WORK/doc.md" && grep -q 'BEGIN GENERATED: store-under-load' "$WORK/doc.md" || return 1
  grep -q '| GET | 1 node |' "$WORK/doc.md" || { echo "headline table missing"; return 1; }
  "$PYTHON" "$REPORT_DIR/render.py" "$SAMPLE" --summary >"$WORK/summary.txt" && grep -q 'req/s' "$WORK/summary.txt"
}

charts_are_drawn() {
  [[ -f $WORK/img/throughput.png && -f $WORK/img/latency-1node.png && -f $WORK/img/latency-3node.png ]]
}

assemble_builds_results() {
  mkdir -p "$WORK/run/fragments"
  cp "$WORK/w.json" "$WORK/run/fragments/001-closed.json"
  cp "$WORK/v.json" "$WORK/run/fragments/002-open.json"
  python3 "$REPORT_DIR/assemble.py" --run-dir "$WORK/run" --out "$WORK/r.json" --meta run_id=x \
    --meta duration_s=5 --meta rates_percent=50,100 --tools-json '{"wrk":"wrk 4"}' || return 1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["results"][0]["closed"]["rps"]==1000 and r["config"]["rates_percent"]==[50,100], r' "$WORK/r.json"
}

client_report_unit_checks() { python3 -W error "$REPORT_DIR/test_client_report.py" 2>&1; }

glance_unit_checks() { python3 -W error "$REPORT_DIR/test_glance.py" 2>&1; }

# The page's at-a-glance block is what the files bench/results/current.json names render: a
# changed results file or a hand edit of the block fails here until glance.py is run again.
glance_block_is_current() { python3 "$REPORT_DIR/glance.py" --check --doc "$ROOT/docs/benchmarks.md"; }

# Every results file README.md, docs/*.md and current.json cite is committed: pruning
# bench/results must not leave a dead link.
results_links_exist() { python3 "$REPORT_DIR/results_links.py" --root "$ROOT"; }

results_links_catch_a_dead_link() { # a made-up tree: a cited file missing fails, present passes, an uncited one fails
  local tree=$WORK/links
  mkdir -p "$tree/docs" "$tree/bench/results" "$tree/store/src"
  printf 'see [run](../bench/results/x-20261126T032411Z-62a1a3c.json) and bench/results/x-<time>-<rev>.json\n' >"$tree/docs/a.md"
  printf '# r\n' >"$tree/README.md"
  echo '{"cold_start": null}' >"$tree/bench/results/current.json"
  if python3 "$REPORT_DIR/results_links.py" --root "$tree" >"$WORK/links.out"; then
    echo "a missing cited file passed"; return 1
  fi
  grep -q 'docs/a.md:1: cites bench/results/x-20261126T032411Z-62a1a3c.json' "$WORK/links.out" || { cat "$WORK/links.out"; return 1; }
  : >"$tree/bench/results/x-20261126T032411Z-62a1a3c.json"
  python3 "$REPORT_DIR/results_links.py" --root "$tree" || return 1
  : >"$tree/bench/results/y-20261125T160500Z-5ada1d5-node1.gz"
  if python3 "$REPORT_DIR/results_links.py" --root "$tree" >"$WORK/links.out"; then
    echo "an uncited results file passed"; return 1
  fi
  grep -q 'bench/results/y-20261125T160500Z-5ada1d5-node1.gz: cited by no' "$WORK/links.out" || { cat "$WORK/links.out"; return 1; }
  printf '// measured: bench/results/y-20261125T160500Z-*\n' >"$tree/store/src/A.java"
  python3 "$REPORT_DIR/results_links.py" --root "$tree" || return 1
  echo '{"cold_start": "gone.json"}' >"$tree/bench/results/current.json"
  ! python3 "$REPORT_DIR/results_links.py" --root "$tree" >/dev/null
}

client_report_writes_only_its_section() {
  local sample=$REPORT_DIR/testdata/client-sample.json
  printf '# Benchmarks\n\nintro stays\n\n## HTTP client (JMH)\n\nmethod text stays\n' >"$WORK/cdoc.md"
  renders_twice_alike "$REPORT_DIR/client_report.py" "$sample" "$WORK/cdoc.md" "$WORK/cimg" || return 1
  grep -q 'intro stays' "$WORK/cdoc.md" && grep -q 'method text stays' "$WORK/cdoc.md" || return 1
  grep -q '| 300 ± 25 | 3.00 | 1.50 | \*\*ahead\*\* |' "$WORK/cdoc.md" || { echo "main table row missing"; return 1; }
  grep -q 'POST with `BodyPublishers.ofByteArray`' "$WORK/cdoc.md" || { echo "copying table missing"; return 1; }
  if "$PYTHON" -c 'import matplotlib' 2>/dev/null; then [[ -s $WORK/cimg/client-ratio.png ]] || return 1; fi
}

client_report_refuses_old_results() { # a committed one-fork run: refused, with the way to draw it
  local old=$BENCH_DIR/results/client-20261124T100314Z-8ced2a5.json
  [[ -f $old ]] || { echo "skipped: ${old#"$ROOT"/} is gone"; return 0; }
  cp "$old" "$WORK/old.json"; cp "${old%.json}.meta.json" "$WORK/old.meta.json" 2>/dev/null
  printf '# Benchmarks\n' >"$WORK/odoc.md"
  if python3 "$REPORT_DIR/client_report.py" "$WORK/old.json" --doc "$WORK/odoc.md" --img-dir "$WORK/oimg" 2>"$WORK/old.err"; then
    echo "an old results file was rendered"; return 1
  fi
  grep -q 'git show' "$WORK/old.err" && ! grep -q 'GENERATED' "$WORK/odoc.md"
}

client_bench_composes_passes() { # --dry-run: the JMH options of each pass
  local out
  out=$("$BENCH_DIR/client-bench.sh" --dry-run) || return 1
  grep -q '^main: -f 3 -wi 2 -w 2s -i 5 -r 1s .*-p publisher=NO_COPY -p size=1\\,8192\\,122880\\,1048576' <<<"$out" || { echo "$out"; return 1; }
  grep -q '^copying: .*-p client=JDK\\,RING -p method=POST -p publisher=JDK -p size=8192\\,1048576 -p tls=false' <<<"$out" || { echo "$out"; return 1; }
  out=$("$BENCH_DIR/client-bench.sh" --dry-run --quick) || return 1
  [[ $(wc -l <<<"$out") == 1 ]] && grep -q '^main: -f 3 -wi 1 -w 1s -i 3 -r 1s .*-p size=1 ' <<<"$out" || { echo "$out"; return 1; }
  out=$(CLIENT_BENCH_JMH_ARGS="-p client=RING,JETTY -p size=1 -i 7 -prof jfr" "$BENCH_DIR/client-bench.sh" --dry-run) || return 1
  grep -q '^main: -f 3 -wi 2 -w 2s -i 7 -r 1s -p client=RING\\,JETTY -p publisher=NO_COPY -p size=1 .* -prof jfr$' <<<"$out" || { echo "$out"; return 1; }
  grep -q '^copying: .*-p client=RING -p method=POST -p publisher=JDK -p size=1 ' <<<"$out" || { echo "$out"; return 1; }
  out=$(CLIENT_BENCH_JMH_ARGS="-p method=GET" "$BENCH_DIR/client-bench.sh" --dry-run 2>/dev/null) || return 1
  [[ $(wc -l <<<"$out") == 1 ]] || { echo "copying pass ran without POST: $out"; return 1; }
  ! CLIENT_BENCH_JMH_ARGS="-p publisher=JDK" "$BENCH_DIR/client-bench.sh" --dry-run >/dev/null 2>&1
}

# shellcheck source=bench/lib/common.sh
source "$BENCH_DIR/lib/common.sh"
# shellcheck source=bench/lib/tools.sh
source "$BENCH_DIR/lib/tools.sh"
PYTHON=python3
if [[ ${BENCH_SELF_CHECK_NO_VENV:-0} != 1 ]]; then ensure_venv 2>/dev/null; fi

shell_parses() { local f; for f in "$BENCH_DIR"/run.sh "$BENCH_DIR"/client-bench.sh "$BENCH_DIR"/hpack-bench.sh "$BENCH_DIR"/dashboard-screenshot.sh "$BENCH_DIR"/lib/*.sh; do bash -n "$f" || return 1; done; }
python_compiles() { python3 -c 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' "$REPORT_DIR"/*.py "$BENCH_DIR"/*.py; }

free_ports_are_distinct() { # the bash harness's free_ports, through cluster_harness.free_ports
  local ports
  read -r -a ports <<<"$(free_ports 4)"
  [[ ${#ports[@]} == 4 && $(printf '%s\n' "${ports[@]}" | sort -u | wc -l) == 4 ]] || { echo "got: ${ports[*]}"; return 1; }
}

cluster_harness_refuses_bad_input() { # exit 2 and a message for each, before anything starts
  local bad u=http://127.0.0.1:9
  for bad in "" "frobnicate" "ports 0" "ports x" "start --nodes 0 --name a --dir $WORK --server-cpus 0" \
             "start --nodes 1 --name a --dir $WORK --server-cpus x" "start --nodes 1 --name a --server-cpus 0" \
             "prefill --keys 0 $u" "prefill --keys 10 not-a-url" "prefill --keys 10 --expect 2000 $u" \
             "prefill --keys 10 --load-cpus one $u" "prefill --keys 10" "settle --pids x --load-cpus 1 $u" \
             "settle --pids 1 --load-cpus 1 --jit-percent 200 $u" "settle --pids 1 --load-cpus 1 --scenario cas $u" \
             "settle --pids 1 --load-cpus 1 --connections 1 $u $u"; do
    # shellcheck disable=SC2086 # a command and its options
    python3 "$BENCH_DIR/cluster_harness.py" $bad >/dev/null 2>"$WORK/harness.err"
    [[ $? == 2 ]] && grep -qi 'error\|usage' "$WORK/harness.err" || { echo "not refused: '$bad'"; cat "$WORK/harness.err"; return 1; }
  done
  python3 "$BENCH_DIR/cluster_harness.py" start --help | grep -q -- '--fake-nginx'
}
prefill_writes_again_what_was_not_stored() { # a local stub that sheds some first PUTs: stored in pass 2; one never stored: an error
  [[ -x $BENCH_DIR/.tools/vegeta ]] || { echo "skipped: no bench/.tools/vegeta (./ringkv bench builds it)"; return 0; }
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - "$BENCH_DIR/.tools/vegeta" <<'EOF2'
import collections, http.server, sys, threading
import cluster_harness as h
seen, lock = collections.Counter(), threading.Lock()
class Stub(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        key = self.path.rsplit("=", 1)[1]
        with lock:
            seen[key] += 1
            first = seen[key] == 1
        # every 7th key shed the first time, key0000005 always
        self.send_response(503 if key == "key0000005" and self.server.hopeless or first and int(key[3:]) % 7 == 0 else 201)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
server.hopeless = False
threading.Thread(target=server.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d" % server.server_port
lines = []
h.prefill(url, 50, b"v" * 10, workers=4, passes=2, vegeta_bin=sys.argv[1], log=lines.append)
assert len(seen) == 50 and sum(seen.values()) == 50 + 8, seen
assert "8 keys not stored in pass 1" in lines[1], lines
server.hopeless, lines[:] = True, []
seen.clear()
try:
    h.prefill(url, 20, b"v", workers=4, passes=3, vegeta_bin=sys.argv[1], log=lines.append)
    raise AssertionError("a key never stored passed")
except SystemExit as e:
    assert "1 keys not stored after 3 passes" in str(e) and "key0000005" in str(e) and "'503': 1" in str(e), e
assert seen["key0000005"] == 3, seen
server.shutdown()
EOF2
}
metrics_cost_summarises() { # the --metrics-cost step's summary from made-up runs: per-round ratios, interval, verdict
  python3 "$BENCH_DIR/metrics_cost.py" --help | grep -q -- '--rounds' || return 1
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import metrics_cost as m
def run(rnd, node, rps):
    return {"round": rnd, "node": node, "rps": rps, "requests": int(rps * 10), "cpu_us_per_request": 1e6 / rps,
            "latency_us": {"p50": 900, "p99": 2500}, "non_2xx": int(rps * 2)}
assert m.order(1) == ["off", "on"] and m.order(2) == ["on", "off"]
runs = [run(1, "off", 100000), run(1, "on", 99000), run(2, "on", 101000), run(2, "off", 101500),
        run(3, "off", 98000), run(3, "on", 97500)]
text = m.summarise(runs)
assert "per round: 1.010, 1.005, 1.005" in text, text
assert "within the target" in text, text
slow = [run(r, "off", 100000) for r in (1, 2, 3)] + [run(r, "on", 90000 + r) for r in (1, 2, 3)]
assert "over the target" in m.summarise(slow), m.summarise(slow)
noisy = [run(1, "off", 100000), run(1, "on", 90000), run(2, "off", 100000), run(2, "on", 110000)]
assert "inconclusive" in m.summarise(noisy), m.summarise(noisy)
assert "no interval" in m.summarise(runs[:2]), m.summarise(runs[:2])
EOF
}
h2_abuse_frames_and_summary() { # the --h2-abuse step: hand-built frames and HPACK, its summary from made-up phases
  python3 "$BENCH_DIR/h2_abuse.py" --help | grep -q -- '--reset-rate' || return 1
  ! python3 "$BENCH_DIR/h2_abuse.py" --rounds 0 2>/dev/null || { echo "--rounds 0 not refused"; return 1; }
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import h2_abuse as h
# RFC 9113 §4.1 frame header; RFC 7541 C.1 integer examples; the static-table request block
assert h.window_update(5, 0) == bytes.fromhex("00000408000000000500000000"), h.window_update(5, 0).hex()
assert h.frame(h.SETTINGS, h.ACK, 0) == bytes.fromhex("000000040100000000")
assert h.hpack_int(10, 5, 0) == b"\x0a" and h.hpack_int(1337, 5, 0) == bytes([31, 154, 10])
assert h.request_block("GET", "/a") == bytes.fromhex("020347455486") + b"\x04\x02/a\x01\x09127.0.0.1"
assert h.settings_of(bytes.fromhex("00030000006400040000ffff")) == {3: 100, 4: 65535}
def phase(rnd, name, p99, heap):
    p = {"round": rnd, "phase": name, "requests": 1000, "non_200": 0, "p50_ms": 1.0, "p99_ms": p99, "max_ms": 9.0,
         "heap_max_mib": heap, "rss_max_mib": 300.0, "node_alive": True}
    if name != "idle":
        p["attack"] = {"connections": 2, "closed_by_node": 1, "bytes_sent": 10, "streams": 5}
    return p
meta = {"rate": 1000}
ok = [phase(r, n, 2.0 if n == "idle" else 2.5, 100.0 if n == "idle" else 110.0) for r in (1, 2, 3) for n in h.PHASES]
text = h.summarise(ok, meta)
assert "flood: p99 / idle p99 per round 1.25, 1.25, 1.25" in text, text
assert text.count("within the target") == 6, text
bad = [phase(r, n, 2.0 if n == "idle" else 9.0 + r, 100.0 if n == "idle" else 500.0 + r) for r in (1, 2, 3) for n in h.PHASES]
assert h.summarise(bad, meta).count("over the target") == 6, h.summarise(bad, meta)
dead = ok[:2]
dead[1]["node_alive"] = False
assert "THE NODE DIED during flood in round 1" in h.summarise(dead, meta), h.summarise(dead, meta)
assert "no interval" in h.summarise(ok[:4], meta)
EOF
}
handoff_refuses_bad_input() { # exit 2 and a message for each, before anything runs
  local bad
  for bad in "--rate 0" "--rate nan" "--partition-minutes -1" "--seed x" "--no-such-option"; do
    # shellcheck disable=SC2086 # an option and its value
    python3 "$BENCH_DIR/handoff.py" $bad 2>"$WORK/handoff.err"
    [[ $? == 2 ]] && grep -q 'error' "$WORK/handoff.err" || { echo "not refused: $bad"; return 1; }
  done
  python3 "$BENCH_DIR/handoff.py" --help | grep -q -- '--partition-minutes'
}
large_hints_refuses_bad_input_and_summarises() { # exit 2 for bad options; the summary's verdicts from made-up rounds
  local bad
  for bad in "--rounds 0" "--timeout nan" "--value-bytes x" "--no-such-option"; do
    # shellcheck disable=SC2086 # an option and its value
    python3 "$BENCH_DIR/large_hints.py" $bad 2>"$WORK/large-hints.err"
    [[ $? == 2 ]] && grep -q 'error' "$WORK/large-hints.err" || { echo "not refused: $bad"; return 1; }
  done
  python3 "$BENCH_DIR/large_hints.py" --help | grep -q -- '--large-bytes' || return 1
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import argparse
import large_hints as m
args = argparse.Namespace(values=3, value_bytes=10, large_bytes=100, large_at=1)
vals = m.round_values(2, args)
assert [k for k, _ in vals] == ["lh-r2-000", "lh-r2-001", "lh-r2-002", "lh-r2-003"], vals
assert [len(v) for _, v in vals] == [10, 100, 10, 10], [len(v) for _, v in vals]
assert m.round_values(2, args) == vals  # the same bytes every time for a round
meta = {"values": 300, "value_bytes": 102400, "large_bytes": 15 << 20, "anti_entropy": "PT24H interval",
        "target_s": 60, "timeout_s": 180}
def rnd(r, held):
    c = {"queued": 301.0, "stored": 301.0, "replayed": 0.0, "dropped": 0.0, "anti_entropy_rounds": 0.0}
    return {"round": r, "values": 301, "held_all_s": held, "held_at_end": 301 if held else 150, "ready_s": 17.0,
            "values_intact": True if held else None, "hints_at_restart": [c, c], "counters_at_end": [c, c, c]}
assert "met, the interval below it" in m.summarise({"meta": meta, "rounds": [rnd(1, 20.0), rnd(2, 22.0), rnd(3, 21.0)]})
assert "missed, the interval above it" in m.summarise({"meta": meta, "rounds": [rnd(1, 90.0), rnd(2, 92.0)]})
assert "inconclusive" in m.summarise({"meta": meta, "rounds": [rnd(1, 20.0), rnd(2, 90.0)]})
text = m.summarise({"meta": meta, "rounds": [rnd(1, 20.0), rnd(2, None)]})
assert "1 of 2 rounds did not see node 3 hold every key within 180 s" in text, text
assert "no interval" in m.summarise({"meta": meta, "rounds": [rnd(1, 20.0)]})
EOF
}
up_start_summarises() { # the --cold-start --up step's summary from made-up rounds
  python3 "$BENCH_DIR/cold_start.py" --up --help | grep -q -- '--idle-window' || return 1
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import up_start as u
def rnd(r, c, ready, cpu):
    return {"round": r, "config": c, "ready_s": ready, "all_ready_s": max(ready), "node_pids": [1, 2, 3],
            "idle": [{"cpu_pct_of_a_core": cpu, "jit_pct_of_a_core": cpu / 2},
                     {"cpu_pct_of_a_core": cpu / 2, "jit_pct_of_a_core": 0.0}]}
meta = {"config_names": ["up", "up@baseline"], "idle_windows": 2, "idle_window_s": 10}
runs = [rnd(1, "up", [3.0, 3.5, 4.0], 10.0), rnd(1, "up@baseline", [30.0, 31.0, 32.0], 170.0),
        rnd(2, "up", [3.2, 3.4, 4.2], 12.0), rnd(2, "up@baseline", [29.0, 30.0, 33.0], 160.0)]
text = u.summarise({"meta": meta, "runs": runs})
assert "3.0/3.5/4.0  3.2/3.4/4.2" in text, text
assert "idle CPU % 10-20 s" in text, text
assert text.splitlines()[1].split()[:2] == ["up", "4.1"], text
runs.append({"round": 3, "config": "up@baseline", "failed": "not every node answered 200"})
text = u.summarise({"meta": meta, "runs": runs})
assert "up@baseline    round 3 failed: not every node answered 200" in text, text
assert "failed  failed" not in text and "33.0/failed" not in text, text
EOF
}
cas_throughput_refuses_bad_input_and_summarises() { # exit 2 for bad options; the ratio from made-up runs
  local bad
  for bad in "--rounds 0" "--connections 0" "--keys-per-connection x" "--no-such-option"; do
    # shellcheck disable=SC2086 # an option and its value
    python3 "$BENCH_DIR/cas_throughput.py" $bad 2>"$WORK/cas.err"
    [[ $? == 2 ]] && grep -q 'error' "$WORK/cas.err" || { echo "not refused: $bad"; return 1; }
  done
  python3 "$BENCH_DIR/cas_throughput.py" --help | grep -q -- '--keys-per-connection' || return 1
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import cas_throughput as m
def run(scenario, rnd, requests):
    return {"scenario": scenario, "round": rnd, "requests": requests, "duration_us": 10_000_000,
            "latency_us": {"p99": 5000}, "errors": {"status": 0}}
doc = {"command": "x", "run_id": "r", "rounds": 2, "duration": 10, "warmup": 5, "connections": 8,
       "runs": [run("plain", 0, 40000), run("if-match", 0, 20000), run("plain", 1, 40000), run("if-match", 1, 20000)]}
text = m.summarise(doc)
assert "if-match / plain: 0.50x +- 0.00" in text, text
assert "plain          4000 req/s" in text, text
EOF
}
etcd_compare_refuses_bad_input_and_summarises() { # exit 2 for bad options; p99 and CPU ratios from made-up runs
  local bad
  for bad in "--rounds 0" "--rates x" "--rates 0" "--keys 0" "--etcd-reads eventual" "--no-such-option"; do
    # shellcheck disable=SC2086 # an option and its value
    python3 "$BENCH_DIR/etcd_compare.py" $bad 2>"$WORK/etcd.err"
    [[ $? == 2 ]] && grep -q 'error' "$WORK/etcd.err" || { echo "not refused: $bad"; return 1; }
  done
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF'
import etcd_compare as m
def run(system, op, rnd, p99, cpu):
    return {"system": system, "op": op, "rate": 500, "round": rnd, "requests": 5000, "failed": 0,
            "p99_ms": p99, "cpu_us_per_request": cpu}
runs = []
for rnd in range(2):
    runs += [run("ringkv", "get", rnd, 2.0, 300.0), run("etcd", "get", rnd, 1.0, 150.0),
             run("ringkv", "put", rnd, 3.0, 400.0), run("etcd", "put", rnd, 6.0, 400.0)]
doc = {"rounds": 2, "duration": 10, "etcd_reads": "serializable", "keys": 100, "rates": [500], "runs": runs}
text = m.summarise(doc)
assert "get     500/s p99              2.00x +- 0.00" in text, text
assert "put     500/s p99              0.50x +- 0.00" in text, text
assert "put     500/s CPU per request  1.00x +- 0.00" in text, text
EOF
}
membership_refuses_bad_input_and_summarises() { # exit 2 for bad options; read-back rule and summary from made-up rounds
  local bad
  for bad in "--rounds 0" "--keys 0" "--steps grow,resize" "--steps shrink" "--steps shrink,grow" "--value-bytes 8" \
             "--no-such-option"; do
    # shellcheck disable=SC2086 # an option and its value
    python3 "$BENCH_DIR/membership.py" $bad 2>"$WORK/membership.err"
    [[ $? == 2 ]] && grep -q 'error' "$WORK/membership.err" || { echo "not refused: $bad"; return 1; }
  done
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BENCH_DIR" python3 - <<'EOF2'
import membership as m
w = m.Writes()
w.add(7, 100, 1, True); w.add(7, 200, 2, False); w.add(7, 300, 3, True); w.add(7, 400, 4, False)
assert w.acceptable(7) == {3, 4}, w.acceptable(7)  # the last acknowledged, or a later unanswered one
w.add(8, 100, 1, False)
assert w.acceptable(8) == {0, 1}, w.acceptable(8)  # nothing acknowledged: the preload, or the unanswered write
assert m.value(3, 32) == b"g00000003-" + b"v" * 22
def load(p99, failed):
    return {"requests": 1000, "failed": failed, "failed_by_status": {"PUT 504": failed} if failed else {},
            "get_p99_ms": p99, "put_p99_ms": p99}
def rnd(r, grow_p99, failed):
    step = {"step": "grow", "duration_s": 20.0, "load": load(grow_p99, failed), "streamed_bytes": 12e6, "streaming_s": 6.0,
            "streamed_mb_per_s": 2.0, "unique_value_bytes": 4e6, "cpu_cores": 1.5, "nodes": {"503_server_overload": 3}}
    steady = dict(load(10.0, 0), cpu_cores=1.0, nodes={})
    return {"round": r, "steady": steady, "steps": [step], "load_errors": {},
            "owners": {"nodes": {"a": 5, "b": 5, "c": 5}, "copies_histogram": {"0": 0, "3": 5}, "keys_not_on_3": 0},
            "read_back": {"keys_checked": 5, "acknowledged_puts": 9, "mismatches": 0, "first_mismatches": []}}
meta = {"keys": 5, "value_bytes": 1024, "rate": 10, "steps": ["grow"], "steady_s": 10}
text = m.summarise({"meta": meta, "rounds": [rnd(1, 15.0, 0), rnd(2, 17.0, 0)]})
assert "grow     20.0 +- 0.0" in text and "1.60 +- 1.27" in text and "inconclusive" in text, text
assert "the nodes counted: 503_server_overload 6" in text, text
assert "NOT met" in m.summarise({"meta": meta, "rounds": [rnd(1, 15.0, 2)]})
assert " met " in m.summarise({"meta": meta, "rounds": [rnd(1, 15.0, 0)]})
# No load (--rate 0): every p99 is NaN; several rounds still summarise, as "no load".
idle = [rnd(r, float("nan"), 0) for r in (1, 2)]
for r in idle:
    r["steady"]["get_p99_ms"] = r["steady"]["put_p99_ms"] = float("nan")
text = m.summarise({"meta": dict(meta, rate=0), "rounds": idle})
assert "no load" in text and "GET p99 - ms" in text, text
EOF2
}
help_works() { "$BENCH_DIR/run.sh" --help | grep -q -- '--quick'; }
bad_option_is_refused() { ! "$BENCH_DIR/run.sh" --no-such-option 2>/dev/null; }

check "shell scripts parse" shell_parses
check "python scripts compile" python_compiles
check "free_ports gives distinct ports" free_ports_are_distinct
check "cluster_harness.py refuses bad input" cluster_harness_refuses_bad_input
check "the prefill writes again the keys that were not stored" prefill_writes_again_what_was_not_stored
check "the metrics-cost step summarises its runs" metrics_cost_summarises
check "the cold-start --up step summarises its rounds" up_start_summarises
check "wrk Lua scripts load" lua_parses
check "--help describes the options" help_works
check "an unknown option is refused" bad_option_is_refused
check "the handoff step refuses bad input" handoff_refuses_bad_input
check "the h2-abuse step's frames and summary" h2_abuse_frames_and_summary
check "the large-hints step refuses bad input and summarises" large_hints_refuses_bad_input_and_summarises
check "the cas-throughput step refuses bad input and summarises" cas_throughput_refuses_bad_input_and_summarises
check "the etcd step refuses bad input and summarises" etcd_compare_refuses_bad_input_and_summarises
check "the membership step refuses bad input and summarises" membership_refuses_bad_input_and_summarises
check "vegeta targets are well formed" targets_are_well_formed
check "fragments parse wrk and vegeta output" fragments_parse_tool_output
check "assemble joins fragments into results" assemble_builds_results
check "render rewrites only its own section" render_writes_only_its_section
check "client report: intervals and the ahead rule" client_report_unit_checks
check "client report rewrites only its own section" client_report_writes_only_its_section
check "client report refuses a one-fork results file" client_report_refuses_old_results
check "client-bench.sh composes its JMH passes" client_bench_composes_passes
check "at a glance: target verdicts and the pending client line" glance_unit_checks
check "docs/benchmarks.md's at-a-glance block is current" glance_block_is_current
check "every results file the docs cite is committed, and every committed one cited" results_links_exist
check "the results-link check fails on a dead link and an uncited file" results_links_catch_a_dead_link
if "$PYTHON" -c 'import matplotlib' 2>/dev/null; then
  check "charts are drawn" charts_are_drawn
else
  echo "skip charts are drawn (matplotlib unavailable)"
fi
echo "self-check: $passed passed, $failed failed"
((failed == 0))
