package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Partitioning;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A client of a Fixed Partitions cluster of {@link ReplicaNodeMain} processes, for one thread at a
 * time. Keys and values are longs (eight big-endian bytes on the wire). A request goes to the
 * partition that holds its key in the control's table as this client last read it ({@link
 * Table#route}: each partition's number and modulus name its keys, so a table read after a split
 * routes the moved keys to the new partition), to that partition's primary. The table is asked
 * for when first needed and again after a refusal (a primary that split refuses the keys it no
 * longer holds), a timeout or a connection that fails.
 *
 * <p>Outcomes are honest: {@link Outcome#OK} took effect; {@link Outcome#FAIL} did not and never
 * will (a refusal, a connection that could not be made, a CAS that found another value: {@link
 * Result#mismatch}); {@link Outcome#UNKNOWN} may have (no answer within the timeout, a connection
 * lost after the request was written, or a write a deposed primary could not finish). A refused
 * request is sent again, to the primary of a fresh table, while the timeout allows: it surely did
 * not take effect. Nothing else is retried.
 *
 * <p>{@link #scan} reads a range of keys from every partition (the hash numbering scatters
 * neighbouring keys), one partition's page at a time, and merges them in key order. Each page is
 * linearizable on its own (served as a read); the scan as a whole is not an atomic snapshot across
 * partitions, nor across the pages of one partition.
 */
public final class ReplicaClient implements AutoCloseable {

  /**
   * What became of a request.
   *
   * @param value a GET's value (null: absent)
   * @param mismatch a CAS that found another value than the expected one (an answer, not a
   *     refusal)
   * @param why why it failed or is unknown
   */
  public record Result(Outcome outcome, Long value, boolean mismatch, String why) {}

  /** A key and its value. */
  public record Entry(long key, long value) {}

  /**
   * What became of a scan.
   *
   * @param entries OK: keys and values in ascending order of the keys' eight big-endian bytes
   *     (unsigned: negative keys come last); empty otherwise
   * @param more keys of the range remain after the last entry: scan again from its key plus one
   * @param why why it failed or is unknown
   */
  public record ScanResult(Outcome outcome, List<Entry> entries, boolean more, String why) {
    public ScanResult {
      entries = List.copyOf(entries);
    }
  }

  /**
   * One partition of the control's table.
   *
   * @param partition its number
   * @param modulus the modulus it is numbered at ({@link Partitioning}): it holds the keys whose
   *     hash is {@code partition} modulo {@code modulus}
   * @param primary the node that serves it
   * @param epoch the epoch of its configuration
   */
  public record Row(int partition, long modulus, int primary, long epoch) {}

  /**
   * The control's table as a client sees it.
   *
   * @param rows every partition, in partition order
   * @param unsettled what keeps the cluster from being settled, null when it is
   */
  public record Table(boolean settled, List<Row> rows, String unsettled) {
    public Table {
      rows = List.copyOf(rows);
    }

    /** How many partitions the table has. */
    public int partitions() {
      return rows.size();
    }

    /** The partition that holds {@code key}; empty when none does (not a table of a control). */
    public Optional<Row> route(long key) {
      long hash = Partitioning.hash(Bytes.ofLong(key));
      for (Row r : rows) {
        if (r.modulus() == 0 || Math.floorMod(hash, r.modulus()) == r.partition()) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }
  }

  private static final long RETRY_PAUSE_MILLIS = 20;

  private final List<InetSocketAddress> controls;
  /** The control asked last, or next after a failure: the one that answered stays asked. */
  private int controlIndex;
  private final List<InetSocketAddress> nodes;
  private final long timeoutMillis;
  private final Map<Integer, Conn> conns = new HashMap<>();
  private Conn controlConn;
  /** The table last read, null when it is to be read again before the next request. */
  private Table table;
  private long nextId = 1;

  /**
   * A client of the control at {@code control} and the nodes at {@code nodes} (node {@code i} at
   * index {@code i}), waiting at most {@code timeout} for each operation.
   */
  public ReplicaClient(InetSocketAddress control, List<InetSocketAddress> nodes,
      Duration timeout) {
    this(List.of(control), nodes, timeout);
  }

  /**
   * A client of the controls at {@code controls}, of which one leads (the others do not listen),
   * and the nodes at {@code nodes}: a table request that cannot reach one control goes to the
   * next.
   *
   * @throws IllegalArgumentException when {@code controls} is empty
   */
  public ReplicaClient(List<InetSocketAddress> controls, List<InetSocketAddress> nodes,
      Duration timeout) {
    if (controls.isEmpty()) {
      throw new IllegalArgumentException("a client needs the address of at least one control");
    }
    this.controls = List.copyOf(controls);
    this.nodes = List.copyOf(nodes);
    this.timeoutMillis = timeout.toMillis();
  }

  /** Reads {@code key}. */
  public Result get(long key) {
    return call(Kind.GET, key, null, null);
  }

  /** Writes {@code value} to {@code key}. */
  public Result put(long key, long value) {
    return call(Kind.PUT, key, null, value);
  }

  /** Sets {@code key} to {@code value} if it holds {@code expected} (null: absent). */
  public Result cas(long key, Long expected, long value) {
    return call(Kind.CAS, key, expected, value);
  }

  /**
   * The first {@code limit} keys in {@code [from, to)} ({@code to} null: no end) in the order of
   * their eight big-endian bytes, with their values, from every partition of the table. Each
   * partition is asked for pages until it has given {@code limit} keys or has no more, then the
   * pages are merged. A refused page (a failover, a split under way) starts the scan again on a
   * fresh table while the timeout allows. Not an atomic snapshot (see the class): a key written
   * during the scan may or may not be in it.
   *
   * @throws IllegalArgumentException when {@code limit} is below 1 or {@code from} is after
   *     {@code to}
   */
  public ScanResult scan(long from, Long to, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a scan's limit must be at least 1, got " + limit);
    }
    if (to != null && Long.compareUnsigned(from, to) > 0) {
      throw new IllegalArgumentException("a scan's from " + Long.toUnsignedString(from)
          + " is after its to " + Long.toUnsignedString(to) + " (keys compare unsigned)");
    }
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    ScanResult last = new ScanResult(Outcome.FAIL, List.of(), false,
        "no attempt within the timeout");
    while (System.nanoTime() < deadline) {
      try {
        if (table == null) {
          table = askTable(deadline);
        }
      } catch (IOException e) {
        return new ScanResult(Outcome.FAIL, List.of(), false, "no table from the control: " + e);
      }
      List<Entry> merged = new ArrayList<>();
      boolean more = false;
      String refused = null;
      for (Row row : table.rows()) {
        PartitionScan part = scanPartition(row, from, to, limit, deadline);
        if (part.failure != null && part.failure.outcome() == Outcome.UNKNOWN) {
          return part.failure;
        }
        if (part.failure != null) {
          refused = part.failure.why();
          break;
        }
        merged.addAll(part.entries);
        more |= part.more;
      }
      if (refused == null) {
        merged.sort(Comparator.comparing(Entry::key, Long::compareUnsigned));
        more |= merged.size() > limit;
        return new ScanResult(Outcome.OK, merged.subList(0, Math.min(limit, merged.size())), more,
            null);
      }
      table = null;
      last = new ScanResult(Outcome.FAIL, List.of(), false, refused);
      pause(deadline);
    }
    return last;
  }

  /** One partition's keys of a scan: its first {@code limit} of the range, or all it has. */
  private static final class PartitionScan {
    final List<Entry> entries = new ArrayList<>();
    boolean more;
    /** A refusal (FAIL) or no answer (UNKNOWN); null: the pages came. */
    ScanResult failure;
  }

  private PartitionScan scanPartition(Row row, long from, Long to, int limit, long deadline) {
    PartitionScan part = new PartitionScan();
    Bytes next = Bytes.ofLong(from);
    while (true) {
      long id = nextId++;
      Scan scan = new Scan(id, row.partition(), row.modulus(), next,
          to == null ? null : Bytes.ofLong(to), limit - part.entries.size());
      Message answer;
      try {
        answer = conn(row.primary(), deadline).call(new Envelope(0, row.primary(), scan), id,
            deadline);
      } catch (IOException e) {
        drop(row.primary());
        table = null;
        part.failure = new ScanResult(e instanceof SocketTimeoutException ? Outcome.UNKNOWN
            : Outcome.FAIL, List.of(), false, "partition " + row.partition() + " on node "
            + row.primary() + ": " + e);
        return part;
      }
      Page page = (Page) answer;
      if (page.outcome() != Outcome.OK) {
        part.failure = new ScanResult(Outcome.FAIL, List.of(), false, page.why());
        return part;
      }
      page.entries().forEach((k, v) -> part.entries.add(new Entry(k.toLong(), v.toLong())));
      part.more = page.more();
      if (!page.more() || part.entries.size() >= limit) {
        return part;
      }
      long lastKey = page.entries().lastKey().toLong(); // more: the page holds a key
      if (lastKey == -1) {
        return part; // all ones: no eight-byte key comes after it
      }
      // the next page starts just past the last key: keys are eight bytes, so at its successor
      next = Bytes.ofLong(lastKey + 1);
    }
  }

  /**
   * The control's table now.
   *
   * @throws IOException when the control cannot be asked within the timeout
   */
  public Table table() throws IOException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    return askTable(deadline);
  }

  private Result call(Kind kind, long key, Long expected, Long value) {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    Result last = new Result(Outcome.FAIL, null, false, "no attempt within the timeout");
    while (System.nanoTime() < deadline) {
      Row route;
      try {
        route = route(key, deadline);
      } catch (IOException e) {
        return new Result(Outcome.FAIL, null, false, "no table from the control: " + e);
      }
      int p = route.partition();
      int node = route.primary();
      long id = nextId++;
      Request r = new Request(id, p, kind, Bytes.ofLong(key),
          expected == null ? null : Bytes.ofLong(expected),
          value == null ? null : Bytes.ofLong(value));
      Conn c;
      try {
        c = conn(node, deadline);
      } catch (IOException e) {
        // never sent: a definite failure, and perhaps another node is primary by now
        table = null;
        last = new Result(Outcome.FAIL, null, false, "cannot connect to node " + node + ": " + e);
        pause(deadline);
        continue;
      }
      Reply reply;
      try {
        reply = (Reply) c.call(new Envelope(0, node, r), id, deadline);
      } catch (IOException e) {
        drop(node);
        table = null;
        boolean timeout = e instanceof SocketTimeoutException;
        return new Result(Outcome.UNKNOWN, null, false, (timeout ? "no answer from node "
            : "connection to node ") + node + (timeout ? " within " + timeoutMillis + " ms"
            : " lost: " + e));
      }
      if (reply.outcome() == Outcome.OK) {
        return new Result(Outcome.OK, kind == Kind.GET && reply.value() != null
            ? reply.value().toLong() : null, false, null);
      }
      if (reply.outcome() == Outcome.UNKNOWN) {
        table = null;
        return new Result(Outcome.UNKNOWN, null, false, reply.why());
      }
      // The core phrases a CAS that found another value "expected X, found Y"; every other
      // failure is a refusal, which a fresh table may route around.
      if (kind == Kind.CAS && reply.why() != null && reply.why().startsWith("expected ")) {
        return new Result(Outcome.FAIL, null, true, reply.why());
      }
      table = null;
      last = new Result(Outcome.FAIL, null, false, reply.why());
      pause(deadline);
    }
    return last;
  }

  private static void pause(long deadline) {
    long left = (deadline - System.nanoTime()) / 1_000_000;
    try {
      Thread.sleep(Math.max(0, Math.min(RETRY_PAUSE_MILLIS, left)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Row route(long key, long deadline) throws IOException {
    if (table == null) {
      table = askTable(deadline);
    }
    Optional<Row> r = table.route(key);
    if (r.isEmpty()) {
      Table t = table;
      table = null;
      throw new IOException("the control's table of " + t.partitions()
          + " partitions has none that holds key " + key);
    }
    return r.get();
  }

  /**
   * The table of the first control that answers, starting from the one that answered last: each
   * is tried once, so a standby (which does not listen) costs a refused connection.
   */
  private Table askTable(long deadline) throws IOException {
    IOException last = null;
    for (int tried = 0; tried < controls.size() && System.nanoTime() < deadline; tried++) {
      try {
        if (controlConn == null) {
          controlConn = Conn.open(controls.get(controlIndex), deadline);
        }
        Frame.Table t = controlConn.table(nextId++, deadline);
        return new Table(t.settled(), t.rows(), t.unsettled());
      } catch (IOException e) {
        if (controlConn != null) {
          controlConn.close();
          controlConn = null;
        }
        last = e;
        controlIndex = (controlIndex + 1) % controls.size();
      }
    }
    throw last != null ? last : new IOException("no control asked within the timeout");
  }

  private Conn conn(int node, long deadline) throws IOException {
    Conn c = conns.get(node);
    if (c == null) {
      if (node < 0 || node >= nodes.size()) {
        throw new IOException("the table names node " + node + ", which has no address");
      }
      c = Conn.open(nodes.get(node), deadline);
      conns.put(node, c);
    }
    return c;
  }

  private void drop(int node) {
    Optional.ofNullable(conns.remove(node)).ifPresent(Conn::close);
  }

  @Override
  public void close() {
    conns.values().forEach(Conn::close);
    conns.clear();
    if (controlConn != null) {
      controlConn.close();
      controlConn = null;
    }
  }

  /** A connection to one node or the control, one request at a time. */
  private static final class Conn {
    final Socket socket;
    final DataInputStream in;
    final DataOutputStream out;

    private Conn(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    static Conn open(InetSocketAddress address, long deadline) throws IOException {
      Socket s = new Socket();
      try {
        s.connect(address, (int) Math.max(1, millisLeft(deadline)));
        Conn c = new Conn(s);
        Frame.write(c.out, new Frame.Hello(Frame.CLIENT));
        c.out.flush();
        return c;
      } catch (IOException e) {
        s.close();
        throw e;
      }
    }

    /** The answer to {@code request} numbered {@code id}: a {@link Reply} or a {@link Page}. */
    Message call(Envelope request, long id, long deadline) throws IOException {
      Frame.write(out, request);
      out.flush();
      while (true) {
        Object f = read(deadline);
        // a late answer to an earlier request on this connection is skipped
        if (f instanceof Envelope e && (e.message() instanceof Reply r && r.id() == id
            || e.message() instanceof Page p && p.id() == id)) {
          return e.message();
        }
      }
    }

    Frame.Table table(long id, long deadline) throws IOException {
      Frame.write(out, new Frame.TableRequest(id));
      out.flush();
      while (true) {
        Object f = read(deadline);
        if (f instanceof Frame.Table t && t.id() == id) {
          return t;
        }
      }
    }

    private Object read(long deadline) throws IOException {
      long left = millisLeft(deadline);
      if (left <= 0) {
        throw new SocketTimeoutException("deadline passed");
      }
      socket.setSoTimeout((int) left);
      return Frame.read(in);
    }

    private static long millisLeft(long deadline) {
      return (deadline - System.nanoTime()) / 1_000_000;
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing
      }
    }
  }
}
