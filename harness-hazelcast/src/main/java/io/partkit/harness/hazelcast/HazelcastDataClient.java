package io.partkit.harness.hazelcast;

import com.hazelcast.map.IMap;
import io.partkit.harness.system.DataClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Long keys and byte[] values on one {@link IMap}, for {@code partkit bench --live}: the key is
 * Hazelcast's own {@code Long} (so Hazelcast's hashing, or partkit's strategy with
 * {@code partitioning=partkit}, places the key itself), a put is {@code set} (no old value comes
 * back), a preload batch one {@link IMap#putAll}. Single operations wait at most the system's
 * {@code op-timeout-ms}; a batch is bounded by the client's invocation timeout.
 */
final class HazelcastDataClient implements DataClient {

  private final IMap<Long, byte[]> map;
  private final Duration timeout;

  HazelcastDataClient(IMap<Long, byte[]> map, Duration timeout) {
    this.map = map;
    this.timeout = timeout;
  }

  @Override
  public void put(long key, byte[] value) throws Exception {
    map.setAsync(key, value).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public byte[] get(long key) throws Exception {
    return map.getAsync(key).toCompletableFuture()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void putAll(Map<Long, byte[]> entries) {
    map.putAll(entries);
  }

  @Override
  public void close() {
    // the underlying client is shared; the system closes it
  }
}
