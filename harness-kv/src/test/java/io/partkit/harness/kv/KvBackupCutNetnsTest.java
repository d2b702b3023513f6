package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.RuntimeCapability;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.replica.node.ReplicaClient;
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
 * A real network cut between a partition's primary and one of its backups, each kv node in its
 * own network namespace, the cut made of nftables drops, the control reaching both: the primary
 * reports the backup, the control takes it out at a new epoch, and writes are acknowledged
 * again during the cut; after the heal the backup joins again, is levelled to the primary's
 * keys, and every acknowledged write reads back.
 */
class KvBackupCutNetnsTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final int PARTITION = 0;
  private static final int ACKNOWLEDGED_DURING_CUT = 20;

  @Test
  void writesResumeWithoutTheCutBackupWhichIsLevelledAgainAfterTheHeal() throws Exception {
    NetnsPrerequisite.require();
    OptionValues checked = new KvProvider().options().check(
        Map.of("replicas", "3", "partitions", "4"), 3);
    Path dir = Path.of("target", "kv-backup-cut-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.netns(dir)) {
      RuntimeCapability.Partitions cuts = (RuntimeCapability.Partitions) runtime;
      KvSystem kv = new KvSystem();
      try (kv) {
        kv.start(new SystemContext(runtime, dir, 3, 25L, checked));
        try (ReplicaClient client = kv.client()) {
          await("a settled table", () -> {
            try {
              return client.table().settled();
            } catch (java.io.IOException e) {
              return false;
            }
          });
          int primary = client.table().rows().get(PARTITION).primary();
          await("partition " + PARTITION + "'s primary with its two backups", () -> {
            try {
              return client.partitionStatus(primary, PARTITION).backups().size() == 2;
            } catch (java.io.IOException e) {
              return false;
            }
          });
          Replica.Status before = client.partitionStatus(primary, PARTITION);
          int backup = before.backups().get(1);
          List<Long> keys = keysOf(client.table(), 2_000);
          Map<Long, Long> acknowledged = new LinkedHashMap<>();
          int[] next = {0};
          await("a first acknowledged write", () -> write(client, keys, next, acknowledged) > 0);

          cuts.partition(Map.of(name(primary), Set.of(name(backup)),
              name(backup), Set.of(name(primary))));
          int beforeCut = acknowledged.size();
          await(ACKNOWLEDGED_DURING_CUT + " writes acknowledged during the cut between "
              + name(primary) + " and " + name(backup),
              () -> write(client, keys, next, acknowledged) - beforeCut
                  >= ACKNOWLEDGED_DURING_CUT);
          Replica.Status during = client.partitionStatus(primary, PARTITION);
          assertThat(during.role()).isEqualTo(Role.PRIMARY);
          assertThat(during.epoch()).as("the primary goes on at a newer epoch")
              .isGreaterThan(before.epoch());
          assertThat(during.backups()).as("without the backup cut off").doesNotContain(backup);

          cuts.heal();
          await(name(backup) + " a backup again, levelled to " + name(primary), () -> {
            try {
              Replica.Status p = client.partitionStatus(primary, PARTITION);
              Replica.Status b = client.partitionStatus(backup, PARTITION);
              return b.role() == Role.BACKUP && b.epoch() == p.epoch() && b.levelled()
                  && b.keys() == p.keys() && p.backups().contains(backup);
            } catch (java.io.IOException e) {
              return false;
            }
          });
          for (Map.Entry<Long, Long> e : acknowledged.entrySet()) {
            ReplicaClient.Result read = client.get(e.getKey());
            assertThat(read.outcome()).as("read of key %s", e.getKey()).isEqualTo(Outcome.OK);
            assertThat(read.value()).as("acknowledged write to key %s", e.getKey())
                .isEqualTo(e.getValue());
          }
          assertThat(acknowledged.size()).isGreaterThan(ACKNOWLEDGED_DURING_CUT);
        }
      } finally {
        cuts.heal();
      }
    }
  }

  /** The harness's name of the core's node {@code id}. */
  private static String name(int id) {
    return "n" + (id + 1);
  }

  /** Keys of {@link #PARTITION} as the table routes them. */
  private static List<Long> keysOf(ReplicaClient.Table table, int count) {
    List<Long> keys = new ArrayList<>();
    for (long k = 0; keys.size() < count; k++) {
      if (table.route(k).orElseThrow().partition() == PARTITION) {
        keys.add(k);
      }
    }
    return keys;
  }

  /**
   * One write of a fresh key; returns how many writes are acknowledged so far. Each key is
   * written once, so every acknowledged one must read back exactly.
   */
  private static int write(ReplicaClient client, List<Long> keys, int[] next,
      Map<Long, Long> acknowledged) {
    if (next[0] >= keys.size()) {
      throw new AssertionError("all " + keys.size() + " keys written: the writes went on too long");
    }
    long key = keys.get(next[0]);
    long value = 1_000_000L + next[0]++;
    if (client.put(key, value).outcome() == Outcome.OK) {
      acknowledged.put(key, value);
    }
    return acknowledged.size();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + LONG.toSeconds() + " s: " + what);
      }
      Thread.sleep(50); // polling a condition, within a deadline
    }
  }
}
