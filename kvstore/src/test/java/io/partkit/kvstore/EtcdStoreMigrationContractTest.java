package io.partkit.kvstore;

import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.test.support.EtcdCluster;
import io.partkit.test.support.RequiresEtcd;
import io.partkit.testkit.MigrationExecutorContractKit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migration contract with the metadata in a real etcd member (one per class, a key prefix
 * per test). Without the etcd binary this fails under {@code CI=true} and is skipped elsewhere
 * (see {@link EtcdCluster}).
 */
@ExtendWith(RequiresEtcd.class)
class EtcdStoreMigrationContractTest extends MigrationExecutorContractKit {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static EtcdCluster etcd;

  @TempDir Path dir;

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdCluster.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  protected MigrationCluster newCluster() throws Exception {
    return new InProcessMigrationCluster(EtcdMetadataStores.builder()
        .endpoints(etcd.allEndpoints()).prefix("/kvstore/test-" + PREFIXES.incrementAndGet())
        .connectTimeout(Duration.ofSeconds(30))
        .leaderTtl(Duration.ofSeconds(2)).build(), dir);
  }
}
