package io.partkit.bench;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A measured cluster: {@code n} members {@code node-0000 .. node-(n-1)} with weights, and the two
 * membership changes every subject is measured on. The joining member is {@code node-n} (it sorts
 * last, so bucket-numbered schemes like jump hash can append it); the leaving member is the one in
 * the middle of the id order unless a subject can only drop its last bucket.
 */
final class Cluster {

  private final MembershipView view;
  private final Weights weights;

  private Cluster(MembershipView view, Weights weights) {
    this.view = view;
    this.weights = weights;
  }

  /**
   * @throws IllegalArgumentException if {@code nodes} is below 2 (a leave must leave someone)
   */
  static Cluster of(int nodes, Weights weights) {
    if (nodes < 2) {
      throw new IllegalArgumentException("cluster size must be >= 2: " + nodes);
    }
    List<Member> members = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      members.add(Member.weighted(id(i), weights.weightOf(i)));
    }
    return new Cluster(MembershipView.of(0, members), weights);
  }

  static String id(int index) {
    return String.format(Locale.ROOT, "node-%04d", index);
  }

  MembershipView view() {
    return view;
  }

  int size() {
    return view.size();
  }

  Weights weights() {
    return weights;
  }

  /** The view after {@code node-n} joined, with the weight its position gives it. */
  MembershipView joined() {
    return view.with(Member.weighted(id(view.size()), weights.weightOf(view.size())));
  }

  /** The view after the middle member left. */
  MembershipView leftMiddle() {
    return view.without(view.member(view.size() / 2).id());
  }

  /** The view after the last member (in id order) left. */
  MembershipView leftLast() {
    return view.without(view.member(view.size() - 1).id());
  }

  /** Id of the member at {@code index} in id order. */
  NodeId idAt(int index) {
    return view.member(index).id();
  }
}
