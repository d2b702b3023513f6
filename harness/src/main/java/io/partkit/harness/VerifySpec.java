package io.partkit.harness;

import io.partkit.harness.runtime.RuntimeSpec;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.Systems;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one run does.
 *
 * @param system the name of a {@link SystemProvider} on the class path: {@code kv}, {@code etcd}
 * @param nodes data nodes (etcd: 3 or 5 members)
 * @param nemeses the fault kinds (kill, pause, partition, membership, migration, lose,
 *     split); empty:
 *     none
 * @param time how long clients run while faults are injected
 * @param concurrency client workers
 * @param rate operations per second over all workers; 0 for as fast as they go
 * @param seed the seed of the workload and the fault schedule
 * @param store where runs are stored ({@code <store>/<system>/<time>/})
 * @param runtime the runtime and its options, typed: {@code processes}, {@code netns}, {@code
 *     containers}, {@code ssh} or any {@link io.partkit.harness.runtime.RuntimeProvider} on the
 *     class path
 * @param opsPerKey operations on one key before its workers take a fresh key
 * @param threadsPerKey workers sharing one key at a time
 * @param checkTimeLimit the linearizability checker's time limit (beyond it: unknown)
 * @param options system options (kv: {@code partitions}, {@code fault})
 */
public record VerifySpec(String system, int nodes, List<String> nemeses, Duration time,
    int concurrency, double rate, long seed, Path store, RuntimeSpec runtime, int opsPerKey,
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
   * A builder with the defaults of {@code ./partkit verify}: the system's default nodes (5,
   * etcd 3), no faults, 30 s,
   * 10 workers at 200 ops/s, seed 1, store {@code ./store}, processes on loopback, 200 ops per
   * key by 5 workers, a 120 s check limit.
   */
  public static Builder builder(String system) {
    return new Builder(system);
  }

  /** A builder starting from this spec. */
  public Builder toBuilder() {
    Builder b = new Builder(system);
    b.nodes = nodes;
    b.nemeses = nemeses;
    b.time = time;
    b.concurrency = concurrency;
    b.rate = rate;
    b.seed = seed;
    b.store = store;
    b.runtime = runtime;
    b.opsPerKey = opsPerKey;
    b.threadsPerKey = threadsPerKey;
    b.checkTimeLimit = checkTimeLimit;
    b.options = options;
    return b;
  }

  /** Builds a {@link VerifySpec}; {@link #build} checks every value. */
  public static final class Builder {
    private final String system;
    private int nodes;
    private List<String> nemeses = List.of();
    private Duration time = Duration.ofSeconds(30);
    private int concurrency = 10;
    private double rate = 200;
    private long seed = 1;
    private Path store = Path.of("store");
    private RuntimeSpec runtime = RuntimeSpec.processes();
    private int opsPerKey = 200;
    private int threadsPerKey = 5;
    private Duration checkTimeLimit = Duration.ofSeconds(120);
    private Map<String, String> options = Map.of();

    private Builder(String system) {
      this.system = Objects.requireNonNull(system, "system");
      // the system's own default when it is on the class path; an unknown one fails at run
      this.nodes = Systems.load().find(system).map(SystemProvider::defaultNodes).orElse(5);
    }

    public Builder nodes(int n) {
      this.nodes = n;
      return this;
    }

    public Builder nemeses(List<String> kinds) {
      this.nemeses = kinds;
      return this;
    }

    public Builder time(Duration d) {
      this.time = d;
      return this;
    }

    public Builder concurrency(int c) {
      this.concurrency = c;
      return this;
    }

    public Builder rate(double opsPerSecond) {
      this.rate = opsPerSecond;
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    public Builder store(Path dir) {
      this.store = dir;
      return this;
    }

    /** The runtime with its options (checked when the run starts). */
    public Builder runtime(RuntimeSpec r) {
      this.runtime = r;
      return this;
    }

    /** The runtime called {@code name}, with its defaults. */
    public Builder runtime(String name) {
      return runtime(RuntimeSpec.named(name));
    }

    public Builder opsPerKey(int n) {
      this.opsPerKey = n;
      return this;
    }

    public Builder threadsPerKey(int n) {
      this.threadsPerKey = n;
      return this;
    }

    public Builder checkTimeLimit(Duration d) {
      this.checkTimeLimit = d;
      return this;
    }

    public Builder options(Map<String, String> o) {
      this.options = o;
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException naming the first value out of range
     */
    public VerifySpec build() {
      return new VerifySpec(system, nodes, nemeses, time, concurrency, rate, seed, store, runtime,
          opsPerKey, threadsPerKey, checkTimeLimit, options);
    }
  }
}
