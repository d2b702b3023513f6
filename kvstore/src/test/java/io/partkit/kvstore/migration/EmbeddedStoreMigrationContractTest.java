package io.partkit.kvstore.migration;

import io.partkit.coordinator.MetadataStores;
import io.partkit.testkit.MigrationExecutorContractKit;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The migration contract on the embedded metadata store, persisted to a file. */
class EmbeddedStoreMigrationContractTest extends MigrationExecutorContractKit {

  @TempDir Path dir;

  @Override
  protected MigrationCluster newCluster() throws Exception {
    return new InProcessMigrationCluster(MetadataStores.embedded(dir.resolve("meta.json")), dir);
  }
}
