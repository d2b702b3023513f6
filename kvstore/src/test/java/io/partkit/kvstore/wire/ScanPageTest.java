package io.partkit.kvstore.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.KvEntry;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The SCAN request and page encodings, and how a node cuts a page from a partition's data. */
class ScanPageTest {

  private static byte[] k(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return b;
  }

  private static KvEntry e(byte[] key) {
    return new KvEntry(key, Arrays.copyOf(key, key.length + 1));
  }

  private static TreeMap<byte[], byte[]> data(byte[]... keys) {
    TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
    for (byte[] key : keys) {
      m.put(key, e(key).value());
    }
    return m;
  }

  @Test
  void aPageReadsBackAsItWasWritten() throws IOException {
    ScanPage page = new ScanPage(List.of(e(k()), e(k(1)), e(k(0xff, 0))), true);
    KvReply reply = NodeConnection.decode(NodeConnection.encode(page.reply(7)));
    assertThat(reply.epoch()).isEqualTo(7);
    assertThat(ScanPage.of(reply)).isEqualTo(page);
    ScanPage last = new ScanPage(List.of(), false);
    assertThat(ScanPage.of(last.reply(1))).isEqualTo(last);
  }

  @Test
  void aRequestReadsBackWithAnOpenOrAClosedEnd() throws IOException {
    for (byte[] to : new byte[][] {null, k(9, 9)}) {
      Wire.Reader r = new Wire.Reader(ScanPage.request(5, 3, k(1), to, 42));
      assertThat(r.i8()).isEqualTo(Wire.SCAN);
      assertThat(r.i32()).isEqualTo(5);
      assertThat(r.i64()).isEqualTo(3);
      ScanPage.Query q = ScanPage.read(r);
      assertThat(q.from()).containsExactly(1);
      assertThat(q.to()).isEqualTo(to);
      assertThat(q.limit()).isEqualTo(42);
      assertThat(r.atEnd()).isTrue();
    }
  }

  @Test
  void aCutOrPaddedPageIsAnError() {
    byte[] body = new ScanPage(List.of(e(k(1))), false).reply(1).value();
    KvReply cut = KvReply.ok(1, Arrays.copyOf(body, body.length - 1));
    assertThatThrownBy(() -> ScanPage.of(cut)).isInstanceOf(IOException.class);
    KvReply padded = KvReply.ok(1, Arrays.copyOf(body, body.length + 1));
    assertThatThrownBy(() -> ScanPage.of(padded)).isInstanceOf(IOException.class)
        .hasMessageContaining("bytes after its end");
    KvReply huge = KvReply.ok(1, new Wire.Writer().i32(ScanPage.MAX_ENTRIES + 1).toBytes());
    assertThatThrownBy(() -> ScanPage.of(huge)).isInstanceOf(IOException.class)
        .hasMessageContaining("not " + (ScanPage.MAX_ENTRIES + 1));
  }

  @Test
  void aPageHoldsTheRangeInUnsignedOrderUpToItsLimit() {
    // 0x80 and 0xff sort after 0x7f unsigned (signed, they would come first)
    TreeMap<byte[], byte[]> d = data(k(0x01), k(0x7f), k(0x80), k(0xff), k(0xff, 0x00));
    ScanPage all = ScanPage.take(d, new ScanPage.Query(k(), null, 10));
    assertThat(all.entries()).extracting(KvEntry::key)
        .containsExactly(k(0x01), k(0x7f), k(0x80), k(0xff), k(0xff, 0x00));
    assertThat(all.more()).isFalse();

    ScanPage mid = ScanPage.take(d, new ScanPage.Query(k(0x7f), k(0xff), 10));
    assertThat(mid.entries()).extracting(KvEntry::key).containsExactly(k(0x7f), k(0x80));
    assertThat(mid.more()).as("0xff is the exclusive end").isFalse();

    ScanPage two = ScanPage.take(d, new ScanPage.Query(k(0x01), null, 2));
    assertThat(two.entries()).extracting(KvEntry::key).containsExactly(k(0x01), k(0x7f));
    assertThat(two.more()).isTrue();

    ScanPage exact = ScanPage.take(d, new ScanPage.Query(k(0xff), null, 2));
    assertThat(exact.entries()).hasSize(2);
    assertThat(exact.more()).as("the limit ended the page exactly at the data's end").isFalse();

    assertThat(ScanPage.take(d, new ScanPage.Query(k(0x02), k(0x03), 5)).entries()).isEmpty();
  }

  @Test
  void aPageIsCappedInEntriesAndBytesWhateverTheLimit() {
    TreeMap<byte[], byte[]> d = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < ScanPage.MAX_ENTRIES + 10; i++) {
      d.put(k(i >> 8, i), new byte[1]);
    }
    ScanPage capped = ScanPage.take(d, new ScanPage.Query(k(), null, Integer.MAX_VALUE));
    assertThat(capped.entries()).hasSize(ScanPage.MAX_ENTRIES);
    assertThat(capped.more()).isTrue();

    TreeMap<byte[], byte[]> big = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < 5; i++) {
      big.put(k(i), new byte[ScanPage.MAX_BYTES / 2]);
    }
    ScanPage bytes = ScanPage.take(big, new ScanPage.Query(k(), null, 100));
    assertThat(bytes.entries()).as("stops once a MiB is reached").hasSize(2);
    assertThat(bytes.more()).isTrue();
    big.put(k(0), new byte[ScanPage.MAX_BYTES * 2]);
    assertThat(ScanPage.take(big, new ScanPage.Query(k(), null, 100)).entries())
        .as("a single entry larger than the budget still makes progress").hasSize(1);
  }

  @Test
  void badQueriesAreNamed() {
    assertThat(new ScanPage.Query(k(2), k(1), 1).problem())
        .isEqualTo("from must not be after to in unsigned byte order: from=0x02 to=0x01");
    assertThat(new ScanPage.Query(k(1), null, 0).problem()).isEqualTo("limit must be >= 1: 0");
    assertThat(new ScanPage.Query(null, null, 1).problem()).startsWith("from must not be null");
    assertThat(new ScanPage.Query(k(1), k(1), 1).problem()).as("an empty range is fine").isNull();
    assertThat(new ScanPage.Query(k(0x7f), k(0x80), 1).problem()).as("unsigned").isNull();
  }
}
