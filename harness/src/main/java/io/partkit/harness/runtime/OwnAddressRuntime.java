package io.partkit.harness.runtime;

import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the runtimes that give every node an address of its own on a private network share: the
 * netns runtime ({@link NetnsRuntime}) and the containers runtime ({@link ContainerRuntime}). A
 * node listens on the usual port at its own address, and a partition is the same nftables cut
 * ({@link NftCut}) for every node, installed where each runtime keeps a node's network: the
 * subclass says how ({@link #cut}).
 */
abstract class OwnAddressRuntime implements NodeRuntime, RuntimeCapability.Partitions {

  /** node -> its address, published whole once the network is up. */
  private volatile Map<String, String> addresses = Map.of();

  /** Makes {@code made} (node -> address, in node order) the nodes' addresses from now on. */
  protected final void publishAddresses(Map<String, String> made) {
    addresses = Collections.unmodifiableMap(new LinkedHashMap<>(made));
  }

  /** Every node's address, in node order; empty before the network is up. */
  protected final Map<String, String> addresses() {
    return addresses;
  }

  @Override
  public final String host(String node) {
    return Runtimes.address(addresses, node);
  }

  @Override
  public final int port(String node, String service, int defaultPort) {
    host(node);
    return defaultPort; // every node has an address of its own
  }

  @Override
  public final synchronized void partition(Map<String, Set<String>> grudge) throws IOException {
    Runtimes.checkGrudge(grudge, addresses);
    cut(grudge);
  }

  @Override
  public final synchronized void heal() throws IOException {
    cut(Map.of());
  }

  /**
   * Puts {@code grudge} in force in place of the cut before (empty: none), holding this runtime's
   * lock, with {@link NftCut#script} for each node.
   */
  protected abstract void cut(Map<String, Set<String>> grudge) throws IOException;
}
