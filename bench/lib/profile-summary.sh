#!/usr/bin/env bash
# profile-summary.sh FILE.jfr: a short text summary of a JFR recording for the results file:
# event counts (how much was sampled at all), the hottest top frames, the frames most often
# on the stack (inclusive, so callers such as the inter-node client show up), allocation
# and lock hot spots. Needs `jfr` from a JDK on PATH.
set -u  # no pipefail: `head` closing a pipe early is expected here
jfr_file=$1
TOP=15
echo "== events (jfr summary)"
jfr summary "$jfr_file" | grep -E '^ (Duration|jdk\.(ExecutionSample|NativeMethodSample|ObjectAllocationSample|JavaMonitorEnter|ThreadPark)) ' || true
echo
echo "== hot methods: top frames of CPU samples (jfr view hot-methods)"
jfr view --width 130 hot-methods "$jfr_file" 2>&1 | sed -n '4,19p'
echo
echo "== frames most often on the stack of CPU samples (inclusive, depth 16)"
jfr print --events jdk.ExecutionSample --stack-depth 16 "$jfr_file" \
  | sed -n 's/^ *\([a-zA-Z_$][^ ]*([^)]*)\) *line:.*/\1/p' | sort | uniq -c | sort -rn | head -n "$TOP"
echo
echo "== allocation by class (jfr view allocation-by-class)"
jfr view --width 130 allocation-by-class "$jfr_file" 2>&1 | sed -n '4,14p'
echo
echo "== lock contention by site (jfr view contention-by-site)"
jfr view --width 130 contention-by-site "$jfr_file" 2>&1 | sed -n '4,12p'
