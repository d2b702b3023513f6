package io.partkit.kvstore.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.MigrationExecutor;
import org.junit.jupiter.api.Test;

/**
 * The coordinator asks for an ability with {@code instanceof} and silently skips the work of one
 * the executor lacks, so dropping one here would not fail any coordinator call: it would stop
 * lost replicas from rejoining, suspected backups from being taken out, or splits. This says
 * which the kvstore's executor has.
 */
class ExecutorAbilitiesTest {

  @Test
  void theKvExecutorHasEveryAbilityTheSpiNames() {
    try (KvMigrationExecutor executor = KvMigrationExecutor.builder().addresses(id -> null)
        .build()) {
      assertThat(executor)
          .isInstanceOf(MigrationExecutor.MovesReplicas.class)
          .isInstanceOf(MigrationExecutor.ReportsLostReplicas.class)
          .isInstanceOf(MigrationExecutor.RestoresReplicas.class)
          .isInstanceOf(MigrationExecutor.RemovesSuspectedReplicas.class)
          .isInstanceOf(MigrationExecutor.SplitsPartitions.class);
    }
  }
}
