package io.partkit.harness.kv;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.RuntimeCapability;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.verification.history.OpType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A real network cut between a partition's primary and one of its backups (each kv node in its
 * own network namespace, the cut made of nftables drops, the coordinator reaching both): the
 * primary asks for the backup to be taken out, the coordinator takes it out at the next epoch,
 * and writes are acknowledged again during the cut; after the heal the backup joins again,
 * catches up, and every acknowledged write reads back. Once with the default timeouts, and once
 * with a replica timeout far longer than the test waits for anything (so no request fails by
 * it): there the writes can resume during the cut only by the suspicion deadline and the
 * configuration the coordinator commits without the backup, which also completes the write
 * that was waiting on it.
 */
class KvBackupCutNetnsTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final int PARTITION = 0;
  private static final int ACKNOWLEDGED_DURING_CUT = 20;

  @Test
  void writesResumeWithoutTheCutBackupWhichCatchesUpAfterTheHeal() throws Exception {
    cutAndHeal(Map.of("replicas", "3", "partitions", "4"));
  }

  @Test
  void writesResumeBySuspicionAndCommitLongBeforeTheReplicaTimeout() throws Exception {
    // 10 minutes (the option's most): longer than every wait below together, so no request
    // fails by this timeout
    cutAndHeal(Map.of("replicas", "3", "partitions", "4", "replica-timeout-ms", "600000",
        "suspect-after-ms", "500"));
  }

  private static void cutAndHeal(Map<String, String> options) throws Exception {
    NetnsPrerequisite.require();
    OptionValues checked = new KvProvider().options().check(options, 3);
    Path dir = Path.of("target", "kv-backup-cut-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.netns(dir)) {
      RuntimeCapability.Partitions cuts = (RuntimeCapability.Partitions) runtime;
      KvSystem kv = new KvSystem();
      try {
        kv.start(new SystemContext(runtime, dir, 3, 25L, checked));
        PartitionAssignment table = kv.table();
        List<NodeId> row = table.replicas(PARTITION);
        String primary = row.get(0).value();
        String backup = row.get(2).value();
        List<Long> keys = keysOf(table, 2_000);
        Client client = kv.openClient();
        Map<Long, Long> acknowledged = new LinkedHashMap<>();
        int[] next = {0};
        await("a first acknowledged write", () -> write(client, keys, next, acknowledged) > 0);
        long epochBefore = kv.status(primary, PARTITION).epoch();

        cuts.partition(Map.of(primary, Set.of(backup), backup, Set.of(primary)));
        int beforeCut = acknowledged.size();
        await(ACKNOWLEDGED_DURING_CUT + " writes acknowledged during the cut between " + primary
                + " and " + backup,
            () -> write(client, keys, next, acknowledged) - beforeCut >= ACKNOWLEDGED_DURING_CUT);
        PartitionStatus during = kv.status(primary, PARTITION);
        assertThat(during.state()).isEqualTo(PartitionState.OWNED);
        assertThat(during.epoch()).as("the primary goes on at a newer epoch, without " + backup)
            .isGreaterThan(epochBefore);

        cuts.heal();
        await(backup + " a backup again, caught up with " + primary, () -> {
          PartitionStatus p = kv.status(primary, PARTITION);
          PartitionStatus b = kv.status(backup, PARTITION);
          return p != null && b != null && b.state() == PartitionState.BACKUP
              && b.epoch() == p.epoch() && b.keys() == p.keys();
        });
        for (Map.Entry<Long, Long> e : acknowledged.entrySet()) {
          Outcome read = client.invoke(new Operation(Operation.READ, e.getKey(), null));
          assertThat(read.type()).as("read of key %s", e.getKey()).isEqualTo(OpType.OK);
          assertThat(read.value()).as("acknowledged write to key %s", e.getKey())
              .isEqualTo(e.getValue());
        }
        assertThat(acknowledged.size()).isGreaterThan(ACKNOWLEDGED_DURING_CUT);
        client.close();
      } finally {
        cuts.heal();
        kv.close();
      }
    }
  }

  /** Register keys (as the kv client's key bytes {@code k<n>}) of {@link #PARTITION}. */
  private static List<Long> keysOf(PartitionAssignment table, int count) {
    List<Long> keys = new ArrayList<>();
    for (long k = 0; keys.size() < count; k++) {
      if (table.partitionOf(("k" + k).getBytes(UTF_8)) == PARTITION) {
        keys.add(k);
      }
    }
    return keys;
  }

  /**
   * One write of a fresh key; returns how many writes are acknowledged so far. Each key is
   * written once, so every acknowledged one must read back exactly.
   */
  private static int write(Client client, List<Long> keys, int[] next,
      Map<Long, Long> acknowledged) {
    if (next[0] >= keys.size()) {
      throw new AssertionError("all " + keys.size() + " keys written: the writes went on too long");
    }
    long key = keys.get(next[0]);
    long value = 1_000_000L + next[0]++;
    Outcome o = client.invoke(new Operation(Operation.WRITE, key, value));
    if (o.type() == OpType.OK) {
      acknowledged.put(key, value);
    }
    return acknowledged.size();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": not within " + LONG);
      }
      Thread.sleep(20); // polling a condition; a write that fails may answer at once
    }
  }
}
