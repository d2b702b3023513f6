package io.partkit.harness.runtime;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a runtime can do beyond starting nodes, one interface per thing, as {@link
 * io.partkit.harness.system.Capability} is for systems. A runtime implements the ones it offers;
 * a nemesis that needs one checks for it before anything starts and refuses the run, naming what
 * is missing, instead of finding out from an exception in the middle of the fault phase.
 */
public interface RuntimeCapability {

  /**
   * Network cuts between nodes that drop real packets. Clients of the harness are never cut off:
   * only node-to-node traffic is.
   */
  interface Partitions extends RuntimeCapability {
    /**
     * Cuts the network Jepsen's way: each node in {@code grudge} drops every packet from the
     * nodes in its set (a one-way cut when the other side keeps no grudge). Replaces any earlier
     * cut.
     *
     * @throws IllegalArgumentException for a node the runtime was not opened with
     * @throws IOException if a rule cannot be installed
     */
    void partition(Map<String, Set<String>> grudge) throws IOException;

    /** Removes every cut; a no-op when there is none. */
    void heal() throws IOException;
  }

  /** The capabilities in the order {@link #names} lists them. */
  List<Class<? extends RuntimeCapability>> ALL = List.of(Partitions.class);

  /** A capability's name in messages and listings. */
  static String name(Class<? extends RuntimeCapability> capability) {
    return capability == Partitions.class ? "partitions" : capability.getSimpleName();
  }

  /** The names of the capabilities that runtimes of class {@code type} offer. */
  static List<String> names(Class<?> type) {
    List<String> names = new ArrayList<>();
    for (Class<? extends RuntimeCapability> c : ALL) {
      if (c.isAssignableFrom(type)) {
        names.add(name(c));
      }
    }
    return names;
  }
}
