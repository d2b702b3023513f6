#!/bin/sh
# Runs partkit (A) and Porcupine (B) alternately, A/B/A/B, per corpus, from the repository root.
# Needs: ./mvnw -q -B -o -pl verification test-compile, /tmp/cp.txt (dependency:build-classpath),
# the exported JSON in $H (ExportHistories) and the driver built as $PC.
# Warm passes: every corpus warmed up until the JIT has settled (CompareTiming prints each
# corpus' round times as a comment line: the measured rounds must be on the plateau), then timed
# (PASSES of them, default 2). Cold runs (COLD of
# them per history, default 3): each scale history alone, first check, in a fresh JVM and a fresh
# Go process, alternately.
set -e
H=${H:-/tmp/partkit-histories}
PC=${PC:-/tmp/porcupine-compare}
OUT=${OUT:-/tmp/compare-runs}
PASSES=${PASSES:-2}
COLD=${COLD:-3}
CP=verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt)
mkdir -p "$OUT"
for pass in $(seq 1 "$PASSES"); do
  for corpus in small etcd scale; do
    case $corpus in
      small) w=300; r=30; src="-small $H/small.json" ;;
      etcd)  w=300; r=30; src="-etcd data/histories/porcupine" ;;
      scale) w=40;  r=10; src="-scale $H/scale.json" ;;
    esac
    echo "pass $pass $corpus partkit  $(uptime)"
    java -cp "$CP" io.partkit.verification.bench.CompareTiming $corpus $w $r > "$OUT/partkit-$corpus-$pass.tsv"
    echo "pass $pass $corpus porcupine $(uptime)"
    $PC $src -warmup $w -rounds $r > "$OUT/porcupine-$corpus-$pass.tsv"
  done
done
for run in $(seq 1 "$COLD"); do
  for name in single-c5-n10k single-c5-n100k sequential-n100k keyed-k100-c10-n10k keyed-k100-c10-n100k; do
    echo "cold $run $name $(uptime)"
    java -cp "$CP" io.partkit.verification.bench.CompareTiming scale 0 1 $name | grep -v '^#\|^corpus' >> "$OUT/partkit-cold.tsv"
    $PC -scale $H/scale.json -only $name -warmup 0 -rounds 1 | grep -v '^#\|^corpus' >> "$OUT/porcupine-cold.tsv"
  done
done
echo "done $(uptime)"
