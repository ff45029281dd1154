#!/usr/bin/env bash
# HTTP client benchmark: JDK 25's java.net.http client, Jetty 12's client and ringkv's
# RingHttpClient against one local Jetty 12 server (JMH, io.ringkv.bench.HttpClientBenchmark).
# Two JMH passes: "main" (every combination; POST bodies of both java.net.http clients through
# the non-copying publisher) and "copying" (POST with BodyPublishers.ofByteArray, JDK and ours,
# a subset). Writes bench/results/client-<UTC time>-<git rev>.json (the JMH JSON of both passes
# in one array) plus .meta.json, and the "HTTP client (JMH)" section of docs/benchmarks.md with
# docs/img/client-ratio.png.
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
Usage: bench/client-bench.sh [--quick] [--forks N] [--no-build] [--no-render] [--render RESULTS.json]
                             [--dry-run]

  (default)     the full matrix, main pass (192 combinations) and copying pass (16), each
                combination in 3 forks of 2 x 2 s warm-up + 5 x 1 s measurement: 624 forks,
                about 2 hours (docs/benchmarks.md, "HTTP client (JMH)")
  --quick       1-byte bodies only, main pass only: 48 combinations x 3 forks of
                1 x 1 s warm-up + 3 x 1 s measurement (about 16-17 minutes)
  --forks N     forks per combination (default 3; fewer than 3 gives intervals that leave
                out the fork-to-fork noise, and the report says so)
  --no-build    use the existing bench/target/benchmarks.jar
  --no-render   only run and write the results
  --render F    only re-render docs/benchmarks.md and the chart from results file F
  --dry-run     print the JMH command of each pass and exit
  Environment: CLIENT_BENCH_JMH_ARGS adds JMH options (e.g. "-p client=RING -prof jfr").
    Its "-p NAME=VALUES" replace the script's values of NAME in both passes, except that the
    copying pass keeps method=POST and clients JDK,RING, narrowed to those you name (the pass
    is left out when nothing remains); publisher belongs to the passes and cannot be set.
    Its -f, -wi, -w, -i, -r replace the script's.
USAGE
}

QUICK=0 BUILD=1 RENDER=1 RENDER_ONLY='' FORKS=3 DRY_RUN=0
while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --forks) FORKS=${2:?--forks needs a number}; shift ;;
    --no-build) BUILD=0 ;;
    --no-render) RENDER=0 ;;
    --render) RENDER_ONLY=${2:?--render needs a results file}; shift ;;
    --dry-run) DRY_RUN=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
  shift
done
[[ $FORKS =~ ^[1-9][0-9]*$ ]] || die "--forks must be a positive number"

export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export MAVEN_OPTS=${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}
JAVA="$JAVA_HOME/bin/java"

render() { # RESULTS_JSON
  ensure_venv
  "$PYTHON" "$BENCH_DIR/report/client_report.py" "$1" --doc "$ROOT/docs/benchmarks.md" --img-dir "$ROOT/docs/img"
}

if [[ -n $RENDER_ONLY ]]; then render "$RENDER_ONLY"; exit 0; fi

# ---- what each pass measures ------------------------------------------------------------
# Timing: warm-up 2 x 2 s because one fork's throughput rises and falls back 4-6 s in (see
# "Phase change" in docs/benchmarks.md); 5 one-second iterations, since the interval is taken
# over the forks' means and a fork's mean over 5 s is as good as over 10 s for that.
declare -A TIMING=([-f]=$FORKS [-wi]=2 [-w]=2s [-i]=5 [-r]=1s)
declare -A MAIN=([size]=1,8192,122880,1048576)
declare -A COPYING=([client]=JDK,RING [method]=POST [size]=8192,1048576 [tls]=false)
COPYING_PASS=1
if ((QUICK)); then
  TIMING=([-f]=$FORKS [-wi]=1 [-w]=1s [-i]=3 [-r]=1s)
  MAIN=([size]=1)
  COPYING_PASS=0 # the copy of a 1-byte body costs nothing worth a pass
