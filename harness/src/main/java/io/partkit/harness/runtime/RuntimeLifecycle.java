package io.partkit.harness.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The open-once, close-once state a runtime that starts processes keeps, and the processes it
 * started, so that each runtime's {@code close()} only says how to stop them and what else to
 * remove.
 *
 * <p>Between {@link #markOpened} and {@link #close} a shutdown hook closes the runtime, so that a
 * JVM that exits without closing (a test killed by its timeout, Ctrl-C) leaves no namespaces,
 * containers or remote processes behind. A process whose start overlapped {@code close()} is not
 * adopted: {@link #adopt} says so and the caller stops it, since {@code close()} could not see it.
 *
 * @param <P> the runtime's process type
 */
final class RuntimeLifecycle<P> {
  private final Thread shutdownHook;
  private final List<P> started = new ArrayList<>();
  private boolean opened;
  private boolean closed;

  /**
   * @param runtime the runtime's name in messages ("netns runtime")
   * @param close the runtime's own {@code close()}, which the shutdown hook calls
   */
  RuntimeLifecycle(String runtime, Runnable close) {
    this.shutdownHook = new Thread(() -> {
      try {
        close.run();
      } catch (RuntimeException e) {
        System.err.println(runtime + ": " + e.getMessage());
      }
    }, runtime.replace(' ', '-') + "-cleanup");
  }

  /** Refuses a second {@code open()}, and one after {@code close()}. */
  synchronized void checkNotOpened() {
    if (opened || closed) {
      throw new IllegalStateException("open() is called once, before close()");
    }
  }

  /** From here on {@code close()} has something to undo, and the shutdown hook calls it. */
  void markOpened() {
    synchronized (this) {
      checkNotOpened();
      opened = true;
    }
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Refuses {@code what} (for example "start()") outside open and close. */
  synchronized void checkOpen(String what) {
    if (closed || !opened) {
      throw new IllegalStateException(what + " needs an open runtime");
    }
  }

  /**
   * Records a started process for {@link #close} to stop; false when the runtime was closed
   * meanwhile, in which case the caller stops the process itself.
   */
  synchronized boolean adopt(P process) {
    if (closed) {
      return false;
    }
    started.add(process);
    return true;
  }

  /**
   * Marks the runtime closed and hands over the processes to stop, once: empty when it was closed
   * already. Removes the shutdown hook unless the JVM is already running it.
   */
  Optional<List<P>> close() {
    List<P> processes;
    boolean hooked;
    synchronized (this) {
      if (closed) {
        return Optional.empty();
      }
      closed = true;
      hooked = opened;
      processes = new ArrayList<>(started);
      started.clear();
    }
    if (hooked) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: this very call may be the hook
      }
    }
    return Optional.of(processes);
  }

  /** The failure of a start that {@link #adopt} refused, once the caller stopped the process. */
  static IllegalStateException closedWhileStarting(String node) {
    return new IllegalStateException("the runtime was closed while " + node + " started");
  }
}
