package io.partkit.harness.ignite;

import io.partkit.harness.system.DataClient;
import java.util.List;
import java.util.Map;
import org.apache.ignite.Ignition;
import org.apache.ignite.client.ClientCache;
import org.apache.ignite.client.IgniteClient;
import org.apache.ignite.configuration.ClientConfiguration;

/**
 * One worker's thin client of plain keys and byte values on the register cache
 * ({@link IgniteNodeMain#CACHE}): Ignite does not fix a cache's value type, and a run of the bench
 * writes only byte values there, so the keys are placed by the same affinity as the registers.
 * A key is a {@code Long}, so partkit's affinity sees the key itself.
 */
final class IgniteDataClient implements DataClient {

  /** Per request; a batch of a preload is one request. */
  private static final int TIMEOUT_MILLIS = 10_000;

  private final List<String> addresses;
  private IgniteClient client;
  private ClientCache<Long, byte[]> cache;

  IgniteDataClient(List<String> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  @Override
  public void put(long key, byte[] value) {
    cache().put(key, value);
  }

  @Override
  public byte[] get(long key) {
    return cache().get(key);
  }

  @Override
  public void putAll(Map<Long, byte[]> entries) {
    cache().putAll(entries);
  }

  /** Connects on first use (and after a failed connect): opening a worker never fails. */
  private ClientCache<Long, byte[]> cache() {
    if (cache == null) {
      client = Ignition.startClient(new ClientConfiguration()
          .setAddresses(addresses.toArray(String[]::new))
          .setTimeout(TIMEOUT_MILLIS)
          // partkit's affinity is not Ignite's own: partition awareness would not route by it
          .setPartitionAwarenessEnabled(false));
      cache = client.cache(IgniteNodeMain.CACHE);
    }
    return cache;
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }
}
