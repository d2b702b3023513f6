package io.partkit.replica.node.load;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hot-key sketch on its own: what it finds, its bounds, its windows, its memory. */
class HotKeysTest {

  private static final long WINDOW = 1_000_000_000L;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void findsTheHotKeyAmongManyColdOnesWithBoundsAroundItsTrueCount() {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    HotKeys sketch = new HotKeys(WINDOW, 0);
    Map<String, Integer> truth = new HashMap<>();
    int requests = 20_000;
    for (int i = 0; i < requests; i++) {
      // a fifth of the requests go to one key, the rest spread over 5000 keys (4 each)
      String key = random.nextInt(5) == 0 ? "hot" : "cold-" + random.nextInt(5000);
      truth.merge(key, 1, Integer::sum);
      sketch.offer(7, b(key), 1);
    }
    HotKeys.Report report = sketch.report();
    assertThat(report.requests()).as("seed %d", seed).isEqualTo(requests);
    assertThat(report.hottest()).as("seed %d", seed).isNotEmpty()
        .hasSizeLessThanOrEqualTo(HotKeys.MAX_REPORTED);
    HotKey top = report.hottest().get(0);
    int hot = truth.get("hot");
    assertThat(new String(top.key(), UTF_8)).as("seed %d", seed).isEqualTo("hot");
    assertThat(top.partition()).isEqualTo(7);
    assertThat(top.lowerBound()).as("seed %d", seed).isLessThanOrEqualTo(hot);
    assertThat(top.upperBound()).as("seed %d", seed).isGreaterThanOrEqualTo(hot);
    assertThat(top.upperBound() - top.lowerBound()).as("seed %d", seed)
        .isLessThanOrEqualTo(report.maximumError());
    assertThat(report.maximumError()).as("the documented bound: 3.5 / 256 of the stream")
        .isLessThanOrEqualTo((long) (3.5 / HotKeys.MAX_MAP_SIZE * requests));
    NodeLoad view = new NodeLoad(io.partkit.spi.NodeId.of("n1"), java.util.List.of(),
        report.requests(), report.maximumError(), report.hottest());
    assertThat(view.hotKeys()).as("seed %d: only the hot key is over 5%%", seed)
        .extracting(k -> new String(k.key(), UTF_8)).containsExactly("hot");
  }

  @Test
  void theSameKeyInTwoPartitionsIsTwoKeys() {
    HotKeys sketch = new HotKeys(WINDOW, 0);
    for (int i = 0; i < 30; i++) {
      sketch.offer(1, b("k"), 1);
    }
    for (int i = 0; i < 10; i++) {
      sketch.offer(2, b("k"), 1);
    }
    assertThat(sketch.report().hottest()).extracting(HotKey::partition, HotKey::estimate)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 30L),
            org.assertj.core.groups.Tuple.tuple(2, 10L));
  }

  @Test
  void aKeyHotTwoWindowsAgoIsForgotten() {
    HotKeys sketch = new HotKeys(WINDOW, 0);
    for (int i = 0; i < 100; i++) {
      sketch.offer(0, b("old"), 10);
    }
    sketch.offer(0, b("new"), WINDOW + 10); // the next window: "old" is still reported
    assertThat(sketch.report().hottest()).extracting(k -> new String(k.key(), UTF_8))
        .contains("old", "new");
    sketch.offer(0, b("new"), 2 * WINDOW + 20); // and the one after: "old" is gone
    assertThat(sketch.report().hottest()).extracting(k -> new String(k.key(), UTF_8))
        .containsExactly("new");
    assertThat(sketch.report().requests()).isEqualTo(2);
    sketch.offer(0, b("late"), 10 * WINDOW);
    assertThat(sketch.report().requests()).as("after a long pause nothing old is left")
        .isEqualTo(1);
  }

  @Test
  void aLongKeyIsCountedByItsFirstBytesAndReportedAsTruncated() {
    HotKeys sketch = new HotKeys(WINDOW, 0);
    byte[] a = new byte[1000];
    byte[] c = new byte[1000];
    c[999] = 1; // differs only after the first 256 bytes
    sketch.offer(0, a, 1);
    sketch.offer(0, c, 1);
    HotKey top = sketch.report().hottest().get(0);
    assertThat(top.truncated()).isTrue();
    assertThat(top.key()).hasSize(HotKeys.MAX_KEY_BYTES);
    assertThat(top.estimate()).isEqualTo(2);
    assertThat(Arrays.equals(top.key(), new byte[HotKeys.MAX_KEY_BYTES])).isTrue();
  }

  @Test
  void aNonPositiveWindowOrShareIsRefused() {
    assertThatThrownBy(() -> new HotKeys(0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hot-key window must be positive");
    NodeLoad view = new NodeLoad(io.partkit.spi.NodeId.of("n1"), java.util.List.of(), 0, 0,
        java.util.List.of());
    assertThatThrownBy(() -> view.hotKeys(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hot-key share must be in (0, 1]: 0.0");
  }
}
