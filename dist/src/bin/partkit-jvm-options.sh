# partkit's JVM options by command, shared by the ./partkit launcher of a checkout and the
# distribution's bin/partkit: sourced with the command line's arguments, it sets heap, gc,
# initial and tuning (each empty or flags; PARTKIT_JAVA_OPTS given by the user always wins).
# shellcheck shell=bash disable=SC2034
# bench gets a bounded heap unless PARTKIT_JAVA_OPTS sets one. Left alone, the JVM may take a
# quarter of the machine's memory, and G1 used it: on a 24 GB machine a default run committed
# 5.5 GB of heap and reached 2.9 GB resident, though its live data stays under ~450 MB (G1's
# marking cycles and a full GC found 40-300 MB live; the most is the embedded Hazelcast members
# and the short-lived garbage of the 1000-node token rings). With -Xmx1g the default run needs
# no full GC, takes as long, and peaks at 0.96 GB resident. Other commands keep the JVM's
# default: check may need much more for a long history.
heap=""
if [[ "${1:-}" == bench && " ${PARTKIT_JAVA_OPTS:-} " != *" -Xmx"* ]]; then
  heap="-Xmx1g"
fi
# check: short-lived garbage besides the history; on 2 cores the serial collector took about
# 1 s less CPU than G1 for a 154 MB history (docs/checker.md, "Scale and speed"), and the
# parallel one 0.2-0.4 s more wall (docs/checker-scale.md). A collector chosen in
# PARTKIT_JAVA_OPTS wins.
gc=""
if [[ "${1:-}" == check && " ${PARTKIT_JAVA_OPTS:-} " != *" -XX:+Use"*"GC "* ]]; then
  gc="-XX:+UseSerialGC"
fi
# check: the history lives until the end, so every young collection copies what was read since
# the last one into the old generation; started at the JVM's default (a 64th of the memory, 384 MB
# here) the heap also needed a full collection to grow. Starting at 1 GB (or the -Xmx given, if
# smaller): 2 young collections instead of 7 and a full one, 0.5 s of pauses instead of 0.8-1 s
# for a 154 MB history (docs/checker-scale.md, "Where the wall time goes"). Not when the JVM's
# default maximum would be smaller (a machine with less than 4 GB) or an -Xms is given.
initial=""
if [[ "${1:-}" == check && " ${PARTKIT_JAVA_OPTS:-} " != *" -Xms"* ]]; then
  mb() { # a -Xmx size in MB, or nothing
    if [[ "${1,,}" =~ ^([0-9]{1,12})([kmg]?)$ ]]; then
      local n="${BASH_REMATCH[1]}"
      case "${BASH_REMATCH[2]}" in
        g) echo $(( 10#$n * 1024 )) ;;
        m) echo $(( 10#$n )) ;;
        k) echo $(( 10#$n / 1024 )) ;;
        *) echo $(( 10#$n / 1048576 )) ;;
      esac
    fi
  }
  max=""
  for o in ${PARTKIT_JAVA_OPTS:-}; do
    if [[ "$o" == -Xmx* ]]; then max="$(mb "${o#-Xmx}")"; fi
  done
  if [[ -z "$max" && " ${PARTKIT_JAVA_OPTS:-} " != *" -XX:M"*"RAM"* &&
        " ${PARTKIT_JAVA_OPTS:-} " != *"HeapSize"* && -r /proc/meminfo ]]; then
    max=$(( $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 4096 ))
  fi
  if [[ -n "$max" && "$max" -gt 0 ]]; then
    initial="-Xms$(( max < 1024 ? max : 1024 ))m"
  fi
fi
# check, with the launcher's serial collector: eden 32 survivor spaces large instead of 8, so the
# young generation (a third of the heap, as before: the old one keeps its two thirds for the
# history) collects less often; a 154 MB history took one young collection instead of two,
# 0.29-0.38 s of the collector's CPU instead of 0.45-0.54 s. And C2 inlines hot methods of up to
# 100 bytecodes instead of 325: its compiling took 0.8-0.94 s of CPU instead of 1.4-1.5 s for
# that history, and the corpus' searches once warm are as fast (docs/checker-scale.md, "Less
# compiling, one collection"). Either flag given in PARTKIT_JAVA_OPTS wins.
tuning=""
if [[ "${1:-}" == check ]]; then
  if [[ -n "$gc" && " ${PARTKIT_JAVA_OPTS:-} " != *" -XX:SurvivorRatio="* ]]; then
    tuning="-XX:SurvivorRatio=32"
  fi
  if [[ " ${PARTKIT_JAVA_OPTS:-} " != *" -XX:FreqInlineSize="* ]]; then
    tuning="$tuning -XX:FreqInlineSize=100"
  fi
fi
# Fail-stop: out of memory, the JVM exits (status 3) rather than run on with threads that died
# mid-change, as kv nodes and harness runs do. Not for check and bench, which answer it
# themselves with a status and how much heap to give (docs/checker.md, docs/bench.md).
# -XX:-ExitOnOutOfMemoryError in PARTKIT_JAVA_OPTS wins.
oom="-XX:+ExitOnOutOfMemoryError"
if [[ "${1:-}" == check || "${1:-}" == bench ]]; then
  oom=""
fi
