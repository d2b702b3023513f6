package io.partkit.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one run does.
 *
 * @param system {@code kv} or {@code etcd}
 * @param nodes data nodes (etcd: 3 or 5 members)
 * @param nemeses the fault kinds (kill, pause, partition, membership, migration); empty: none
 * @param time how long clients run while faults are injected
 * @param concurrency client workers
 * @param rate operations per second over all workers; 0 for as fast as they go
 * @param seed the seed of the workload and the fault schedule
 * @param store where runs are stored ({@code <store>/<system>/<time>/})
 * @param runtime {@code processes}, {@code netns} or {@code containers}
 * @param opsPerKey operations on one key before its workers take a fresh key
 * @param threadsPerKey workers sharing one key at a time
 * @param checkTimeLimit the linearizability checker's time limit (beyond it: unknown)
 * @param options system options (kv: {@code partitions}, {@code fault})
 */
public record VerifySpec(String system, int nodes, List<String> nemeses, Duration time,
    int concurrency, double rate, long seed, Path store, String runtime, int opsPerKey,
    int threadsPerKey, Duration checkTimeLimit, Map<String, String> options) {

  public VerifySpec {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(checkTimeLimit, "checkTimeLimit");
    nemeses = List.copyOf(nemeses);
    options = Map.copyOf(options);
    require(nodes >= 1, "nodes must be at least 1: " + nodes);
    require(concurrency >= 1, "concurrency must be at least 1: " + concurrency);
    require(rate >= 0, "rate must be >= 0 (0: unlimited): " + rate);
    require(!time.isNegative() && !time.isZero(), "time must be positive: " + time);
    require(opsPerKey >= 1, "ops per key must be at least 1: " + opsPerKey);
    require(threadsPerKey >= 1, "threads per key must be at least 1: " + threadsPerKey);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * The defaults of {@code ./partkit verify}: 5 nodes, no faults, 30 s, 10 workers at 200 ops/s,
   * seed 1, store {@code ./store}, processes on loopback, 200 ops per key by 5 workers.
   */
  public static VerifySpec defaults(String system) {
    return new VerifySpec(system, system.equals("etcd") ? 3 : 5, List.of(), Duration.ofSeconds(30),
        10, 200, 1, Path.of("store"), "processes", 200, 5, Duration.ofSeconds(120), Map.of());
  }

  public VerifySpec withNodes(int n) {
    return new VerifySpec(system, n, nemeses, time, concurrency, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withNemeses(List<String> kinds) {
    return new VerifySpec(system, nodes, kinds, time, concurrency, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withTime(Duration d) {
    return new VerifySpec(system, nodes, nemeses, d, concurrency, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withConcurrency(int c) {
    return new VerifySpec(system, nodes, nemeses, time, c, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withRate(double r) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, r, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withSeed(long s) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, s, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withStore(Path dir) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, dir, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withRuntime(String r) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, store, r,
        opsPerKey, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withOpsPerKey(int n) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, store, runtime,
        n, threadsPerKey, checkTimeLimit, options);
  }

  public VerifySpec withCheckTimeLimit(Duration d) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, d, options);
  }

  public VerifySpec withOptions(Map<String, String> o) {
    return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, store, runtime,
        opsPerKey, threadsPerKey, checkTimeLimit, o);
  }
}
