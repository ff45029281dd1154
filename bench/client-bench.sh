#!/usr/bin/env bash
# HTTP client benchmark: JDK 25's java.net.http client, Jetty 12's client and ringkv's
# RingHttpClient against one local Jetty 12 server (JMH, io.ringkv.bench.HttpClientBenchmark).
# Writes bench/results/client-<UTC time>-<git rev>.json (JMH's JSON) plus .meta.json, and the
# "HTTP client (JMH)" section of docs/benchmarks.md with docs/img/client-*.png.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
# Reuses the store benchmark's logging and its venv with matplotlib (bench/.venv).
# shellcheck source=bench/lib/common.sh
source "$BENCH_DIR/lib/common.sh"
# shellcheck source=bench/lib/tools.sh
source "$BENCH_DIR/lib/tools.sh"

usage() {
  cat <<'USAGE'
Usage: bench/client-bench.sh [--quick] [--no-build] [--no-render] [--render RESULTS.json]

  --quick       1-byte bodies only, 1 s warm-up + 1 x 2 s measurement per combination
                (48 forks: about 7-8 minutes on a busy 2-core machine)
  (default)     the full matrix, 2 x 2 s warm-up + 2 x 2 s measurement (192 forks; see
                docs/benchmarks.md for its duration)
  --no-build    use the existing bench/target/benchmarks.jar
  --no-render   only run and write the results
  --render F    only re-render docs/benchmarks.md and the chart from results file F
  Environment: CLIENT_BENCH_JMH_ARGS adds JMH options (e.g. "-p client=RING -prof jfr").
USAGE
}

QUICK=0 BUILD=1 RENDER=1 RENDER_ONLY=''
while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --no-build) BUILD=0 ;;
    --no-render) RENDER=0 ;;
    --render) RENDER_ONLY=${2:?--render needs a results file}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
  shift
done

export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export MAVEN_OPTS=${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}
JAVA="$JAVA_HOME/bin/java"

render() { # RESULTS_JSON
  ensure_venv
  "$PYTHON" "$BENCH_DIR/report/client_report.py" "$1" --doc "$ROOT/docs/benchmarks.md" --img-dir "$ROOT/docs/img"
}

if [[ -n $RENDER_ONLY ]]; then render "$RENDER_ONLY"; exit 0; fi

if ((QUICK)); then
  SIZES=1 WARMUP=(-wi 1 -w 1s) MEASURE=(-i 1 -r 2s)
else
  SIZES=1,8192,122880,1048576 WARMUP=(-wi 2 -w 2s) MEASURE=(-i 2 -r 2s)
fi

if ((BUILD)); then
  log "building bench (mvn -pl bench -am package)"
  (cd "$ROOT" && { mvn -B -q -o -pl bench -am -DskipTests package || mvn -B -q -pl bench -am -DskipTests package; }) >&2 \
    || die "build failed"
fi

GITREV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
GITREV_FULL=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown) # the code the jar was built from
RUN_ID="client-$(date -u +%Y%m%dT%H%M%SZ)-$GITREV"
mkdir -p "$BENCH_DIR/results"
RESULTS="$BENCH_DIR/results/$RUN_ID.json"
LOG=$(mktemp "${TMPDIR:-/tmp}/ringkv-clientbench.XXXXXX.log")
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(date +%s)

log "run $RUN_ID (quick=$QUICK, sizes $SIZES); JMH log in $LOG"
# -foe false: a combination a client cannot do fails its setup ("SKIPPED: ...") and JMH goes on.
# shellcheck disable=SC2086
"$JAVA" -jar "$BENCH_DIR/target/benchmarks.jar" 'io.ringkv.bench.HttpClientBenchmark' \
  -f 1 "${WARMUP[@]}" "${MEASURE[@]}" -p size="$SIZES" -foe false \
  -prof gc -prof io.ringkv.bench.client.ClientProfiler \
  -jvmArgs '-Xms1g -Xmx1g' -rf json -rff "$RESULTS" ${CLIENT_BENCH_JMH_ARGS:-} 2>&1 | tee "$LOG" \
  | grep --line-buffered -E '^# (Benchmark|Parameters):|SKIPPED|^Iteration|Exception' >&2 || true
[[ -s $RESULTS ]] || die "JMH wrote no results; see $LOG"

python3 - "$RESULTS.meta" "$LOG" <<PY
import json, re, sys, os
log = open(sys.argv[2], errors="replace").read()
skipped = sorted(set(re.findall(r"SKIPPED: ([^\n]*)", log)))
meta = {"run_id": "$RUN_ID", "git_rev": "$GITREV_FULL",
        "quick": $QUICK == 1, "sizes": "$SIZES", "warmup": "${WARMUP[*]}", "measurement": "${MEASURE[*]}",
        "cores": os.cpu_count(), "loadavg_before": "$LOAD_BEFORE", "loadavg_after": open("/proc/loadavg").read().split()[:3],
        "seconds": $(date +%s) - $T0, "extra_jmh_args": "${CLIENT_BENCH_JMH_ARGS:-}", "skipped": skipped}
json.dump(meta, open(sys.argv[1], "w"), indent=1)
PY
mv "$RESULTS.meta" "${RESULTS%.json}.meta.json"
log "results: ${RESULTS#"$ROOT"/} ($(( $(date +%s) - T0 )) s)"
((RENDER)) && render "$RESULTS"
exit 0
