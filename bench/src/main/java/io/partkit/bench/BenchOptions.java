package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * What a benchmark run measures. Immutable; start from {@link #defaults()} and change with the
 * {@code with...} methods.
 *
 * @param subjects subject names to run, in report order; empty means every default subject
 *     ({@link Bench#defaultSubjects()}); a name of the form {@code label=strategy:opt=v,opt=v}
 *     adds a partkit strategy with options
 * @param sizes cluster sizes (members before the join/leave), each >= 2
 * @param weights weight modes to measure
 * @param replicas replication factors to measure, each in 1..7
 * @param sampleKeys keys sampled where ownership cannot be computed exactly (at least 1M for the
 *     report; tests use fewer)
 * @param partitions partition count for every fixed-partition subject (partkit fixed and
 *     rendezvous, Ignite, Hazelcast), so they are compared at equal granularity
 * @param seed seed of keys, random tokens and strategies
 * @param lookupMillis time spent timing one subject's lookups over all rounds (and as much for
 *     the bare hash, in rounds interleaved with them)
 * @param lookupRounds timed lookup rounds per row, each next to a bare-hash round, so a row shows
 *     the spread of its rounds and every ratio compares figures taken at the same moment
 * @param hazelcastMembersMax largest cluster measured on real embedded Hazelcast members
 * @param quick whether these started as {@link #quickRun()}'s settings, for the report
 */
public record BenchOptions(List<String> subjects, List<Integer> sizes, List<Weights> weights,
    List<Integer> replicas, int sampleKeys, int partitions, long seed, int lookupMillis,
    int lookupRounds, int hazelcastMembersMax, boolean quick) {

  /**
   * @throws IllegalArgumentException naming every bad value
   */
  public BenchOptions {
    subjects = List.copyOf(requireNonNull(subjects, "subjects"));
    sizes = List.copyOf(requireNonNull(sizes, "sizes"));
    weights = List.copyOf(requireNonNull(weights, "weights"));
    replicas = List.copyOf(requireNonNull(replicas, "replicas"));
    List<String> problems = new ArrayList<>();
    if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 2 || s > 100_000)) {
      problems.add("sizes must be a non-empty list of values in 2..100000: " + sizes);
    }
    if (weights.isEmpty()) {
      problems.add("weights must not be empty");
    }
    if (replicas.isEmpty() || replicas.stream().anyMatch(r -> r < 1 || r > 7)) {
      problems.add("replicas must be a non-empty list of values in 1..7: " + replicas);
    }
    if (sampleKeys < 1_000 || sampleKeys > 100_000_000) {
      problems.add("sample keys must be in 1000..100000000: " + sampleKeys);
    }
    if (partitions < 1 || partitions > 65_536) {
      problems.add("partitions must be in 1..65536: " + partitions);
    }
    if (lookupMillis < 10 || lookupMillis > 60_000) {
      problems.add("lookup time must be in 10..60000 ms: " + lookupMillis);
    }
    if (lookupRounds < 1 || lookupRounds > 101) {
      problems.add("lookup rounds must be in 1..101: " + lookupRounds);
    }
    if (hazelcastMembersMax < 0 || hazelcastMembersMax > 50) {
      problems.add("embedded Hazelcast members must be in 0..50: " + hazelcastMembersMax);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid bench options: " + String.join("; ", problems));
    }
  }

  /**
   * The report's defaults: every subject; 10, 100 and 1000 nodes; equal and mixed weights; RF 1
   * and 3; 1M sampled keys; 4096 partitions; seed 42; 300 ms of lookups per row in 7 rounds;
   * real Hazelcast members up to 10.
   */
  public static BenchOptions defaults() {
    return new BenchOptions(List.of(), List.of(10, 100, 1000), List.of(Weights.values()),
        List.of(1, 3), 1_000_000, 4096, 42, 300, 7, 10, false);
  }

  /**
   * A first look in well under a minute on an idle machine: every subject at 10 and 100 nodes,
   * equal and mixed weights, RF 1 and 3, 200k sampled keys, 100 ms of lookups per row in 3
   * rounds, fewer planning repetitions, and no real Hazelcast members (starting and stopping
   * eleven embedded members alone took over a minute; the {@code hazelcast} subject still shows
   * Hazelcast's placement). The figures are coarser (sampled balance to about 1%, lookup spreads
   * from 3 rounds); the report says it is a quick run.
   */
  public static BenchOptions quickRun() {
    return new BenchOptions(List.of(), List.of(10, 100), List.of(Weights.values()),
        List.of(1, 3), 200_000, 4096, 42, 100, 3, 0, true);
  }

  public BenchOptions withSubjects(List<String> value) {
    return new BenchOptions(value, sizes, weights, replicas, sampleKeys, partitions, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withSizes(List<Integer> value) {
    return new BenchOptions(subjects, value, weights, replicas, sampleKeys, partitions, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withWeights(List<Weights> value) {
    return new BenchOptions(subjects, sizes, value, replicas, sampleKeys, partitions, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withReplicas(List<Integer> value) {
    return new BenchOptions(subjects, sizes, weights, value, sampleKeys, partitions, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withSampleKeys(int value) {
    return new BenchOptions(subjects, sizes, weights, replicas, value, partitions, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withPartitions(int value) {
    return new BenchOptions(subjects, sizes, weights, replicas, sampleKeys, value, seed,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withSeed(long value) {
    return new BenchOptions(subjects, sizes, weights, replicas, sampleKeys, partitions, value,
        lookupMillis, lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withLookupMillis(int value) {
    return new BenchOptions(subjects, sizes, weights, replicas, sampleKeys, partitions, seed, value,
        lookupRounds, hazelcastMembersMax, quick);
  }

  public BenchOptions withLookupRounds(int value) {
    return new BenchOptions(subjects, sizes, weights, replicas, sampleKeys, partitions, seed,
        lookupMillis, value, hazelcastMembersMax, quick);
  }

  public BenchOptions withHazelcastMembersMax(int value) {
    return new BenchOptions(subjects, sizes, weights, replicas, sampleKeys, partitions, seed,
        lookupMillis, lookupRounds, value, quick);
  }
}
