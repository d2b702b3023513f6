package io.partkit.replica;

import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * What a replica makes durable. Replaying any prefix of the records a replica produced, in order,
 * gives a state it may restart from ({@link Replica#restore}). The control's records ({@link
 * ControlState}) are a kind apart: only {@link Control#restore} reads them.
 */
public sealed interface Record {

  int partition();

  /**
   * The partition's configuration was adopted, in {@code numbering}.
   */
  record Configured(int partition, long epoch, int primary, List<Integer> backups,
      Numbering numbering) implements Record {
    public Configured {
      java.util.Objects.requireNonNull(numbering, "numbering");
      backups = List.copyOf(backups);
    }

    /** A configuration of a control that numbers nothing. */
    public Configured(int partition, long epoch, int primary, List<Integer> backups) {
      this(partition, epoch, primary, backups, Numbering.NONE);
    }
  }

  /**
   * The node started on an empty log as incarnation {@code incarnation}: a node whose disk is
   * wiped starts again as another. It belongs to no one partition: {@link #partition} is -1.
   */
  record Born(long incarnation) implements Record {
    @Override
    public int partition() {
      return -1;
    }
  }

  /** As primary, a levelling numbered {@code level} began. */
  record LevelBegun(int partition, long epoch, long level) implements Record {}

  /** A write numbered {@code seq}. */
  record Written(int partition, long epoch, long level, long seq, Bytes key, Bytes value)
      implements Record {}

  /**
   * As backup of {@code primary}, a snapshot replaced the partition's data. Logs of builds that
   * sent whole copies in one message hold it; a replica now logs a copy as {@link SnapshotPage}
   * records, and replays this one alike.
   */
  record Snapshotted(int partition, long epoch, int primary, long level, long seq,
      SortedMap<Bytes, Bytes> data, Numbering numbering) implements Record {
    public Snapshotted {
      java.util.Objects.requireNonNull(numbering, "numbering");
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
    }

    /** A snapshot of a driver that numbers nothing. */
    public Snapshotted(int partition, long epoch, int primary, long level, long seq,
        SortedMap<Bytes, Bytes> data) {
      this(partition, epoch, primary, level, seq, data, Numbering.NONE);
    }
  }

  /**
   * As backup of {@code primary}, page {@code page} of a snapshot of the partition as of write
   * {@code seq} arrived. The pages gather apart from the partition's data, and the last replaces
   * the data with them, as {@link Snapshotted} does: a restart from a log that ends before the
   * last page finds the partition as it was before the first.
   */
  record SnapshotPage(int partition, long epoch, int primary, long level, long seq, int page,
      boolean last, SortedMap<Bytes, Bytes> data, Numbering numbering) implements Record {
    public SnapshotPage {
      java.util.Objects.requireNonNull(numbering, "numbering");
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
    }
  }

  /**
   * As backup of {@code primary}, the partition reached the state the primary began level {@code
   * level} from without a copy ({@link Message.Level}): the keys in {@code put} now hold those
   * values, those in {@code removed} are absent, and the partition is as of write {@code seq}.
   */
  record Rebased(int partition, long epoch, int primary, long level, long seq,
      SortedMap<Bytes, Bytes> put, SortedSet<Bytes> removed) implements Record {
    public Rebased {
      put = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(put));
      removed = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(removed));
    }
  }

  /**
   * The partition, numbered at half of {@code modulus}, was split at {@code cut} ({@link
   * Numbering#split}; null for hash halves): the keys it no longer holds at {@code modulus} moved
   * to partition {@code partition + modulus / 2}, which then has the same numbering. One record,
   * so a restart from any prefix of the log finds the node before the split or after it, never
   * half-way.
   */
  record Split(int partition, long modulus, Bytes cut) implements Record {
    public Split {
      if (modulus < 2 || modulus % 2 != 0 || partition < 0 || partition >= modulus / 2) {
        throw new IllegalArgumentException("partition " + partition + " cannot split to modulus "
            + modulus);
      }
    }

    /** A split of hash halves. */
    public Split(int partition, long modulus) {
      this(partition, modulus, null);
    }

    /** The partition that takes the keys moved out. */
    public int child() {
      return Math.toIntExact(partition + modulus / 2);
    }
  }

  /**
   * The partition took the keys of {@code sibling} (the other half of the split that made both,
   * {@code partition} plus the new modulus) and is numbered {@code numbering} from now on, at half
   * the modulus and a later generation ({@link Numbering#merge}); the sibling's copy is emptied
   * and fenced past its epoch. One record, so a restart from any prefix of the log finds the node
   * before the merge or after it, never half-way.
   */
  record Merge(int partition, int sibling, Numbering numbering) implements Record {
    public Merge {
      java.util.Objects.requireNonNull(numbering, "numbering");
      if (partition < 0 || partition >= numbering.modulus()
          || sibling != partition + numbering.modulus()) {
        throw new IllegalArgumentException("partition " + partition + " cannot merge with "
            + sibling + " into modulus " + numbering.modulus() + ": expected its sibling "
            + (partition + numbering.modulus()));
      }
    }
  }

  /**
   * Page {@code page} of a {@link Checkpoint}'s data, which does not fit one record: a checkpoint
   * of a large partition is its pages, numbered from 0, then the {@link Checkpoint} that names
   * how many came before it and completes them. The pages gather apart from the partition's data,
   * so a log that ends before the checkpoint's last record finds the partition as it was before
   * the first page.
   */
  record CheckpointPage(int partition, int page, SortedMap<Bytes, Bytes> data) implements Record {
    public CheckpointPage {
      if (page < 0) {
        throw new IllegalArgumentException("a checkpoint page is numbered from 0, got " + page);
      }
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
    }
  }

  /**
   * One partition's whole durable state, as replaying the records before it left it: restoring
   * from a node's {@link Replica#checkpoint} alone gives the state its whole log gives, so a driver
   * may rewrite a restored node's log to it. Replaying it sets every field it names, whatever the
   * partition held before. A large partition's data is split: {@code pages} {@link
   * CheckpointPage} records come right before this one, which holds the data's last page and
   * takes them all.
   *
   * @param configured whether a configuration (or a primary's snapshot) at {@code epoch} was
   *     adopted
   * @param deposed a primary that a split stopped serving until configured again
   * @param nextLevel the level number this node, as primary, begins next
   * @param levelled a backup that holds the snapshot of {@code level}
   * @param inherited keys a split moved here before any configuration reached the node
   * @param stateEpoch with {@code stateLevel}, the level whose state {@code data} is, as of write
   *     {@code seq} (the level this node last began as primary or took as backup; 0: unknown)
   * @param data the partition's data, or its last page when {@code pages} is over 0
   * @param pages how many {@link CheckpointPage} records right before this one hold the rest
   */
  record Checkpoint(int partition, long epoch, boolean configured, Role role, int primary,
      List<Integer> backups, boolean deposed, long level, long nextLevel, boolean levelled,
      long seq, Numbering numbering, boolean inherited, long stateEpoch, long stateLevel,
      SortedMap<Bytes, Bytes> data, int pages)
      implements Record {
    public Checkpoint {
      java.util.Objects.requireNonNull(role, "role");
      java.util.Objects.requireNonNull(numbering, "numbering");
      if (pages < 0) {
        throw new IllegalArgumentException("a checkpoint has at least 0 pages, got " + pages);
      }
      backups = List.copyOf(backups);
      data = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(data));
    }

    /** A checkpoint whose data is all in this record. */
    public Checkpoint(int partition, long epoch, boolean configured, Role role, int primary,
        List<Integer> backups, boolean deposed, long level, long nextLevel, boolean levelled,
        long seq, Numbering numbering, boolean inherited, long stateEpoch, long stateLevel,
        SortedMap<Bytes, Bytes> data) {
      this(partition, epoch, configured, role, primary, backups, deposed, level, nextLevel,
          levelled, seq, numbering, inherited, stateEpoch, stateLevel, data, 0);
    }
  }

  /**
   * The control's durable state after a change ({@link Control#restore}): every partition's row
   * and the nodes it knows, whole. A change of several rows (a split, the failovers of a node's
   * partitions) is then one write of the coordinator's store, and restoring any prefix of the
   * control's records needs only the last of them. It belongs to no one partition: {@link
   * #partition} is -1.
   *
   * @param base the first table's partition count ({@link Numbering#base})
   * @param nodes every node the control knows (joined and not forgotten)
   * @param leaving those of them leaving gracefully
   * @param incarnations each node's incarnation as last heard ({@link Message.Pong}), by node
   */
  record ControlState(int base, List<Row> rows, SortedSet<Integer> nodes,
      SortedSet<Integer> leaving, SortedMap<Integer, Long> incarnations) implements Record {
    public ControlState {
      rows = List.copyOf(rows);
      nodes = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(nodes));
      leaving = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(leaving));
      incarnations = java.util.Collections.unmodifiableSortedMap(
          new java.util.TreeMap<>(incarnations));
    }

    /** A state that has heard no incarnation. */
    public ControlState(int base, List<Row> rows, SortedSet<Integer> nodes,
        SortedSet<Integer> leaving) {
      this(base, rows, nodes, leaving, new java.util.TreeMap<>());
    }

    @Override
    public int partition() {
      return -1;
    }

    /**
     * One partition's row: its configuration (primary first) and numbering, the members known to
     * be level, the backups its configuration named joining ({@link Message.Configure}), the
     * split it came from ({@code parent} -1: none), a move under way (null: none) and the
     * members known to have lost their copy (a wiped disk), which never serve it again.
     */
    public record Row(int partition, long epoch, Numbering numbering, List<Integer> members,
        SortedSet<Integer> level, SortedSet<Integer> joining, int parent, long splitAt,
        Move move, SortedSet<Integer> lost) {
      public Row {
        java.util.Objects.requireNonNull(numbering, "numbering");
        members = List.copyOf(members);
        level = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(level));
        joining = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(joining));
        lost = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(lost));
      }

      /** A row with no member known to have lost its copy. */
      public Row(int partition, long epoch, Numbering numbering, List<Integer> members,
          SortedSet<Integer> level, SortedSet<Integer> joining, int parent, long splitAt,
          Move move) {
        this(partition, epoch, numbering, members, level, joining, parent, splitAt, move,
            new java.util.TreeSet<>());
      }

      /** A row whose configuration named no backup joining. */
      public Row(int partition, long epoch, Numbering numbering, List<Integer> members,
          SortedSet<Integer> level, int parent, long splitAt, Move move) {
        this(partition, epoch, numbering, members, level, new java.util.TreeSet<>(), parent,
            splitAt, move);
      }
    }

    /** A live migration of a partition's primary copy from {@code source} to {@code target}. */
    public record Move(int source, int target, boolean joined) {}
  }
}
