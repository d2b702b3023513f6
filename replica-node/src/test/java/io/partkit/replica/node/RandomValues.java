package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.Role;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One of each message, record and driver frame with fields drawn from a {@link Random}: extreme
 * numbers, empty and null byte strings, empty and larger collections, as the codec must carry
 * them.
 */
final class RandomValues {

  private RandomValues() {}

  static List<Message> messages(Random r) {
    Kind kind = Kind.values()[r.nextInt(Kind.values().length)];
    return List.of(
        new Message.Request(number(r), r.nextInt(), kind, bytes(r),
            kind == Kind.CAS && r.nextBoolean() ? bytes(r) : null,
            kind == Kind.GET ? null : bytes(r)),
        new Message.Reply(number(r), Outcome.values()[r.nextInt(Outcome.values().length)],
            r.nextBoolean() ? bytes(r) : null, r.nextBoolean() ? text(r) : null),
        scan(r),
        new Message.Page(number(r), Outcome.values()[r.nextInt(Outcome.values().length)],
            data(r), r.nextBoolean(), r.nextBoolean() ? text(r) : null),
        new Message.Replicate(r.nextInt(), number(r), number(r), number(r), bytes(r), bytes(r)),
        new Message.Confirm(r.nextInt(), number(r), number(r), number(r)),
        new Message.Snapshot(r.nextInt(), number(r), number(r), number(r), data(r), numbering(r),
            r.nextInt(Integer.MAX_VALUE), r.nextBoolean()),
        level(r),
        new Message.Ack(r.nextInt(), number(r), number(r), number(r)),
        new Message.Confirmed(r.nextInt(), number(r), number(r), number(r)),
        new Message.Refuse(r.nextInt(), number(r), r.nextBoolean()),
        configure(r),
        new Message.Suspect(r.nextInt(), number(r), new HashSet<>(ints(r))),
        new Message.Levelled(r.nextInt(), number(r)),
        new Message.Drain(r.nextInt(), number(r)),
        new Message.Drained(r.nextInt(), number(r)),
        new Message.Resume(r.nextInt(), number(r)),
        new Message.Taken(r.nextInt(), number(r), number(r), number(r), r.nextInt()),
        new Message.Ping(number(r)),
        new Message.Ping(number(r), number(r), r.nextBoolean() ? List.of()
            : List.of(configure(r), configure(r))),
        new Message.Pong(number(r), held(r), held(r)),
        new Message.Pong(number(r), held(r), held(r), number(r), r.nextBoolean()));
  }

  /** A scan with a range in order (or no end) and a limit of at least 1, often an extreme. */
  static Message.Scan scan(Random r) {
    Bytes a = bytes(r);
    Bytes b = bytes(r);
    Bytes to = r.nextInt(3) == 0 ? null : a.compareTo(b) <= 0 ? b : a;
    int limit = r.nextBoolean() ? Integer.MAX_VALUE : 1 + r.nextInt(2000);
    return new Message.Scan(number(r), r.nextInt(), number(r), a.compareTo(b) <= 0 ? a : b, to,
        limit);
  }

  static Message.Configure configure(Random r) {
    List<Integer> backups = ints(r);
    java.util.TreeSet<Integer> joining = new java.util.TreeSet<>();
    backups.stream().filter(b -> r.nextBoolean()).forEach(joining::add);
    return new Message.Configure(r.nextInt(), number(r), r.nextInt(), backups, numbering(r),
        joining);
  }

  static Message.Level level(Random r) {
    long seq = number(r);
    List<Message.Write> tail = new ArrayList<>();
    int writes = seq < 4 ? 0 : r.nextInt(4);
    for (int i = writes - 1; i >= 0; i--) {
      tail.add(new Message.Write(seq - i, bytes(r), bytes(r)));
    }
    return new Message.Level(r.nextInt(), number(r), number(r), number(r), number(r), seq, tail,
        numbering(r));
  }

  static List<Record> records(Random r) {
    long modulus = 2L << r.nextInt(40);
    return List.of(
        new Record.Configured(r.nextInt(), number(r), r.nextInt(), ints(r), numbering(r)),
        new Record.LevelBegun(r.nextInt(), number(r), number(r)),
        new Record.Written(r.nextInt(), number(r), number(r), number(r), bytes(r), bytes(r)),
        new Record.Snapshotted(r.nextInt(), number(r), r.nextInt(), number(r), number(r),
            data(r), numbering(r)),
        new Record.Split((int) Math.min(Integer.MAX_VALUE, (r.nextLong() >>> 1) % (modulus / 2)),
            modulus, r.nextBoolean() ? null : bytes(r)),
        new Record.Checkpoint(r.nextInt(), number(r), r.nextBoolean(),
            Role.values()[r.nextInt(Role.values().length)], r.nextInt(), ints(r), r.nextBoolean(),
            number(r), number(r), r.nextBoolean(), number(r), numbering(r), r.nextBoolean(),
            number(r), number(r), data(r)),
        new Record.SnapshotPage(r.nextInt(), number(r), r.nextInt(), number(r), number(r),
            r.nextInt(Integer.MAX_VALUE), r.nextBoolean(), data(r), numbering(r)),
        new Record.Rebased(r.nextInt(), number(r), r.nextInt(), number(r), number(r), data(r),
            data(r).navigableKeySet()),
        new Record.Born(number(r)),
        controlState(r),
        merge(r),
        checkpointPage(r),
        pagedCheckpoint(r));
  }

  /** A checkpoint's page (drawn after the others: earlier draws stay). */
  static Record.CheckpointPage checkpointPage(Random r) {
    return new Record.CheckpointPage(r.nextInt(), r.nextInt(Integer.MAX_VALUE), data(r));
  }

