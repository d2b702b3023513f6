package io.partkit.kvstore.wire;

import io.partkit.kvstore.KvEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * One page of a SCAN: a partition's entries in a key range, ascending, and whether the range
 * holds more. The request and the answer are encoded and decoded here only, so the node and the
 * routing client cannot drift apart.
 *
 * <pre>
 * request  = header (op SCAN, partition, epoch), bytes from, bytes to (-1: no upper bound),
 *            int32 limit
 * value    = int32 count, count x (bytes key, bytes value), int8 more
 * </pre>
 *
 * @param entries ascending by unsigned byte order, all in {@code [from, to)}
 * @param more true when the partition holds keys in the range after the last entry
 */
public record ScanPage(List<KvEntry> entries, boolean more) {

  /**
   * The most entries a node puts in one page, whatever the request's limit: a page is built
   * under the partition's lock, so its size bounds how long a scan holds up the writes.
   */
  static final int MAX_ENTRIES = 1024;
  /**
   * A page stops once its keys and values reach this many bytes (after at least one entry), so
   * a reply stays far below {@link Wire#MAX_FRAME} and a client's memory per page is bounded.
   */
  static final int MAX_BYTES = 1 << 20;

  /** Canonical constructor. */
  public ScanPage {
    entries = List.copyOf(entries);
  }

  /** A SCAN request's arguments, as the node reads them. */
  public record Query(byte[] from, byte[] to, int limit) {

    /** Why the node must not serve it, or null when it is well formed. */
    public String problem() {
      return ScanPage.problem(from, to, limit, "limit");
    }
  }

  /**
   * Why {@code [from, to)} with {@code count} is not a scan, or null when it is one.
   *
   * @param what the name of {@code count} in the message ("limit", "page size")
   */
  public static String problem(byte[] from, byte[] to, int count, String what) {
    if (from == null) {
      return "from must not be null (an empty key is the first key)";
    }
    if (count <= 0) {
      return what + " must be >= 1: " + count;
    }
    if (to != null && Arrays.compareUnsigned(from, to) > 0) {
      return "from must not be after to in unsigned byte order: from=" + hex(from) + " to="
          + hex(to);
    }
    return null;
  }

  /** The request for one page of {@code partition} at {@code epoch}. */
  public static byte[] request(int partition, long epoch, byte[] from, byte[] to, int limit) {
    return NodeConnection.request(Wire.SCAN, partition, epoch).bytes(from).bytes(to).i32(limit)
        .toBytes();
  }

  /**
   * Reads a SCAN request's arguments (after the header).
   *
   * @throws IOException if the request is cut short
   */
  public static Query read(Wire.Reader r) throws IOException {
    byte[] from = r.bytes();
    byte[] to = r.bytes();
    return new Query(from, to, r.i32());
  }

  /**
   * The page {@code q} asks for from a partition's data; the caller holds the partition's lock
   * and checked {@link Query#problem}. At most {@code q.limit()} entries, {@link #MAX_ENTRIES}
   * and about {@link #MAX_BYTES}; the values are the map's own arrays, which are never changed
   * in place (a write puts a new array).
   */
  public static ScanPage take(NavigableMap<byte[], byte[]> data, Query q) {
    NavigableMap<byte[], byte[]> range = q.to() == null ? data.tailMap(q.from(), true)
        : data.subMap(q.from(), true, q.to(), false);
    int max = Math.min(q.limit(), MAX_ENTRIES);
    List<KvEntry> entries = new ArrayList<>(Math.min(max, 64));
    long bytes = 0;
    for (Map.Entry<byte[], byte[]> e : range.entrySet()) {
      if (entries.size() == max || bytes >= MAX_BYTES) {
        return new ScanPage(entries, true);
      }
      entries.add(new KvEntry(e.getKey(), e.getValue()));
      bytes += e.getKey().length + e.getValue().length;
    }
    return new ScanPage(entries, false);
  }

  /** The node's answer: the partition's owner epoch in the header, the page in the body. */
  public KvReply reply(long epoch) {
    Wire.Writer w = new Wire.Writer().i32(entries.size());
    for (KvEntry e : entries) {
      w.bytes(e.key()).bytes(e.value());
    }
    return KvReply.ok(epoch, w.i8(more ? 1 : 0).toBytes());
  }

  /**
   * Reads an OK answer to SCAN.
   *
   * @throws IOException if its body is cut short, has trailing bytes or holds a null key or
   *     value
   */
  public static ScanPage of(KvReply ok) throws IOException {
    Wire.Reader r = new Wire.Reader(ok.value() == null ? new byte[0] : ok.value());
    int n = r.i32();
    if (n < 0 || n > MAX_ENTRIES) {
      throw new IOException("a scan page holds 0.." + MAX_ENTRIES + " entries, not " + n);
    }
    List<KvEntry> entries = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] key = r.bytes();
      byte[] value = r.bytes();
      if (key == null || value == null) {
        throw new IOException("a scan page holds a null key or value at entry " + i);
      }
      entries.add(new KvEntry(key, value));
    }
    boolean more = r.i8() != 0;
    if (!r.atEnd()) {
      throw new IOException("a scan page has bytes after its end");
    }
    return new ScanPage(entries, more);
  }

  private static String hex(byte[] key) {
    return "0x" + HexFormat.of().formatHex(key);
  }

  @Override
  public String toString() {
    return "ScanPage{" + entries.size() + " entries, more=" + more + (entries.isEmpty() ? ""
        : ", " + HexFormat.of().formatHex(entries.get(0).key()) + ".."
            + HexFormat.of().formatHex(entries.get(entries.size() - 1).key())) + "}";
  }
}
