package io.partkit.replica.node;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Numbering;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a control run by a coordinator is to carry out, decided in pure code: the table the
 * coordinator committed last, and for each migration asked for since, its partition's row joined
 * by the migration's target nodes (the row's primary still first, so the control levels the new
 * copies and hands nothing over). Immutable: each change is a new value.
 *
 * <p>A migration is decided by the first committed table at or past its target epoch: it makes
 * the migration's replicas the partition's or abandons it, and either way the table's row is
 * the target from then on: the control hands the partition over to the new primary and the
 * members the row does not name leave (the cut-over), or the joined copies leave again (the
 * roll back).
 *
 * <p>Partitions here are the coordinator's indices, in the committed table's scheme; the
 * executor translates them to the core's numbers by span ({@link SpanMap}) when it hands the
 * targets to the control.
 */
final class CoordinatedTargets {

  private final Map<NodeId, Integer> numbers;
  private final PartitionAssignment committed;
  /** The migrations asked for and not yet decided, by partition. */
  private final TreeMap<Integer, Migration> asked;

  private CoordinatedTargets(Map<NodeId, Integer> numbers, PartitionAssignment committed,
      TreeMap<Integer, Migration> asked) {
    this.numbers = numbers;
    this.committed = committed;
    this.asked = asked;
  }

  /** No table yet, over the nodes {@code numbers} names (a member's id to its node number). */
  static CoordinatedTargets over(Map<NodeId, Integer> numbers) {
    return new CoordinatedTargets(Map.copyOf(numbers), null, new TreeMap<>());
  }

  /**
   * Checks that the core numbers {@code table}'s keys as its scheme does ({@link
   * Numbering#of}): hash slots over {@link KeyHash#MURMUR3_128} (the core's hash halves), key
   * ranges or a token ring, so that the coordinator's partition {@code p} and the core's hold the
   * same keys.
   *
   * @throws IllegalArgumentException naming the table's scheme and those the core numbers
   */
  static void checkNumbering(PartitionAssignment table) {
    try {
      Numbering.of(table.scheme(), 0);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the table at epoch " + table.epoch() + " ("
          + table.strategy() + ") cuts keys by " + table.scheme() + ", which the replica core"
          + " does not number (" + e.getMessage() + "): use hash slots over "
          + KeyHash.MURMUR3_128 + " (fixed, rendezvous), key ranges (range) or a token ring", e);
    }
  }

  /** The table committed last, if any. */
  Optional<PartitionAssignment> committed() {
    return Optional.ofNullable(committed);
  }

  /** The migrations asked for and not decided by a committed table. */
  Collection<Migration> asked() {
    return List.copyOf(asked.values());
  }

  /**
   * {@code table} committed: the migrations it decides are no longer asked for.
   *
   * @throws IllegalArgumentException naming a replica of {@code table} that is no known node
   */
  CoordinatedTargets commit(PartitionAssignment table) {
    return commit(table, List.of());
  }

  /**
   * {@code table} committed, {@code ready} the migrations whose stage completed before it was
   * handed over: those and the migrations it decides are no longer asked for. A ready migration
   * the table does not carry was abandoned by the coordinator (the SPI: every migration ready
   * before an activation is decided by its table), so its partition's row is the target again:
   * its joined copies leave.
   *
   * @throws IllegalArgumentException naming a replica of {@code table} that is no known node
   */
  CoordinatedTargets commit(PartitionAssignment table, Collection<Migration> ready) {
    for (int p = 0; p < table.partitionCount(); p++) {
      nodes(table.replicas(p), "partition " + p + " of the table at epoch " + table.epoch());
    }
    TreeMap<Integer, Migration> open = new TreeMap<>(asked);
    open.values().removeIf(m -> decides(table, m) || ready.contains(m));
    return new CoordinatedTargets(numbers, table, open);
  }

