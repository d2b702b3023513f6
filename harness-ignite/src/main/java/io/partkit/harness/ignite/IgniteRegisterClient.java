package io.partkit.harness.ignite;

import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import java.util.List;
import org.apache.ignite.Ignition;
import org.apache.ignite.client.ClientCache;
import org.apache.ignite.client.ClientRetryNonePolicy;
import org.apache.ignite.client.ClientTransaction;
import org.apache.ignite.client.IgniteClient;
import org.apache.ignite.configuration.ClientConfiguration;
import org.apache.ignite.transactions.TransactionConcurrency;
import org.apache.ignite.transactions.TransactionIsolation;

/**
 * One worker's Ignite thin client, a register per key on {@link IgniteNodeMain#CACHE}: read is
 * {@code get}, write {@code put}, cas {@code replace(k, expected, new)} ({@code putIfAbsent}
 * when expecting absent). With a transactional cache every operation runs in its own
 * pessimistic serializable transaction.
 *
 * <p>Honesty: the client must not re-send an operation on its own (a re-sent cas could find its
 * own first attempt's value and answer false for a cas that applied), so its retry policy is
 * {@link ClientRetryNonePolicy}. A write or cas that throws is {@code info}: a timeout or a lost
 * connection after sending may hide an applied write, and Ignite's server errors do not say
 * whether the update reached a copy. It is {@code fail} only when it was surely never sent (no
 * connection could be opened) or when {@code replace}/{@code putIfAbsent} answered false. A read
 * that throws is {@code fail}: it changed nothing.
 */
final class IgniteRegisterClient implements Client {

  /** Per request; a paused or cut-off node must not hold a worker much longer. */
  private static final int TIMEOUT_MILLIS = 5_000;

  private final List<String> addresses;
  private final boolean transactional;
  private IgniteClient client;

  IgniteRegisterClient(List<String> addresses, boolean transactional) {
    this.addresses = List.copyOf(addresses);
    this.transactional = transactional;
  }

  @Override
  public Outcome invoke(Operation op) {
    ClientCache<Long, Long> cache;
    try {
      cache = cache();
    } catch (RuntimeException e) {
      return Outcome.fail(op.value(), "not connected: " + e.getMessage()); // never sent
    }
    try {
      if (!transactional) {
        return apply(cache, op);
      }
      try (ClientTransaction tx = client.transactions().txStart(
          TransactionConcurrency.PESSIMISTIC, TransactionIsolation.SERIALIZABLE,
          TIMEOUT_MILLIS)) {
        Outcome outcome = apply(cache, op);
        tx.commit();
        return outcome;
      }
    } catch (RuntimeException e) {
      String why = e.getClass().getSimpleName() + ": " + e.getMessage();
      return Operation.READ.equals(op.f()) ? Outcome.fail(op.value(), why)
          : Outcome.info(op.value(), why);
    }
  }

  private static Outcome apply(ClientCache<Long, Long> cache, Operation op) {
    Long key = op.key();
    switch (op.f()) {
      case Operation.READ -> {
        return Outcome.ok(cache.get(key));
      }
      case Operation.WRITE -> {
        cache.put(key, (Long) op.value());
        return Outcome.ok(op.value());
      }
      default -> {
        Long expected = op.casExpected();
        boolean set = expected == null ? cache.putIfAbsent(key, op.casNew())
            : cache.replace(key, expected, op.casNew());
        return set ? Outcome.ok(op.value()) : Outcome.mismatch(op.value(), "value differs");
      }
    }
  }

  /** Connects on first use (and after a failed connect): opening a worker never fails. */
  private ClientCache<Long, Long> cache() {
    if (client == null) {
      client = Ignition.startClient(new ClientConfiguration()
          .setAddresses(addresses.toArray(String[]::new))
          .setTimeout(TIMEOUT_MILLIS)
          // one connection to one node at a time; the cache's affinity is not Ignite's own,
          // so partition awareness would not route by it anyway
          .setPartitionAwarenessEnabled(false)
          .setRetryPolicy(new ClientRetryNonePolicy()));
    }
    return client.cache(IgniteNodeMain.CACHE);
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }
}
