/**
 * The coordinator of the "Fixed Partitions" pattern: its API ({@code Coordinator},
 * {@code RebalancePlan}, {@code Coordinators}), the {@code MetadataStore} contract and the
 * embedded store.
 *
 * <p>A module-info rather than only an {@code Automatic-Module-Name}: an automatic module exports
 * every package, and {@code io.partkit.coordinator.internal} (plumbing the etcd store shares) is
 * not API. It is exported to the etcd store's module alone; on the class path nothing is
 * enforced, and its package documentation says so. {@code requires transitive} for the SPI and
 * statistics: the API takes and returns their types.
 *
 * <p>{@code @SuppressWarnings("module")}: javac warns that the target of the qualified export is
 * not found, because the etcd module is built after this one; that is expected.
 */
@SuppressWarnings("module")
module io.partkit.coordinator {
  requires transitive io.partkit.spi;
  requires transitive io.partkit.stats;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;

  exports io.partkit.coordinator;
  exports io.partkit.coordinator.internal to io.partkit.coordinator.etcd;
}
