package io.partkit.strategy.rendezvous;

import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;

/**
 * Weighted rendezvous (highest random weight) hashing directly over keys: every member scores
 * every key, the best score owns it, the next ones hold its replicas.
 *
 * <h2>Score (persisted format: never changes for the same inputs)</h2>
 * For a member with id {@code id} and weight {@code w}, an item {@code x} (a key's 64-bit hash, or
 * a partition number in the {@code rendezvous} strategy) and a seed {@code s}:
 * <pre>
 *   mix64(z)  = SplitMix64's finalizer: z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
 *               z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL; z ^ (z >>> 31)
 *   nodeHash  = KeyHash.MURMUR3_128.hash(UTF-8 bytes of id)
 *   itemKey   = mix64(x ^ mix64(s ^ 0x9e3779b97f4a7c15L))
 *   u         = mix64(nodeHash ^ itemKey)
 *   h         = ((u >>> 11) + 0.5) / 2^53                  (uniform in the open interval (0, 1))
 *   score     = w / -StrictMath.log(h)
 * </pre>
 * Members are ranked by score descending, then {@code u >>> 11} descending, then id ascending
 * (so ties are deterministic; with equal weights the order is exactly {@code u >>> 11}
 * descending, which needs no logarithm). {@code StrictMath} makes the logarithm bit-identical
 * on every JVM. The {@code w / -ln(h)} form is the "logarithmic method" of Schindelhauer and
 * Schomaker ("Weighted distributed hash tables", SPAA 2005): a member of weight {@code w} wins a
 * share {@code w / W} of the items, and a join or leave moves only the items it must.
 *
 * <h2>Replicas</h2>
 * {@link #topK} picks members in rank order; when zone-aware, it skips members in zones already
 * holding a replica while unused zones remain, then members on racks already used while unused
 * racks remain.
 *
 * <h2>Cost</h2>
 * {@link #primary} is one mix per member (plus one logarithm per member with unequal weights);
 * {@link #topK} is {@code k} passes over the members. Neither allocates. Instances are immutable
 * and thread-safe.
 */
public interface RendezvousHashing {

  /** Rendezvous hashing over {@code view} with seed 0, zone-aware. */
  static RendezvousHashing of(MembershipView view) {
    return of(view, 0L, true);
  }

  /**
   * Rendezvous hashing over {@code view}.
   *
   * @param seed changes every score (two seeds give independent placements)
   * @param zoneAware whether {@link #topK} spreads replicas over zones, then racks
   * @throws IllegalArgumentException if the view is empty
   */
  static RendezvousHashing of(MembershipView view, long seed, boolean zoneAware) {
    return new HrwNodes(view, seed, zoneAware);
  }

  /** The members this instance ranks. */
  MembershipView view();

  /** The member with the best score for the key whose hash is {@code keyHash}. */
  NodeId primary(long keyHash);

  /**
   * Writes the {@code min(k, members)} best members for the key into {@code out[0..]}, primary
   * first, and returns how many it wrote.
   *
   * @throws IllegalArgumentException if {@code k < 1} or {@code out} is shorter than
   *     {@code min(k, members)}
   */
  int topK(long keyHash, int k, NodeId[] out);
}
