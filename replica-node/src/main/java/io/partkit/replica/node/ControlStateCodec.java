package io.partkit.replica.node;

import io.partkit.replica.Record.ControlState;
import io.partkit.replica.Record.ControlState.Move;
import io.partkit.replica.Record.ControlState.Row;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The control's log record ({@link ControlState}) as bytes, apart from the node's records in
 * {@link Codec} (which hands it these by their tag): the whole table, row by row, then the nodes
 * the control knows and those leaving.
 */
final class ControlStateCodec {

  /** The record's tag, out of the range of the node's records. */
  static final byte TAG = 64;

  private ControlStateCodec() {}

  static byte[] encode(ControlState s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(bytes);
    try {
      d.writeByte(TAG);
      d.writeInt(s.rows().size());
      for (Row r : s.rows()) {
        d.writeInt(r.partition());
        d.writeLong(r.epoch());
        d.writeLong(r.modulus());
        ints(d, r.members());
        ints(d, r.level());
        d.writeInt(r.parent());
        d.writeLong(r.splitAt());
        d.writeBoolean(r.move() != null);
        if (r.move() != null) {
          d.writeInt(r.move().source());
          d.writeInt(r.move().target());
          d.writeBoolean(r.move().joined());
        }
      }
      ints(d, s.nodes());
      ints(d, s.leaving());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** The record in {@code bytes}, which begin with {@link #TAG}. */
  static ControlState decode(byte[] bytes) throws Codec.Malformed {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      if (b.get() != TAG) {
        throw new Codec.Malformed("not a control state record: tag " + bytes[0]);
      }
      int n = count(b, 41);
      List<Row> rows = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int partition = b.getInt();
        long epoch = b.getLong();
        long modulus = b.getLong();
        List<Integer> members = ints(b);
        List<Integer> level = ints(b);
        int parent = b.getInt();
        long splitAt = b.getLong();
        Move move = bool(b) ? new Move(b.getInt(), b.getInt(), bool(b)) : null;
        rows.add(new Row(partition, epoch, modulus, members, new TreeSet<>(level), parent,
            splitAt, move));
      }
      ControlState s = new ControlState(rows, new TreeSet<>(ints(b)), new TreeSet<>(ints(b)));
      if (b.hasRemaining()) {
        throw new Codec.Malformed(b.remaining() + " bytes after a control state record");
      }
      return s;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new Codec.Malformed("malformed control state record: " + e);
    }
  }

  private static void ints(DataOutputStream d, Collection<Integer> values) throws IOException {
    d.writeInt(values.size());
    for (int v : values) {
      d.writeInt(v);
    }
  }

  private static int count(ByteBuffer b, int minBytes) throws Codec.Malformed {
    int n = b.getInt();
    if (n < 0 || (long) n * minBytes > b.remaining()) {
      throw new Codec.Malformed("a count of " + n + " with " + b.remaining() + " bytes left");
    }
    return n;
  }

  private static List<Integer> ints(ByteBuffer b) throws Codec.Malformed {
    int n = count(b, 4);
    List<Integer> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(b.getInt());
    }
    return values;
  }

  private static boolean bool(ByteBuffer b) throws Codec.Malformed {
    byte v = b.get();
    if (v != 0 && v != 1) {
      throw new Codec.Malformed("a boolean of " + v);
    }
    return v == 1;
  }
}
