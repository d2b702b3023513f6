package io.partkit.replica.node;

import io.partkit.replica.Numbering;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.Record.ControlState.Move;
import io.partkit.replica.Record.ControlState.Row;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The control's log record ({@link ControlState}) as bytes, apart from the node's records in
 * {@link Codec} (which hands it these by their tag, and whose parts it writes and reads with):
 * the whole table, row by row, then the nodes the control knows and those leaving.
 */
final class ControlStateCodec {

  /** The record's tag, out of the range of the node's records. */
  static final byte TAG = 68;
  /**
   * The tag of the shape before the nodes' incarnations and the rows' lost members: read as
   * having heard none and knowing none lost.
   */
  static final byte NUMBERED_TAG = 67;
  /**
   * The tag of the shape before rows carried their numbering (hash halves only, a modulus each):
   * read as hash halves of the record's base.
   */
  static final byte MODULUS_TAG = 66;
  /** The tag of the shape before rows named joining backups: read as naming none. */
  static final byte NO_JOINING_TAG = 65;
  /**
   * The tag of the shape before keys were numbered as hash slots: its partitions hold other keys
   * than this build's would, so it is refused rather than restored.
   */
  static final byte OTHER_NUMBERING_TAG = 64;

  private ControlStateCodec() {}

  static byte[] encode(ControlState s) {
    Codec.Out out = new Codec.Out();
    DataOutputStream d = out.d;
    try {
      d.writeByte(TAG);
      d.writeInt(s.base());
      d.writeInt(s.rows().size());
      for (Row r : s.rows()) {
        d.writeInt(r.partition());
        d.writeLong(r.epoch());
        Codec.numbering(out, r.numbering());
        Codec.ints(d, r.members());
        Codec.ints(d, r.level());
        Codec.ints(d, r.joining());
        d.writeInt(r.parent());
        d.writeLong(r.splitAt());
        d.writeBoolean(r.move() != null);
        if (r.move() != null) {
          d.writeInt(r.move().source());
          d.writeInt(r.move().target());
          d.writeBoolean(r.move().joined());
        }
        Codec.ints(d, r.lost());
      }
      Codec.ints(d, s.nodes());
      Codec.ints(d, s.leaving());
      d.writeInt(s.incarnations().size());
      for (var e : s.incarnations().entrySet()) {
        d.writeInt(e.getKey());
        d.writeLong(e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.bytes();
  }

  /** The record in {@code bytes}, which begin with {@link #TAG}. */
  static ControlState decode(byte[] bytes) throws Codec.Malformed {
    Codec.In in = new Codec.In(bytes);
    ByteBuffer b = in.b;
    try {
      byte tag = b.get();
      if (tag == OTHER_NUMBERING_TAG) {
        throw new Codec.Malformed("a control state of a build that numbered keys by a hash modulo"
            + " the partition count: this build numbers them as hash slots and cannot restore it"
            + " (start the control afresh on an empty store)");
      }
      if (tag != TAG && tag != NUMBERED_TAG && tag != MODULUS_TAG && tag != NO_JOINING_TAG) {
        throw new Codec.Malformed("not a control state record: tag " + tag);
      }
      int base = b.getInt();
      int n = in.count(41);
      List<Row> rows = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int partition = b.getInt();
        long epoch = b.getLong();
        Numbering numbering = tag == TAG || tag == NUMBERED_TAG ? in.numbering()
            : new Numbering.Hashed(base, b.getLong());
        List<Integer> members = in.ints();
        List<Integer> level = in.ints();
        List<Integer> joining = tag == NO_JOINING_TAG ? List.of() : in.ints();
        int parent = b.getInt();
        long splitAt = b.getLong();
        Move move = in.bool() ? new Move(b.getInt(), b.getInt(), in.bool()) : null;
        List<Integer> lost = tag == TAG ? in.ints() : List.of();
        rows.add(new Row(partition, epoch, numbering, members, new TreeSet<>(level),
            new TreeSet<>(joining), parent, splitAt, move, new TreeSet<>(lost)));
      }
      TreeSet<Integer> nodes = new TreeSet<>(in.ints());
      TreeSet<Integer> leaving = new TreeSet<>(in.ints());
      java.util.TreeMap<Integer, Long> incarnations = new java.util.TreeMap<>();
      if (tag == TAG) {
        int count = in.count(12);
        for (int i = 0; i < count; i++) {
          incarnations.put(b.getInt(), b.getLong());
        }
      }
      ControlState s = new ControlState(base, rows, nodes, leaving, incarnations);
      if (b.hasRemaining()) {
        throw new Codec.Malformed(b.remaining() + " bytes after a control state record");
      }
      return s;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new Codec.Malformed("malformed control state record: " + e);
    }
  }
}
