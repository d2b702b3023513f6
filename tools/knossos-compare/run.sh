#!/bin/sh
# Runs a Knossos checkout's own test namespaces against partkit-knossos, with Knossos' src/ off
# the class path: the checkout's test/ and data/ on it, and partkit-knossos, partkit-verification
# and Clojure (from Maven Central, through the local Maven repository) in place of Knossos' jar.
# Usage, from the partkit repository root:
#   tools/knossos-compare/run.sh /path/to/knossos [default|perf|all] [namespace...]
# Needs: ./mvnw -B -o -q verify -pl knossos -am -DskipTests (the two modules' classes).
# Prints a table per run (namespace, loads, tests, assertions, failures, errors, seconds);
# exits 1 when a namespace does not load or a test fails.
set -e
KNOSSOS=$(cd "${1:?usage: run.sh KNOSSOS-CHECKOUT [selector] [namespace...]}" && pwd)
SELECTOR=${2:-default}
[ $# -ge 2 ] && shift 2 || shift $#
NSS=${*:-"knossos.competition-test knossos.core-test knossos.history-test knossos.linear-test knossos.op-test knossos.wgl-test knossos.report-test"}
ROOT=$(pwd)
[ -d "$ROOT/knossos/target/classes/knossos" ] || { echo "build first: ./mvnw -B -o -q verify -pl knossos -am -DskipTests" >&2; exit 2; }
CPFILE=$(mktemp)
./mvnw -B -o -q dependency:build-classpath -pl knossos -Dmdep.includeScope=runtime -Dmdep.outputFile="$CPFILE" >/dev/null
# the class path Maven gives names partkit-verification's jar: the freshly built classes instead
DEPS=$(tr ':' '\n' < "$CPFILE" | grep -v 'partkit-verification' | paste -sd: -)
rm -f "$CPFILE"
CP="$KNOSSOS/test:$KNOSSOS/data:$ROOT/knossos/target/classes:$ROOT/verification/target/classes:$DEPS"
cd "$KNOSSOS"   # Knossos' tests open data/... relative to the checkout
[ -d report ] || mkdir report   # knossos.report-test writes its SVGs there
exec java -Xmx${XMX:-2g} -cp "$CP" clojure.main "$ROOT/tools/knossos-compare/run_suite.clj" "$SELECTOR" $NSS
