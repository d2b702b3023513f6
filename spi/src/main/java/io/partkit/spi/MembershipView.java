package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable snapshot of the live members, with a version that grows with every change.
 *
 * <p>Members are kept sorted by {@link NodeId}: strategies iterate them in this order, which is
 * what makes placement independent of the order members joined or were listed in (Ignite sorts
 * its topology the same way before calling an affinity function).
 */
public final class MembershipView {

  private final long version;
  private final List<Member> members;
  private final NodeId[] ids;

  private MembershipView(long version, List<Member> sortedMembers) {
    this.version = version;
    this.members = Collections.unmodifiableList(sortedMembers);
    this.ids = sortedMembers.stream().map(Member::id).toArray(NodeId[]::new);
  }

  /**
   * A view of the given members.
   *
   * @param version the view's version, non-negative; a coordinator increments it on every change
   * @throws IllegalArgumentException if the version is negative or two members share an id (all
   *     duplicated ids are named)
   */
  public static MembershipView of(long version, Collection<Member> members) {
    requireNonNull(members, "members");
    if (version < 0) {
      throw new IllegalArgumentException("membership version must be >= 0: " + version);
    }
    TreeMap<NodeId, Member> byId = new TreeMap<>();
    List<NodeId> duplicates = new ArrayList<>();
    for (Member member : members) {
      requireNonNull(member, "member");
      if (byId.putIfAbsent(member.id(), member) != null && !duplicates.contains(member.id())) {
        duplicates.add(member.id());
      }
    }
    if (!duplicates.isEmpty()) {
      throw new IllegalArgumentException(
          "member ids must be unique; duplicated: " + duplicates + " in " + members.size()
              + " members");
    }
    return new MembershipView(version, new ArrayList<>(byId.values()));
  }

  /** A view of the given members at version 0. */
  public static MembershipView of(Member... members) {
    return of(0, Arrays.asList(members));
  }

  /**
   * {@code n} equal members named {@code prefix0 .. prefix(n-1)}, zero-padded so they sort in
   * order.
   */
  public static MembershipView ofEqualNodes(String prefix, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("node count must be >= 0: " + n);
    }
    int digits = Integer.toString(Math.max(0, n - 1)).length();
    List<Member> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(Member.of(prefix + String.format("%0" + digits + "d", i)));
    }
    return of(0, list);
  }

  /** The version; higher is newer. */
  public long version() {
    return version;
  }

  /** The members, sorted by id, unmodifiable. */
  public List<Member> members() {
    return members;
  }

  /** Number of members. */
  public int size() {
    return ids.length;
  }

  /** True when there are no members. */
  public boolean isEmpty() {
    return ids.length == 0;
  }

  /** The member at a position in id order. */
  public Member member(int index) {
    return members.get(index);
  }

  /** The ids, sorted. */
  public List<NodeId> ids() {
    return List.of(ids);
  }

  /** Position of the member in id order, or a negative number when absent. */
  public int indexOf(NodeId id) {
    return Arrays.binarySearch(ids, id);
  }

  /** True when a member has this id. */
  public boolean contains(NodeId id) {
    return indexOf(id) >= 0;
  }

  /** The member with this id, if present. */
  public Optional<Member> find(NodeId id) {
    int i = indexOf(id);
    return i < 0 ? Optional.empty() : Optional.of(members.get(i));
  }

  /** Sum of all weights. */
  public long totalWeight() {
    long total = 0;
    for (Member m : members) {
      total += m.weight();
    }
    return total;
  }

  /** A new view, one version later, with the member added or replaced. */
  public MembershipView with(Member member) {
    TreeMap<NodeId, Member> byId = new TreeMap<>();
    members.forEach(m -> byId.put(m.id(), m));
    byId.put(member.id(), member);
    return new MembershipView(version + 1, new ArrayList<>(byId.values()));
  }

  /**
   * A new view, one version later, without the member.
   *
   * @throws IllegalArgumentException if no member has that id
   */
  public MembershipView without(NodeId id) {
    if (!contains(id)) {
      throw new IllegalArgumentException("no member " + id + " in " + ids());
    }
    List<Member> rest = new ArrayList<>(members);
    rest.removeIf(m -> m.id().equals(id));
    return new MembershipView(version + 1, rest);
  }

  /** Distinct zone labels in sort order (empty labels excluded). */
  public List<String> zones() {
    return members.stream().map(Member::zone).filter(z -> !z.isEmpty()).distinct()
        .sorted(Comparator.naturalOrder()).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MembershipView other && version == other.version
        && members.equals(other.members);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(version) * 31 + members.hashCode();
  }

  @Override
  public String toString() {
    return "MembershipView{version=" + version + ", members=" + ids() + "}";
  }
}
