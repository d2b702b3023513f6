package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Numbering;
import io.partkit.replica.node.ReplicaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SplitChoiceTest {

  static ReplicaClient.Row row(int partition, long modulus) {
    return row(partition, 1, modulus);
  }

  static ReplicaClient.Row row(int partition, int base, long modulus) {
    return new ReplicaClient.Row(partition, new Numbering.Hashed(base, modulus), 0, 1);
  }

  @Test
  void choosesOnlyAmongTheCoarsestPartitions() {
    ReplicaClient.Table t = new ReplicaClient.Table(true, List.of(row(0, 4), row(1, 8),
        row(2, 4), row(3, 8), row(5, 8), row(7, 8)), null);
    for (long seed = 1; seed <= 50; seed++) {
      assertThat(SplitChoice.choose(t, new Random(seed)).orElseThrow().modulus())
          .as("seed %d", seed).isEqualTo(4);
    }
    assertThat(SplitChoice.choose(new ReplicaClient.Table(true, List.of(), null),
        new Random(1))).isEmpty();
  }

  /** n choices, each split as the control splits, double a table of n: every partition once. */
  @Test
  void nSplitsDoubleATableOfN() {
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      int n = 1 + random.nextInt(12);
      List<ReplicaClient.Row> rows = new ArrayList<>();
      for (int p = 0; p < n; p++) {
        rows.add(row(p, n, n));
      }
      for (int i = 0; i < n; i++) {
        ReplicaClient.Row r = SplitChoice.choose(new ReplicaClient.Table(true, rows, null),
            random).orElseThrow();
        rows.remove(r);
        rows.add(row(r.partition(), n, 2L * n));
        rows.add(row(r.partition() + n, n, 2L * n));
      }
      assertThat(rows).as("seed %d", seed).hasSize(2 * n)
          .allMatch(r -> r.modulus() == 2L * n);
    }
  }
}