  /**
   * {@code migration} asked for: its target replicas are its partition's target.
   *
   * @throws IllegalArgumentException naming a target replica that is no known node
   */
  CoordinatedTargets ask(Migration migration) {
    nodes(migration.targetReplicas(), "the target of " + migration);
    TreeMap<Integer, Migration> open = new TreeMap<>(asked);
    open.put(migration.partition(), migration);
    return new CoordinatedTargets(numbers, committed, open);
  }

  /** {@code migration} given up (it took too long): its partition's row is the target again. */
  CoordinatedTargets withdraw(Migration migration) {
    TreeMap<Integer, Migration> open = new TreeMap<>(asked);
    open.remove(migration.partition(), migration);
    return new CoordinatedTargets(numbers, committed, open);
  }

  /** Whether {@code table} decides {@code migration}: it is at or past the target epoch. */
  static boolean decides(PartitionAssignment table, Migration migration) {
    return table.epoch() >= migration.targetEpoch();
  }

  /** Whether {@code table} makes the migration's target replicas the partition's. */
  static boolean carries(PartitionAssignment table, Migration migration) {
    return migration.partition() < table.partitionCount()
        && table.replicas(migration.partition()).equals(migration.targetReplicas());
  }

  /** Whether {@code migration} is asked for and not decided by a committed table. */
  boolean isAsked(Migration migration) {
    return migration.equals(asked.get(migration.partition()));
  }

  /**
   * Each partition's target nodes, primary first, by partition: its committed row, or for a
   * migration asked for, that row joined by the migration's target nodes ({@link #joined}).
   */
  Map<Integer, List<Integer>> targets() {
    TreeMap<Integer, List<Integer>> t = new TreeMap<>();
    if (committed != null) {
      for (int p = 0; p < committed.partitionCount(); p++) {
        t.put(p, nodes(committed.replicas(p), "partition " + p));
      }
    }
    asked.forEach((p, m) -> t.put(p, joined(t.getOrDefault(p, List.of()),
        nodes(m.targetReplicas(), "the target of " + m))));
    return t;
  }

  /**
   * {@code row} followed by the nodes of {@code target} it lacks: the copies a migration joins
   * while its partition's primary goes on serving. The row may be longer than the replicas asked
   * for; the control levels every copy it names ({@link io.partkit.replica.TargetPlacement}).
   */
  static List<Integer> joined(List<Integer> row, List<Integer> target) {
    List<Integer> j = new ArrayList<>(row);
    target.stream().filter(n -> !j.contains(n)).forEach(j::add);
    return List.copyOf(j);
  }

  /**
   * Whether a migration to {@code target} is ready to commit for a partition: each of its nodes
   * is a member of the configuration the control counts level, and no move is under way. The
   * primary need not be the target's: the handover is {@code activate}'s.
   */
  static boolean joinedLevel(List<Integer> target, Configure configuration, List<Integer> level,
      boolean moving) {
    return !moving && configuration.members().containsAll(target) && level.containsAll(target);
  }

  /**
   * Whether the control carried {@code target} out for a partition: the target's nodes lead its
   * configuration in the target's order (primary first), every member level, no move under way.
   * The control may keep more copies than a row names: it keeps its own count where nodes allow
   * (a table of fewer members than replicas has shorter rows).
   */
  static boolean carriedOut(List<Integer> target, Configure configuration, List<Integer> level,
      boolean moving) {
    List<Integer> members = configuration.members();
    return !moving && members.size() >= target.size()
        && members.subList(0, target.size()).equals(target) && level.containsAll(members);
  }

  /** The node numbers of {@code ids}, in order. */
  List<Integer> nodes(List<NodeId> ids, String where) {
    List<Integer> n = new ArrayList<>(ids.size());
    for (NodeId id : ids) {
      Integer number = numbers.get(id);
      if (number == null) {
        throw new IllegalArgumentException(where + " names " + id + ", which is no node of the"
            + " executor: its nodes are " + new TreeMap<>(numbers).keySet());
      }
      n.add(number);
    }
    return n;
  }
}
