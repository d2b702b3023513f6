package io.partkit.bench;

import io.partkit.spi.hash.KeyHash;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Key -> primary lookup of every subject, next to the bare Murmur3 x64_128 hash of the same keys,
 * in one JMH run (so the ratio compares figures from the same machine state). Keys are 8-byte
 * {@code long}s drawn Zipf(0.99) from 2^20 seeded keys; results are returned to JMH, which
 * consumes them. {@code hazelcast-members} is left out: it needs a running member per node.
 *
 * <p>Run (from the repository root):
 * <pre>
 * ./mvnw -q -pl bench -am package -DskipTests
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.partkit.bench.LookupRatios
 * # or plain JMH, any JMH option:
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main \
 *     LookupBenchmark -p nodes=1000
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC"})
public class LookupBenchmark {

  /** Zipf-skewed keys, walked in order; one cursor per thread. */
  @State(Scope.Thread)
  public static class KeyState {
    static final int MASK = (1 << 16) - 1;
    long[] keys;
    int next;

    @Setup
    public void setUp() {
      keys = Keys.zipf(42, 1 << 20, MASK + 1, 0.99);
    }

    long nextKey() {
      return keys[next++ & MASK];
    }
  }

  /** One subject's placement for {@code nodes} equal members, RF 1. */
  @State(Scope.Benchmark)
  public static class SubjectState {
    @Param({"fixed", "rendezvous", "rendezvous-bounded", "tokenring-random",
        "tokenring-allocator", "ignite-rendezvous", "hazelcast", "cassandra-vnodes-256",
        "cassandra-vnodes-16", "guava-jump"})
    public String subject;

    @Param({"1000"})
    public int nodes;

    Lookup lookup;
    private Subject instance;

    @Setup(Level.Trial)
    public void setUp() {
      instance = Subjects.factory(subject, BenchOptions.defaults(),
          io.partkit.spi.Partitioners.load()).get();
      lookup = instance.place(Cluster.of(nodes, Weights.EQUAL).view(), 1, Optional.empty())
          .lookup();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      instance.close();
    }
  }

  @Benchmark
  public Object lookup(SubjectState s, KeyState k) {
    return s.lookup.primaryOf(k.nextKey());
  }

  @Benchmark
  public long murmur3(KeyState k) {
    return KeyHash.MURMUR3_128.hashLong(k.nextKey());
  }

  /**
   * Cassandra's Murmur3 variant of the same keys: the token ring's hash (its tokens are persisted
   * in it), so the part of a ring lookup's ratio that is the hash itself, not the index.
   */
  @Benchmark
  public long cassandraHash(KeyState k) {
    return KeyHash.CASSANDRA_MURMUR3.hashLong(k.nextKey());
  }

  /** DESIGN.md's lookup floor: one Murmur3 hash plus one array read, nothing else. */
  @State(Scope.Benchmark)
  public static class FloorState {
    final Object[] owners = new Object[4096];
    /** Read from a field, as a real table's size is: no shift where a multiply is due. */
    long count = owners.length;

    @Setup(Level.Trial)
    public void setUp() {
      for (int i = 0; i < owners.length; i++) {
        owners[i] = "node-" + (i % 1000);
      }
    }
  }

  @Benchmark
  public Object floor(FloorState f, KeyState k) {
    long h = KeyHash.MURMUR3_128.hashLong(k.nextKey());
    return f.owners[(int) ((((h ^ Long.MIN_VALUE) >>> 32) * f.count) >>> 32)];
  }
}
