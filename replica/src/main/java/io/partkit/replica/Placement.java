package io.partkit.replica;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;

/**
 * Where each partition's copies belong: the target a {@link Control} given one moves its table
 * toward, one safe step at a time (a missing member joins as a backup, the target primary takes
 * over once level, members outside the target leave last).
 *
 * <p>Pure and deterministic: the result is a function of the arguments and nothing else, so a
 * control restarted with the same placement aims at the same table. The control asks again only
 * when its inputs change (a node joins, leaves, goes down, comes up, is quarantined or forgotten;
 * a split adds a partition), so a placement that builds on the members a partition has now moves
 * little and never chases the table's own transitions.
 */
public interface Placement {

  /**
   * The target members of every partition.
   *
   * @param members each partition's members now, primary first, by partition number (every
   *     partition of the table)
   * @param eligible the nodes that may hold copies (up, not leaving, not quarantined), ascending,
   *     never empty
   * @param replicas copies per partition asked for, primary included
   * @return for every partition of {@code members}, {@code min(replicas, eligible.size())}
   *     distinct nodes of {@code eligible}, the target primary first; a placement carrying out
   *     targets decided elsewhere may name more (a move that joins its new copies before a later
   *     target drops the old ones), never more than {@code eligible} holds
   */
  SortedMap<Integer, List<Integer>> place(SortedMap<Integer, List<Integer>> members,
      List<Integer> eligible, int replicas);

  /**
   * The target members of every partition, told which nodes are leaving. A placement that carries
   * out targets decided elsewhere may keep the place of a target node that is neither eligible
   * nor leaving (down, quarantined, or lost for good and forgotten) free of spares: whoever
   * decides the targets replaces the node or waits for it, and a spare put in meanwhile would be
   * sent a whole copy that the next targets move elsewhere again. A leaving node was asked to go
   * by the control's own operator, so its place is filled. By default the same as {@link
   * #place(SortedMap, List, int)}.
   *
   * @param leaving the nodes leaving
   * @return as {@link #place(SortedMap, List, int)}, except that a partition's target may have
   *     fewer nodes (never none) when places are kept free
   */
  default SortedMap<Integer, List<Integer>> place(SortedMap<Integer, List<Integer>> members,
      List<Integer> eligible, Set<Integer> leaving, int replicas) {
    return place(members, eligible, replicas);
  }
}
