package io.partkit.harness.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.OptionValues;
import java.util.Map;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.cache.PartitionLossPolicy;
import org.apache.ignite.configuration.CacheConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The register cache's configuration as a run's options make it, without starting Ignite
 * (docs/backends.md, "Under faults": why the defaults differ from Ignite's).
 */
class IgniteCacheConfigTest {

  /** The cache a node builds from the options as {@link IgniteSystem} passes them. */
  private static CacheConfiguration<Long, Long> cacheFor(Map<String, String> given) {
    OptionValues o = new IgniteProvider().options().check(given, 3);
    return IgniteNodeMain.cache(IgniteNodeMain.parse(
        IgniteSystem.cacheArgs(o).toArray(String[]::new)));
  }

  @Test
  void byDefaultReadsGoToThePrimaryAndWritesWaitForEveryCopy() {
    CacheConfiguration<Long, Long> cache = cacheFor(Map.of());
    // Ignite's own defaults are readFromBackup=true and PRIMARY_SYNC: a get may then be answered
    // by a backup that has not applied a write the primary already serves
    assertThat(cache.isReadFromBackup()).isFalse();
    assertThat(cache.getWriteSynchronizationMode())
        .isEqualTo(CacheWriteSynchronizationMode.FULL_SYNC);
    assertThat(cache.getAtomicityMode()).isEqualTo(CacheAtomicityMode.ATOMIC);
    assertThat(cache.getCacheMode()).isEqualTo(CacheMode.PARTITIONED);
    assertThat(cache.getBackups()).isEqualTo(1);
    assertThat(cache.getPartitionLossPolicy()).isEqualTo(PartitionLossPolicy.READ_WRITE_SAFE);
  }

  @Test
  void ignitesOwnDefaultsAreOptions() {
    CacheConfiguration<Long, Long> cache = cacheFor(Map.of("read-from-backup", "true",
        "write-sync", "primary-sync"));
    assertThat(cache.isReadFromBackup()).isTrue();
    assertThat(cache.getWriteSynchronizationMode())
        .isEqualTo(CacheWriteSynchronizationMode.PRIMARY_SYNC);
    assertThat(new CacheConfiguration<Long, Long>().isReadFromBackup())
        .as("Ignite's default, which the option restores").isTrue();
    // (an unset write synchronization mode is null in CacheConfiguration; Ignite starts the
    // cache with PRIMARY_SYNC then)
    assertThat(cacheFor(Map.of("write-sync", "full-async")).getWriteSynchronizationMode())
        .isEqualTo(CacheWriteSynchronizationMode.FULL_ASYNC);
  }

  @Test
  void anUnknownWriteSyncModeIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> new IgniteProvider().options().check(
        Map.of("write-sync", "quorum"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ignite option write-sync=quorum")
        .hasMessageContaining("one of full-sync, primary-sync, full-async");
  }
}
