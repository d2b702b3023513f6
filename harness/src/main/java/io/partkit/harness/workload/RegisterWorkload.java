package io.partkit.harness.workload;

import io.partkit.harness.system.Operation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seeded read/write/cas operations over many independent registers, Jepsen's {@code independent}
 * shape: the workers are split into groups of {@code threadsPerKey}; a group works on one key at a
 * time until the key has had {@code opsPerKey} operations, then moves on to a fresh key. Keeping
 * each key's history a few hundred operations long keeps the linearizability search per key
 * small, while the run as a whole records as many operations as the system serves.
 *
 * <p>Writes and the new value of a cas are unique per key (1, 2, 3, ...), so every value read
 * names the one write that produced it: that is what lets the lost-write checker say which
 * acknowledged write is missing. A cas expects the value its group last saw for the key.
 *
 * <p>Each group draws from its own {@link Random} seeded from the run's seed and the group's
 * number: the operations a group issues replay from the seed, whatever the thread timing.
 */
public final class RegisterWorkload {

  private final int threadsPerKey;
  private final int opsPerKey;
  private final Group[] groups;
  private final AtomicLong nextKey = new AtomicLong();
  private final List<Long> keys = new ArrayList<>();

  /** One group's current key and what it knows of it; guarded by its monitor. */
  private static final class Group {
    final Random random;
    long key = -1;
    int issued;
    long lastValue;
    Long lastSeen;

    Group(Random random) {
      this.random = random;
    }
  }

  /**
   * @param seed the run's seed
   * @param concurrency the number of workers (0 .. concurrency-1)
   * @param threadsPerKey workers sharing a key at once
   * @param opsPerKey operations per key before the group takes a fresh one
   * @throws IllegalArgumentException if any count is below 1
   */
  public RegisterWorkload(long seed, int concurrency, int threadsPerKey, int opsPerKey) {
    if (concurrency < 1 || threadsPerKey < 1 || opsPerKey < 1) {
      throw new IllegalArgumentException("concurrency, threads per key and ops per key must be at "
          + "least 1: " + concurrency + ", " + threadsPerKey + ", " + opsPerKey);
    }
    this.threadsPerKey = Math.min(threadsPerKey, concurrency);
    this.opsPerKey = opsPerKey;
    int count = (concurrency + this.threadsPerKey - 1) / this.threadsPerKey;
    this.groups = new Group[count];
    for (int g = 0; g < count; g++) {
      groups[g] = new Group(new Random(seed * 1_000_003L + g));
    }
  }

  /** The next operation for {@code worker}. */
  public Operation next(int worker) {
    Group g = groups[worker / threadsPerKey];
    synchronized (g) {
      if (g.key < 0 || g.issued >= opsPerKey) {
        g.key = nextKey.getAndIncrement();
        synchronized (keys) {
          keys.add(g.key);
        }
        g.issued = 0;
        g.lastValue = 0;
        g.lastSeen = null;
      }
      g.issued++;
      int pick = g.random.nextInt(3);
      if (pick == 0) {
        return new Operation(Operation.READ, g.key, null);
      }
      long fresh = ++g.lastValue;
      if (pick == 1) {
        return new Operation(Operation.WRITE, g.key, fresh);
      }
      return new Operation(Operation.CAS, g.key, Arrays.asList(g.lastSeen, fresh));
    }
  }

  /** Tells the workload what an ok operation saw or set, so later cas ops expect it. */
  public void observe(int worker, long key, Long value) {
    Group g = groups[worker / threadsPerKey];
    synchronized (g) {
      if (g.key == key) {
        g.lastSeen = value;
      }
    }
  }

  /** Every key handed out so far, in order. */
  public List<Long> keys() {
    synchronized (keys) {
      return List.copyOf(keys);
    }
  }
}
