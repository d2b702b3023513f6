package io.partkit.kvstore.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.ScanCoverage.KeyRange;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a scan chooses partitions: key ranges by their order, hash slots all of them. */
class ScanCoverageTest {

  private static final KeyRanges RANGES = KeyRanges.of(b("g"), b("n"), b("t"));

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static String describe(List<KeyRange> ranges) {
    StringBuilder out = new StringBuilder();
    for (KeyRange r : ranges) {
      out.append(r.partition()).append('[').append(new String(r.start(), UTF_8)).append(',')
          .append(r.end() == null ? "end" : new String(r.end(), UTF_8)).append(") ");
    }
    return out.toString().trim();
  }

  @Test
  void keyRangesAreCoveredInOrderCutToTheScannedRange() {
    ScanCoverage.OrderedKeyPartitions view = ScanCoverage.orderedView(RANGES);

    assertThat(describe(view.covering(new byte[0], null)))
        .isEqualTo("0[,g) 1[g,n) 2[n,t) 3[t,end)");
    assertThat(describe(view.covering(b("h"), b("p")))).isEqualTo("1[h,n) 2[n,p)");
    assertThat(describe(view.covering(b("h"), b("i")))).isEqualTo("1[h,i)");
    // a range ending exactly at a split key does not ask the range that starts there
    assertThat(describe(view.covering(b("a"), b("n")))).isEqualTo("0[a,g) 1[g,n)");
    assertThat(describe(view.covering(b("n"), null))).isEqualTo("2[n,t) 3[t,end)");
  }

  @Test
  void aHashSchemeHasNoOrderSoEveryPartitionIsAsked() {
    assertThat(ScanCoverage.orderedView(HashSlots.of(8))).isNull();
  }
}
