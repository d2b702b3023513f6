package io.partkit.harness.system;

import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.SetupException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shared base of a system made of one process per node: it keeps the processes the runtime
 * started and does what every such system does with them, so a system writes only how a node
 * starts ({@link #startNode}) and what is special about it.
 *
 * <ul>
 *   <li>{@link #kill} is {@code kill -9} of the node's process; {@link #restart} starts a killed
 *       node again through {@link #startNode}, unless it runs, left the membership (it comes back
 *       by joining, not by a restart) or was killed for good ({@link #killForGood});
 *   <li>{@link #pause} and {@link #resume} are {@code SIGSTOP} and {@code SIGCONT};
 *   <li>{@link #close} resumes and kills every process, all at once.
 * </ul>
 */
public abstract class NodeProcessSystem
    implements SystemUnderTest, Capability.Kill, Capability.Pause {

  private final Map<String, NodeProcess> processes = new ConcurrentHashMap<>();
  /** Nodes the nemesis killed and did not restart: down on purpose, not crashed. */
  private final Set<String> killed = ConcurrentHashMap.newKeySet();
  /** Nodes that left the membership by stopping and did not join again. */
  private final Set<String> left = ConcurrentHashMap.newKeySet();
  /** Nodes killed for good ({@link #killForGood}): no restart or join brings them back. */
  private final Set<String> gone = ConcurrentHashMap.newKeySet();
  private volatile SystemContext context;
  private volatile List<String> nodes = List.of();
  private final String name;

  /** A system called {@code name} on the command line. */
  protected NodeProcessSystem(String name) {
    this.name = name;
  }

  @Override
  public final String name() {
    return name;
  }

  /**
   * Names the data nodes {@code prefix1 .. prefixN} ({@code N} the context's node count), opens
   * the runtime for them and for {@code others} (nodes that hold no data: a coordinator, a
   * metadata store) and keeps the context for {@link #context()} and {@link #runtime()}. Called
   * first in {@link #start}.
   *
   * @return the data nodes, as {@link #nodes()} returns them from now on
   */
  protected final List<String> openNodes(SystemContext ctx, String prefix, List<String> others) {
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= ctx.nodes(); i++) {
      names.add(prefix + i);
    }
    List<String> all = new ArrayList<>(names);
    all.addAll(others);
    ctx.runtime().open(all);
    this.context = ctx;
    this.nodes = List.copyOf(names);
    return nodes;
  }

  /**
   * The context {@link #openNodes} was given.
   *
   * @throws IllegalStateException before it was called
   */
  protected final SystemContext context() {
    if (context == null) {
      throw new IllegalStateException(name() + " is not started");
    }
    return context;
  }

  /** Where the nodes run: the runtime of {@link #context()}. */
  protected final NodeRuntime runtime() {
    return context().runtime();
  }

  /** The data nodes {@link #openNodes} named; empty before. */
  @Override
  public List<String> nodes() {
    return nodes;
  }

  /**
   * Starts {@code node}'s process (the first time, or again after a kill with the same data and
   * address), records it with {@link #started} and waits until it serves.
   *
   * @throws SetupException if it cannot, or it does not serve in time
   */
  protected abstract void startNode(String node);

  /** Records the process the runtime started for {@code node}; returns it. */
  protected final NodeProcess started(String node, NodeProcess process) {
    processes.put(node, process);
    return process;
  }

  /**
   * False when {@link #restart} must leave {@code node} down: it left the membership ({@link
   * #markLeft}; it comes back by {@link #rejoin}) or was killed for good.
   */
  private boolean mayRestart(String node) {
    return !left.contains(node) && !gone.contains(node);
  }

  /**
   * {@code kill -9} of {@code node}'s process for good (a machine lost, as {@code bench --live}'s
   * kill): from now on neither {@link #restart} nor {@link #rejoin} starts it again.
   */
  protected final void killForGood(String node) {
    gone.add(node);
    kill(node);
  }

  /** True when {@code node} was killed for good ({@link #killForGood}). */
  protected final boolean isGone(String node) {
    return gone.contains(node);
  }

  /**
   * Records that {@code node} leaves the membership by stopping (for a system whose leave is a
   * graceful shutdown); false when it had left already.
   */
  protected final boolean markLeft(String node) {
    return left.add(node);
  }

  /** True when {@code node} left the membership and did not join again. */
  protected final boolean hasLeft(String node) {
    return left.contains(node);
  }

  /** Starts a node that left again, through {@link #restart}; a no-op when it did not leave. */
  protected final void rejoin(String node) {
    if (left.remove(node)) {
      restart(node);
    }
  }

  /**
   * The process of {@code node}, or null when it was never started.
   *
   * @throws IllegalArgumentException when {@code node} is none of this system's nodes
   */
  protected final NodeProcess process(String node) {
    NodeProcess p = processes.get(node);
    if (p == null && !nodes().contains(node)) {
      throw new IllegalArgumentException("no " + name() + " node " + node + "; nodes: "
          + nodes());
    }
    return p;
  }

  /** True when {@code node}'s process runs (a paused one runs). */
  protected final boolean running(String node) {
    NodeProcess p = processes.get(node);
    return p != null && p.isAlive();
  }

  /** True when the nemesis killed {@code node} and it was not restarted since. */
  protected final boolean killed(String node) {
    return killed.contains(node);
  }

  @Override
  public void kill(String node) {
    NodeProcess p = process(node);
    if (p != null) {
      p.kill();
      killed.add(node);
    }
  }

  @Override
  public void restart(String node) {
    process(node); // an unknown node is refused
    if (running(node) || !mayRestart(node)) {
      return;
    }
    killed.remove(node);
    startNode(node);
  }

  @Override
  public void pause(String node) {
    NodeProcess p = process(node);
    if (p != null) {
      p.pause();
    }
  }

  @Override
  public void resume(String node) {
    NodeProcess p = process(node);
    if (p != null) {
      p.resume();
    }
  }

  /**
   * Kills every process still running, all at once (a kill waits for the process to be gone),
   * resuming it first so that a paused one ends too on every runtime.
   *
   * @throws RuntimeException the first failure, with the others suppressed, after trying all
   */
  protected final void stopProcesses() {
    List<RuntimeException> errors = new ArrayList<>();
    processes.values().parallelStream().filter(NodeProcess::isAlive).forEach(p -> {
      try {
        p.resume();
        p.kill();
      } catch (RuntimeException e) {
        synchronized (errors) {
          errors.add(e);
        }
      }
    });
    if (!errors.isEmpty()) {
      RuntimeException first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  /** Stops every node's process. */
  @Override
  public void close() {
    stopProcesses();
  }

  /**
   * Waits {@code millis} between two polls of a loop bounded by a deadline.
   *
   * @throws SetupException when interrupted (saying what it was waiting for)
   */
  protected static void pollPause(long millis, String waitingFor) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SetupException("interrupted waiting for " + waitingFor, e);
    }
  }
}
