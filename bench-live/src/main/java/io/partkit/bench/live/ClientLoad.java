package io.partkit.bench.live;

import io.partkit.bench.LiveResult.ClientFigures;
import io.partkit.harness.system.DataClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The steady client load of a live run: {@code workers} threads, each with its own client,
 * together issuing {@code rate} operations per second on a fixed schedule (80% reads, 20% writes,
 * keys uniform over the preloaded ones). An operation's latency runs from its scheduled start, so
 * an operation delayed by a stall counts the stall (no coordinated omission); a worker that fell
 * behind catches up back to back.
 */
final class ClientLoad implements AutoCloseable {

  /** Reads out of every 10 operations. */
  private static final int READS_IN_TEN = 8;

  private final long started = System.nanoTime();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final List<Log> logs = new ArrayList<>();

  /**
   * Starts the workers.
   *
   * @param clients opens one client per worker
   * @param keys keys {@code 0..keys-1} exist
   * @param valueBytes the size of written values
   */
  ClientLoad(Supplier<DataClient> clients, int workers, int rate, int keys, int valueBytes,
      long seed) {
    double periodNanos = 1e9 * workers / rate; // each worker's interval between operations
    for (int w = 0; w < workers; w++) {
      Log log = new Log();
      logs.add(log);
      DataClient client = clients.get();
      SplittableRandom random = new SplittableRandom(seed * 31 + w);
      long offset = (long) (periodNanos * w / workers);
      Thread t = new Thread(() -> work(client, random, log, offset, periodNanos, keys,
          valueBytes), "live-client-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
  }

  private void work(DataClient client, SplittableRandom random, Log log, long offset,
      double periodNanos, int keys, int valueBytes) {
    try (client) {
      byte[] value = new byte[valueBytes];
      for (long k = 0; !stop.get(); k++) {
        long intended = offset + (long) (k * periodNanos);
        long wait = intended - (System.nanoTime() - started);
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait); // the schedule, not a wait for a condition
        }
        long key = LiveKeys.key(random.nextInt(keys));
        boolean ok = true;
        try {
          if (random.nextInt(10) < READS_IN_TEN) {
            client.get(key);
          } else {
            random.nextBytes(value);
            client.put(key, value);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (Exception e) {
          ok = false;
        }
        log.add(intended, System.nanoTime() - started, ok);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Nanoseconds since the load started. */
  long now() {
    return System.nanoTime() - started;
  }

  /** Stops the workers, waiting up to a minute each for the operation it has in flight. */
  @Override
  public void close() {
    stop.set(true);
    for (Thread t : threads) {
      try {
        t.join(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Every operation so far, all workers, sorted by scheduled start. */
  Operations operations() {
    List<long[]> parts = new ArrayList<>();
    int total = 0;
    for (Log log : logs) {
      long[] copy;
      synchronized (log) {
        copy = Arrays.copyOf(log.data, log.size * 3);
      }
      parts.add(copy);
      total += copy.length / 3;
    }
    long[][] ops = new long[total][];
    int i = 0;
    for (long[] p : parts) {
      for (int k = 0; k < p.length; k += 3) {
        ops[i++] = new long[] {p[k], p[k + 1], p[k + 2]};
      }
    }
    Arrays.sort(ops, (a, b) -> Long.compare(a[0], b[0]));
    return new Operations(ops);
  }

  /** One worker's operations: scheduled start, end, ok (1) or failed (0), flat. */
  private static final class Log {
    long[] data = new long[3 * 4096];
    int size;

    synchronized void add(long intended, long end, boolean ok) {
      if (3 * size + 3 > data.length) {
        data = Arrays.copyOf(data, data.length * 2);
      }
      data[3 * size] = intended;
      data[3 * size + 1] = end;
      data[3 * size + 2] = ok ? 1 : 0;
      size++;
    }
  }

  /** Recorded operations: {@code [scheduled start, end, ok]} in nanoseconds since the start. */
  record Operations(long[][] ops) {

    /**
     * The clients over {@code [from, to)}: operations completed per second in it; latency
     * percentiles and failures of the operations scheduled in it.
     */
    ClientFigures window(long from, long to) {
      double seconds = Math.max(1, to - from) / 1e9;
      long completed = 0;
      long errors = 0;
      List<Long> latencies = new ArrayList<>();
      for (long[] op : ops) {
        if (op[1] >= from && op[1] < to && op[2] == 1) {
          completed++;
        }
        if (op[0] >= from && op[0] < to) {
          if (op[2] == 1) {
            latencies.add(op[1] - op[0]);
          } else {
            errors++;
          }
        }
      }
      if (latencies.isEmpty()) {
        return new ClientFigures(seconds, completed / seconds, Double.NaN, Double.NaN,
            Double.NaN, errors);
      }
      long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
      return new ClientFigures(seconds, completed / seconds, percentile(sorted, 0.50) / 1e6,
          percentile(sorted, 0.99) / 1e6, sorted[sorted.length - 1] / 1e6, errors);
    }

    /** Per whole second since the start, until {@code end}: ops/s, p99 ms and failures. */
    double[][] perSecond(long end) {
      int seconds = (int) Math.max(1, (end + 999_999_999L) / 1_000_000_000L);
      double[] completed = new double[seconds];
      double[] failed = new double[seconds];
      List<List<Long>> latencies = new ArrayList<>();
      for (int s = 0; s < seconds; s++) {
        latencies.add(new ArrayList<>());
      }
      for (long[] op : ops) {
        int done = (int) (op[1] / 1_000_000_000L);
        int scheduled = (int) (op[0] / 1_000_000_000L);
        if (op[2] == 1 && done < seconds) {
          completed[done]++;
        }
        if (scheduled < seconds) {
          if (op[2] == 1) {
            latencies.get(scheduled).add(op[1] - op[0]);
          } else {
            failed[scheduled]++;
          }
        }
      }
      double[] p99 = new double[seconds];
      for (int s = 0; s < seconds; s++) {
        long[] sorted = latencies.get(s).stream().mapToLong(Long::longValue).sorted().toArray();
        p99[s] = sorted.length == 0 ? Double.NaN : percentile(sorted, 0.99) / 1e6;
      }
      return new double[][] {completed, p99, failed};
    }

    private static double percentile(long[] sorted, double q) {
      int index = (int) Math.ceil(q * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
  }
}
