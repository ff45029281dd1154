#!/bin/bash
# Interleaved A/B of the RING client's H2 GET rows: base (7d7b0f4) and final (180dfcc, the client-sm branch).
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
OUT=/tmp/p16/h2ab; mkdir -p $OUT
for pass in 1 2; do
  for jar in base-7d7b0f4 final-180dfcc; do
    java -jar /tmp/client-sm-bench/$jar.jar 'HttpClientBenchmark.(inFlight64|oneCaller)' -p client=RING -p method=GET \
      -p protocol=H2 -p size=1,122880 -p tls=false -p publisher=NO_COPY -f 3 -wi 2 -w 2s -i 5 -r 1s \
      -rf json -rff $OUT/$jar-pass$pass.json > $OUT/$jar-pass$pass.log 2>&1
    echo "$jar pass $pass done $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
