#!/usr/bin/env bash
# W6 for Apache Paimon 1.2 (sort compaction, filtered scans), beside `sediment bench W6`:
#   bench/paimon-w6/run.sh            # build (first time) and run once; prints one JSON line
# Knobs: BENCH_HEAP (default -Xmx8g -Xms8g, as the shared peers' harness); -Dw6.commits / -Dw6.rows
# through JAVA_OPTS for a smaller try.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE"
if [ ! -f target/classpath.txt ] || [ "${SKIP_BUILD:-0}" != "1" ]; then
  mvn -q -B package -DskipTests >&2
fi
exec java ${BENCH_HEAP:--Xmx8g -Xms8g} ${JAVA_OPTS:-} \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -cp "target/paimon-w6-1.0.jar:$(cat target/classpath.txt)" io.sediment.peers.PaimonW6 2>run.log
