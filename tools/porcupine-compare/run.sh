#!/bin/sh
# Runs partkit (A) and Porcupine (B) alternately, A/B/A/B, per corpus, from the repository root.
# Needs: ./mvnw -q -B -o -pl verification test-compile, /tmp/cp.txt (dependency:build-classpath),
# the exported JSON in $H (ExportHistories) and the driver built as $PC.
set -e
H=${H:-/tmp/partkit-histories}
PC=${PC:-/tmp/porcupine-compare}
OUT=${OUT:-/tmp/compare-runs}
CP=verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt)
mkdir -p "$OUT"
for pass in 1 2; do
  for corpus in small etcd scale; do
    case $corpus in
      small) w=100; r=30; src="-small $H/small.json" ;;
      etcd)  w=10;  r=20; src="-etcd data/histories/porcupine" ;;
      scale) w=2;   r=5;  src="-scale $H/scale.json" ;;
    esac
    echo "pass $pass $corpus partkit  $(uptime)"
    java -cp "$CP" io.partkit.verification.bench.CompareTiming $corpus $w $r > "$OUT/partkit-$corpus-$pass.tsv"
    echo "pass $pass $corpus porcupine $(uptime)"
    $PC $src -warmup $w -rounds $r > "$OUT/porcupine-$corpus-$pass.tsv"
  done
done
echo "done $(uptime)"
