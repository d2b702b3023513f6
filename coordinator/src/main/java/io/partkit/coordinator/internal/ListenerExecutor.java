package io.partkit.coordinator.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a store's listener callbacks (table watches, election outcomes) one at a time, in the
 * order they were submitted, on a daemon thread of their own: a listener never runs under the
 * store's lock, and one that throws is logged without stopping those after it. After
 * {@link #shutdown()} new callbacks are dropped, since nobody is listening any more.
 */
public final class ListenerExecutor {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerExecutor.class);

  private final ExecutorService executor;
  private final String owner;

  /**
   * @param threadName name of the callback thread
   * @param owner what the listeners listen to, for log messages
   */
  public ListenerExecutor(String threadName, String owner) {
    this.owner = owner;
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues a callback; a no-op after {@link #shutdown()}. */
  public void run(Runnable callback) {
    if (executor.isShutdown()) {
      return;
    }
    executor.execute(() -> {
      try {
        callback.run();
      } catch (RuntimeException e) {
        LOG.warn("a listener of {} failed", owner, e);
      }
    });
  }

  /** Lets queued callbacks finish and drops later ones. */
  public void shutdown() {
    executor.shutdown();
  }

  /** Closes {@code c}, if any, logging rather than throwing a failure: for clean-up paths. */
  public static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.debug("closing {} failed", c, e);
    }
  }
}