fi

# CLIENT_BENCH_JMH_ARGS, split into -p NAME=VALUES, timing options and the rest (passed on).
declare -A USER_P=()
EXTRA=()
# shellcheck disable=SC2206 # word splitting is how the variable has always been read
USER_ARGS=(${CLIENT_BENCH_JMH_ARGS:-})
for ((i = 0; i < ${#USER_ARGS[@]}; i++)); do
  arg=${USER_ARGS[i]}
  case $arg in
    -p | -f | -wi | -w | -i | -r)
      ((i + 1 < ${#USER_ARGS[@]})) || die "CLIENT_BENCH_JMH_ARGS: $arg needs a value"
      value=${USER_ARGS[i + 1]}; i=$((i + 1))
      if [[ $arg == -p ]]; then
        [[ $value == *=* ]] || die "CLIENT_BENCH_JMH_ARGS: -p $value is not NAME=VALUES"
        name=${value%%=*}
        [[ $name != publisher ]] || die "CLIENT_BENCH_JMH_ARGS: publisher is set by the passes (main NO_COPY, copying JDK)"
        USER_P[$name]=${USER_P[$name]:+${USER_P[$name]},}${value#*=}
      else
        TIMING[$arg]=$value
      fi ;;
    *) EXTRA+=("$arg") ;;
  esac
done

# intersect "A,B,C" "B,C,D" -> "B,C" (in the order of the first list)
intersect() {
  local out='' v
  local -a first second
  IFS=, read -r -a first <<<"$1"; IFS=, read -r -a second <<<"$2"
  for v in "${first[@]}"; do
    [[ " ${second[*]} " == *" $v "* ]] && out+=${out:+,}$v
  done
  printf '%s' "$out"
}

for name in "${!USER_P[@]}"; do
  MAIN[$name]=${USER_P[$name]}
  case $name in
    client | method) COPYING[$name]=$(intersect "${COPYING[$name]}" "${USER_P[$name]}") ;;
    *) COPYING[$name]=${USER_P[$name]} ;;
  esac
done
MAIN[publisher]=NO_COPY COPYING[publisher]=JDK
if ((COPYING_PASS)) && [[ -z ${COPYING[client]} || -z ${COPYING[method]} ]]; then
  log "copying pass left out: CLIENT_BENCH_JMH_ARGS excludes the JDK and our client, or POST"
  COPYING_PASS=0
fi
PASSES=(main)
((COPYING_PASS)) && PASSES+=(copying)

# jmh_args PASS: the JMH options of one pass, one per line (so they survive as words).
jmh_args() {
  local -n params=${1^^}
  local opt name
  for opt in -f -wi -w -i -r; do printf '%s\n%s\n' "$opt" "${TIMING[$opt]}"; done
  for name in $(printf '%s\n' "${!params[@]}" | sort); do printf -- '-p\n%s=%s\n' "$name" "${params[$name]}"; done
  printf '%s\n' -foe false -prof gc -prof io.ringkv.bench.client.ClientProfiler -jvmArgs '-Xms1g -Xmx1g'
  ((${#EXTRA[@]} == 0)) || printf '%s\n' "${EXTRA[@]}"
}

if ((DRY_RUN)); then
  for pass in "${PASSES[@]}"; do
    mapfile -t args < <(jmh_args "$pass")
    printf '%s:' "$pass"; printf ' %q' "${args[@]}"; echo
  done
  exit 0
fi

if ((BUILD)); then
  log "building bench (mvn -pl bench -am package)"
  (cd "$ROOT" && { mvn -B -q -o -pl bench -am -DskipTests package || mvn -B -q -pl bench -am -DskipTests package; }) >&2 \
    || die "build failed"
fi

GITREV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
GITREV_FULL=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown) # the code the jar was built from
DIRTY=0
[[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null) ]] && DIRTY=1
RUN_ID="client-$(date -u +%Y%m%dT%H%M%SZ)-$GITREV$( ((DIRTY)) && echo -dirty || true)" # a clean tree must not end the run (set -e)
mkdir -p "$BENCH_DIR/results"
RESULTS="$BENCH_DIR/results/$RUN_ID.json"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringkv-clientbench.XXXXXX")
LOG="$WORK/jmh.log"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(date +%s)

log "run $RUN_ID (quick=$QUICK, passes ${PASSES[*]}); JMH log in $LOG"
PASS_SECONDS=()
for pass in "${PASSES[@]}"; do
  mapfile -t args < <(jmh_args "$pass")
  log "pass $pass:$(printf ' %q' "${args[@]}")"
  printf '# pass %s:%s\n' "$pass" "$(printf ' %q' "${args[@]}")" >>"$LOG"
  t=$(date +%s)
  # -foe false: a combination a client cannot do fails its setup ("SKIPPED: ...") and JMH goes on.
  "$JAVA" -jar "$BENCH_DIR/target/benchmarks.jar" 'io.ringkv.bench.HttpClientBenchmark' "${args[@]}" \
    -rf json -rff "$WORK/$pass.json" 2>&1 | tee -a "$LOG" \
    | grep --line-buffered -E '^# (Benchmark|Parameters|Fork):|SKIPPED|^Iteration|Exception' >&2 || true
  PASS_SECONDS+=("$pass=$(($(date +%s) - t))")
  [[ -s $WORK/$pass.json ]] || die "JMH wrote no results in pass $pass; see $LOG"
done

RUN_ID=$RUN_ID GIT_REV=$GITREV_FULL DIRTY=$DIRTY QUICK=$QUICK FORKS=${TIMING[-f]} \
  WARMUP="-wi ${TIMING[-wi]} -w ${TIMING[-w]}" MEASUREMENT="-i ${TIMING[-i]} -r ${TIMING[-r]}" \
  PASS_TIMES="${PASS_SECONDS[*]}" LOAD_BEFORE=$LOAD_BEFORE SECONDS_TOTAL=$(($(date +%s) - T0)) \
  python3 - "$RESULTS" "$LOG" "$WORK" "${PASSES[@]}" <<'PY'
import json, os, re, sys
results, log, work, passes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
env = os.environ
merged = []
for p in passes:
    merged += json.load(open(os.path.join(work, p + ".json")))
json.dump(merged, open(results, "w"), indent=1)
text = open(log, errors="replace").read()
skipped = sorted(set(re.findall(r"SKIPPED: ([^\n]*)", text)))
args = dict(re.findall(r"^# pass (\w+): (.*)$", text, flags=re.M))
seconds = dict((p, int(s)) for p, s in (x.split("=") for x in env["PASS_TIMES"].split()))
meta = {"format": 2, "run_id": env["RUN_ID"], "git_rev": env["GIT_REV"], "dirty": env["DIRTY"] == "1",
        "quick": env["QUICK"] == "1", "forks": int(env["FORKS"]), "warmup": env["WARMUP"],
        "measurement": env["MEASUREMENT"], "passes": {p: args.get(p, "") for p in passes}, "pass_seconds": seconds,
        "cores": os.cpu_count(), "loadavg_before": env["LOAD_BEFORE"],
        "loadavg_after": open("/proc/loadavg").read().split()[:3], "seconds": int(env["SECONDS_TOTAL"]),
        "extra_jmh_args": env.get("CLIENT_BENCH_JMH_ARGS", ""), "skipped": skipped}
json.dump(meta, open(re.sub(r"\.json$", ".meta.json", results), "w"), indent=1)
PY
log "results: ${RESULTS#"$ROOT"/} ($(($(date +%s) - T0)) s); JMH log kept in $LOG"
((RENDER)) && render "$RESULTS"
exit 0
