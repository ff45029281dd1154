#!/usr/bin/env bash
# HPACK benchmark: http-core's encoder and decoder next to Jetty 12's, on one typical request
# header block (JMH, io.ringkv.bench.HpackBenchmark, average time per operation and bytes
# allocated per operation). Writes bench/results/hpack-<UTC time>-<git rev>.json (JMH's JSON)
# and prints the table docs/benchmarks.md shows, with JMH's 99.9 % error per score.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"

usage() {
  cat <<'USAGE'
Usage: bench/hpack-bench.sh [--no-build] [--print RESULTS.json]

  (default)       build bench/target/benchmarks.jar, run 3 forks x (3 x 1 s warm-up + 5 x 1 s
                  measurement) of each of the 8 benchmarks (about 5 minutes), write the results
                  file and print the table
  --no-build      use the existing bench/target/benchmarks.jar
  --print FILE    only print the table of an earlier results file
USAGE
}

BUILD=1
PRINT=""
while (($#)); do
  case "$1" in
    --no-build) BUILD=0 ;;
    --print) PRINT=${2:?--print needs a results file}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "hpack-bench: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

print_table() {
  python3 - "$1" <<'EOF'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1])):
    name = b["benchmark"].rsplit(".", 1)[1]          # e.g. oursEncodeFirst
    impl = "ours" if name.startswith("ours") else "jetty"
    case = name[len(impl):]                           # EncodeFirst
    m = b["primaryMetric"]
    alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
    rows.setdefault(case, {})[impl] = (m["score"], m["scoreError"], alloc)
print("| benchmark | ours ns/op (99.9 % error) | Jetty ns/op (99.9 % error) | ours B/op | Jetty B/op |")
print("|---|---|---|---|---|")
for case in ("EncodeFirst", "EncodeRepeat", "DecodeFirst", "DecodeRepeat"):
    r = rows.get(case)
    if not r or "ours" not in r or "jetty" not in r:
        continue
    label = case.replace("Encode", "encode, ").replace("Decode", "decode, ").lower()
    fmt = lambda v: "{:,.0f} ± {:,.0f}".format(v[0], v[1])
    b_op = lambda v: "n/a" if v[2] is None else "{:,.0f}".format(v[2])
    print("| %s | %s | %s | %s | %s |" % (label, fmt(r["ours"]), fmt(r["jetty"]), b_op(r["ours"]), b_op(r["jetty"])))
EOF
}

if [[ -n $PRINT ]]; then
  print_table "$PRINT"
  exit 0
fi

JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if ((BUILD)); then
  (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" JAVA_HOME=$JAVA_HOME \
    mvn -B -q -Dstyle.color=never -pl bench -am -DskipTests package) >&2
fi
rev=$(git -C "$ROOT" rev-parse --short=7 HEAD)
git -C "$ROOT" diff --quiet HEAD -- && dirty="" || dirty="-dirty"
out="$BENCH_DIR/results/hpack-$(date -u +%Y%m%dT%H%M%SZ)-$rev$dirty.json"
"$JAVA_HOME/bin/java" -jar "$BENCH_DIR/target/benchmarks.jar" 'io.ringkv.bench.HpackBenchmark' \
  -f 3 -wi 3 -w 1s -i 5 -r 1s -prof gc -rf json -rff "$out" >&2
echo "results: ${out#"$ROOT"/}" >&2
print_table "$out"
