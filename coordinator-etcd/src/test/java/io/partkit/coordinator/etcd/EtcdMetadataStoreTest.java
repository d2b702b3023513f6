package io.partkit.coordinator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStoreException;
import io.partkit.coordinator.testkit.MetadataStoreContractKit;
import io.partkit.test.support.EtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract on one real etcd member; each test gets its own key prefix. */
class EtcdMetadataStoreTest extends MetadataStoreContractKit {

  @RegisterExtension static final EtcdMember etcd = new EtcdMember();
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final List<MetadataStore> opened = new ArrayList<>();
  private final String prefix = "/test/store-" + PREFIXES.incrementAndGet();

  private MetadataStore open() {
    MetadataStore s = EtcdMetadataStores.builder().endpoints(etcd.endpoints()).prefix(prefix)
        .connectTimeout(Duration.ofSeconds(30)).leaderTtl(Duration.ofSeconds(2)).build();
    opened.add(s);
    return s;
  }

  private MetadataStore main;

  @Override
  protected MetadataStore store() {
    if (main == null) {
      main = open();
    }
    return main;
  }

  @Override
  protected MetadataStore secondClient() {
    return open();
  }

  @AfterEach
  void closeStores() {
    opened.forEach(MetadataStore::close);
  }

  @Test
  void anUnreachableEtcdIsAClearError() {
    assertThatThrownBy(() -> EtcdMetadataStores.builder().endpoints("http://127.0.0.1:1")
        .connectTimeout(Duration.ofMillis(500)).build())
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageStartingWith("cannot reach etcd at http://127.0.0.1:1 within 500ms: ");
  }

  @Test
  void badSettingsAreRejectedWithTheValue() {
    assertThatThrownBy(() -> EtcdMetadataStores.builder().endpoints("127.0.0.1:2379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("etcd endpoint must be an http:// or https:// URL: 127.0.0.1:2379");
    assertThatThrownBy(() -> EtcdMetadataStores.builder().prefix("partkit/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("prefix must start with '/' and not end with '/': 'partkit/'");
    assertThatThrownBy(() -> EtcdMetadataStores.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("endpoints");
  }

  @Test
  void aMemberLeaseThatRunsOutRemovesTheMember() throws Exception {
    MetadataStore s = store();
    s.putMember(io.partkit.spi.Member.of("short"), Duration.ofSeconds(1));
    assertThat(s.members().ids()).hasSize(1);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!s.members().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50); // polling interval: etcd expires the lease on its own clock
    }
    assertThat(s.members().isEmpty()).as("etcd removed the member when its lease expired").isTrue();
    assertThat(s.renewMember(io.partkit.spi.NodeId.of("short"))).isFalse();
  }
}
