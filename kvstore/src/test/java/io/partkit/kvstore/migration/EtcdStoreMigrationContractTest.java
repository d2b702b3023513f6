package io.partkit.kvstore.migration;

import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.test.support.EtcdMember;
import io.partkit.testkit.MigrationExecutorContractKit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migration contract with the metadata in a real etcd member (one per class, a key prefix
 * per test). Without the etcd binary this fails under {@code CI=true} and is skipped elsewhere
 * (see {@link EtcdMember}).
 */
class EtcdStoreMigrationContractTest extends MigrationExecutorContractKit {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  @RegisterExtension static final EtcdMember etcd = new EtcdMember();

  @TempDir Path dir;

  @Override
  protected MigrationCluster newCluster() throws Exception {
    return new InProcessMigrationCluster(EtcdMetadataStores.builder()
        .endpoints(etcd.endpoints()).prefix("/kvstore/test-" + PREFIXES.incrementAndGet())
        .connectTimeout(Duration.ofSeconds(30))
        .leaderTtl(Duration.ofSeconds(2)).build(), dir);
  }
}
