package io.partkit.simulation;

import io.partkit.replica.Envelope;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The network: every message delayed from 1 ms up to the seed's largest delay (so reordered),
 * lost and duplicated at the seed's rates, and dropped on links a fault has cut. Clients' traffic
 * crosses no cut and is never duplicated: a client's connection is TCP, which hands its server a
 * request once; replica traffic is resent by the protocol itself, so copies of it do arrive.
 */
final class SimNetwork {

  /** Endpoints from here up are clients. */
  static final int CLIENT_BASE = 1_000_000;

  private final VirtualTime time;
  private final Random random;
  private final Set<Long> blocked = new HashSet<>();
  private double dropRate;
  private double duplicateRate;
  private final long maxDelay;
  private Consumer<Envelope> deliver = e -> { };

  /** Draws the seed's network from {@code swarm}; delays, losses and copies from {@code random}. */
  SimNetwork(VirtualTime time, Random swarm, Random random) {
    this.time = time;
    this.random = random;
    this.dropRate = swarm.nextBoolean() ? 0 : 0.002 + swarm.nextDouble() * 0.05;
    this.duplicateRate = swarm.nextBoolean() ? 0 : 0.002 + swarm.nextDouble() * 0.05;
    this.maxDelay = 1 + swarm.nextInt(swarm.nextBoolean() ? 4 : 30);
  }

  /** Where messages arrive. */
  void deliverTo(Consumer<Envelope> deliver) {
    this.deliver = deliver;
  }

  void transmit(Envelope e) {
    boolean client = e.from() >= CLIENT_BASE || e.to() >= CLIENT_BASE;
    if (!client && blocked.contains(link(e.from(), e.to()))) {
      return;
    }
    if (random.nextDouble() < dropRate) {
      return;
    }
    later(e);
    if (!client && random.nextDouble() < duplicateRate) {
      later(e);
    }
  }

  private void later(Envelope e) {
    time.schedule(1 + random.nextInt((int) maxDelay), () -> deliver.accept(e));
  }

  /** {@code to} stops hearing {@code from}; true if the link was open. */
  boolean cut(int from, int to) {
    return blocked.add(link(from, to));
  }

  void restore(int from, int to) {
    blocked.remove(link(from, to));
  }

  /** Every link open, no more loss or copies: the heal. */
  void calm() {
    blocked.clear();
    dropRate = 0;
    duplicateRate = 0;
  }

  private static long link(int from, int to) {
    return ((long) from << 32) ^ (to & 0xffffffffL);
  }
}