  /** A checkpoint that completes pages before it (drawn after the others). */
  static Record.Checkpoint pagedCheckpoint(Random r) {
    return new Record.Checkpoint(r.nextInt(), number(r), r.nextBoolean(),
        Role.values()[r.nextInt(Role.values().length)], r.nextInt(), ints(r), r.nextBoolean(),
        number(r), number(r), r.nextBoolean(), number(r), numbering(r), r.nextBoolean(),
        number(r), number(r), data(r), 1 + r.nextInt(Integer.MAX_VALUE));
  }

  /** A merge record, its numbering of a generation past 0 (drawn last: earlier draws stay). */
  static Record.Merge merge(Random r) {
    Numbering n = numbering(r);
    if (n == Numbering.NONE || n.modulus() > Integer.MAX_VALUE / 2) {
      n = new Numbering.Hashed(1, 1L << r.nextInt(30)); // the sibling's number is an int
    }
    n = n.withGeneration(1 + r.nextInt(1 << 20));
    int p = (int) ((r.nextLong() >>> 1) % n.modulus());
    return new Record.Merge(p, (int) (p + n.modulus()), n);
  }

  static Record.ControlState controlState(Random r) {
    List<Record.ControlState.Row> rows = new ArrayList<>();
    for (int i = r.nextInt(8); i > 0; i--) {
      Record.ControlState.Move move = r.nextBoolean() ? null
          : new Record.ControlState.Move(r.nextInt(), r.nextInt(), r.nextBoolean());
      rows.add(new Record.ControlState.Row(r.nextInt(), number(r), numbering(r), ints(r),
          new TreeSet<>(ints(r)), new TreeSet<>(ints(r)), r.nextInt(), number(r), move,
          new TreeSet<>(ints(r))));
    }
    java.util.TreeMap<Integer, Long> incarnations = new java.util.TreeMap<>();
    for (int n : ints(r)) {
      incarnations.put(n, number(r));
    }
    return new Record.ControlState(r.nextInt(), rows, new TreeSet<>(ints(r)),
        new TreeSet<>(ints(r)), incarnations);
  }

  static List<Object> frames(Random r) {
    List<ReplicaClient.Row> rows = new ArrayList<>();
    for (int i = r.nextInt(20); i > 0; i--) {
      rows.add(new ReplicaClient.Row(r.nextInt(), numbering(r), r.nextInt(), number(r)));
    }
    boolean settled = r.nextBoolean();
    return List.of(new Frame.Hello(r.nextInt()), new Frame.TableRequest(number(r)),
        new Frame.Table(number(r), settled, rows, settled ? null : text(r)));
  }

  /**
   * A valid numbering of any kind: none, hash halves, key spans or token spans, of a base of at
   * least 1 (often an extreme) split 0 to 3 times for spans (one cut each), more for hash halves.
   */
  static Numbering numbering(Random r) {
    int base = switch (r.nextInt(4)) {
      case 0 -> 1;
      case 1 -> Integer.MAX_VALUE;
      default -> 1 + r.nextInt(1 << 16);
    };
    int splits = r.nextInt(4);
    long modulus = (long) base << splits;
    return switch (r.nextInt(4)) {
      case 0 -> Numbering.NONE;
      case 1 -> new Numbering.Hashed(base, (long) base << r.nextInt(32));
      case 2 -> {
        Bytes a = bytes(r);
        Bytes b = bytes(r);
        int order = a.compareTo(b);
        Bytes to = order == 0 || r.nextInt(3) == 0 ? null : order < 0 ? b : a;
        List<Bytes> cuts = new ArrayList<>();
        for (int i = 0; i < splits; i++) {
          cuts.add(bytes(r));
        }
        yield new Numbering.KeySpans(base, modulus, order <= 0 ? a : b, to, cuts);
      }
      default -> {
        List<Bytes> cuts = new ArrayList<>();
        for (int i = 0; i < splits; i++) {
          cuts.add(Bytes.ofLong(number(r)));
        }
        yield new Numbering.TokenSpans(KeyHash.values()[r.nextInt(KeyHash.values().length)],
            base, modulus, number(r), number(r), cuts);
      }
    };
  }

  /** A long, often one of the extremes. */
  static long number(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> 0;
      case 1 -> Long.MAX_VALUE;
      case 2 -> Long.MIN_VALUE;
      default -> r.nextLong();
    };
  }

  static Bytes bytes(Random r) {
    byte[] b = new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(40)];
    r.nextBytes(b);
    return Bytes.of(b);
  }

  static String text(Random r) {
    StringBuilder s = new StringBuilder();
    for (int i = r.nextInt(30); i > 0; i--) {
      s.appendCodePoint(r.nextBoolean() ? 'a' + r.nextInt(26) : 0xa0 + r.nextInt(0x2000));
    }
    return s.toString();
  }

  static List<Integer> ints(Random r) {
    List<Integer> out = new ArrayList<>();
    for (int i = r.nextInt(6); i > 0; i--) {
      out.add(r.nextInt());
    }
    return out;
  }

  static TreeMap<Bytes, Bytes> data(Random r) {
    TreeMap<Bytes, Bytes> d = new TreeMap<>();
    for (int i = r.nextInt(3) == 0 ? 0 : r.nextInt(50); i > 0; i--) {
      d.put(bytes(r), bytes(r));
    }
    return d;
  }

  static Map<Integer, Long> held(Random r) {
    Map<Integer, Long> h = new HashMap<>();
    for (int i = r.nextInt(10); i > 0; i--) {
      h.put(r.nextInt(), number(r));
    }
    return h;
  }
}
