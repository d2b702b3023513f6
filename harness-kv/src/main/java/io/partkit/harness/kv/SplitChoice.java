package io.partkit.harness.kv;

import io.partkit.replica.node.ReplicaClient;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Which partition the {@code split} nemesis splits: one of the coarsest numbering (at the table's
 * smallest modulus), so that splits go round the table and {@code n} of them double a table of
 * {@code n} instead of splitting one partition again and again.
 */
final class SplitChoice {

  private SplitChoice() {}

  /** A partition of {@code table} at its smallest modulus; empty for an empty table. */
  static Optional<ReplicaClient.Row> choose(ReplicaClient.Table table, Random random) {
    long coarsest = table.rows().stream().mapToLong(ReplicaClient.Row::modulus).min()
        .orElse(0);
    List<ReplicaClient.Row> candidates = table.rows().stream()
        .filter(r -> r.modulus() == coarsest).toList();
    return candidates.isEmpty() ? Optional.empty()
        : Optional.of(candidates.get(random.nextInt(candidates.size())));
  }
}
