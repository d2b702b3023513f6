package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Splitting while reading ({@link SplitWhileReading}, what {@code partkit check} does) against
 * reading and then {@link Independent#apply}, in the three modes, on seeded histories that are
 * Jepsen {@code independent} histories or nearly: tuples and other values, the nemesis, a
 * {@code :key}, completions with their invocation's key, another key or an error, completions
 * without invocation, a malformed line; processes named by small and large Longs, strings and
 * keywords, or a mix of them that are equal as numbers or names but not as values; values of two
 * as vectors and lists, with nil and keyword keys, of one, of three (the reader of bytes hands a
 * value of two to the split without making its vector). The same operations (values, keys,
 * lines) or the same error.
 */
class SplitWhileReadingTest {
  static Stream<Long> seeds() {
    return LongStream.range(0, 600).boxed();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void splittingWhileReadingIsApplyAfterReading(long seed) {
    String text = history(new Random(seed));
    for (Independent.Mode mode : Independent.Mode.values()) {
      // the general reader's operations, split after reading
      String expected = outcome(() -> Independent.apply(
          Histories.read("h", new java.io.StringReader(text)), mode));
      String actual = outcome(() -> Histories.read("h",
          new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
          FastEdnHistoryReader.BUFFER, mode));
      assertThat(actual).as("seed %d, mode %s, on:%n%s", seed, mode, text).isEqualTo(expected);
    }
  }

  /** The seeds reach every way out: split, put back as read, and a split error. */
  @org.junit.jupiter.api.Test
  void theSeedsCoverEveryPath() {
    int split = 0;
    int asRead = 0;
    int errors = 0;
    for (long seed : seeds().toList()) {
      String text = history(new Random(seed));
      String auto = outcome(() -> Histories.read("h",
          new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
          FastEdnHistoryReader.BUFFER, Independent.Mode.AUTO));
      String no = outcome(() -> Histories.parse("h", text));
      if (auto.startsWith("error: ") && !no.startsWith("error: ")) {
        errors++;
      } else if (auto.equals(no)) {
        asRead++;
      } else {
        split++;
      }
    }
    assertThat(java.util.List.of(split, asRead, errors)).as("split, as read, split errors")
        .allSatisfy(count -> assertThat(count).isGreaterThan(20));
  }

  interface Read {
    History read() throws HistoryParseException;
  }

  static String outcome(Read r) {
    try {
      StringBuilder sb = new StringBuilder();
      for (Op op : r.read().ops()) {
        sb.append(op).append(" key=").append(Values.toEdn(op.key())).append('\n');
      }
      return sb.toString();
    } catch (HistoryParseException e) {
      return "error: " + e.getMessage();
    }
  }

  static String history(Random r) {
    StringBuilder sb = new StringBuilder();
    int n = 1 + r.nextInt(40);
    boolean[] open = new boolean[4];
    String[] fs = {"read", "write", "cas"};
    String[] f = new String[4];
    int[] key = new int[4];
    int odd = r.nextInt(4); // how often something is not as Jepsen writes it
    // how processes are named: small Longs as Jepsen numbers them (most seeds), large or
    // negative Longs, strings and keywords, or a mix that must not be taken for one another
    String[][] namings = {{"0", "1", "2", "3"}, {"65535", "65536", "9000000000", "-1"},
        {"\"p0\"", "\"p1\"", ":p2", ":p3"}, {"2", "70000", "\"2\"", ":2"}};
    String[] process = namings[r.nextInt(4) < 3 ? 0 : r.nextInt(namings.length)];
    for (int i = 0; i < n; i++) {
      if (r.nextInt(12) == 0) {
        sb.append("{:process :nemesis, :type :info, :f :start, :value [:n1]}\n");
        continue;
      }
      if (odd > 0 && r.nextInt(200) < odd) {
        sb.append(r.nextBoolean() ? "{:process " + process[1] + ", :type :ok}\n"
            : "{:process " + process[2] + " :type :ok :f :x}\n");
        continue;
      }
      int p = r.nextInt(4);
      String extra = odd > 0 && r.nextInt(60) < odd ? ", :key 7" : "";
      if (!open[p] || (odd > 0 && r.nextInt(40) < odd)) {
        f[p] = fs[r.nextInt(3)];
        key[p] = r.nextInt(3);
        String v = f[p].equals("read") ? "nil" : f[p].equals("write") ? "" + r.nextInt(5)
            : "[" + r.nextInt(5) + " " + r.nextInt(5) + "]";
        String value = "[" + key[p] + " " + v + "]";
        if (odd > 0 && r.nextInt(30) < odd) {
          String[] others = {"nil", "5", "[[1] 2]", "[" + key[p] + " 3]", "[1 2 3]", "[]",
              "(" + key[p] + " 3)", "[nil 2]", "[:k 1]", "[" + key[p] + "]"};
          value = others[r.nextInt(others.length)];
        }
        sb.append("{:process ").append(process[p]).append(", :type :invoke, :f :").append(f[p])
            .append(", :value ").append(value).append(extra).append("}\n");
        open[p] = true;
      } else {
        String[] types = {"ok", "ok", "ok", "fail", "info"};
        String type = types[r.nextInt(types.length)];
        String value = "[" + key[p] + " " + r.nextInt(5) + "]";
        if (odd > 0 && r.nextInt(20) < odd) {
          String[] others = {"nil", ":timeout", "[" + (key[p] + 1) + " 1]", "4", "[1 2 3]",
              "(" + key[p] + " 2)", "[nil 2]", "[" + key[p] + "]", "[" + key[p] + " [1 2]]"};
          value = others[r.nextInt(others.length)];
        }
        sb.append("{:process ").append(process[p]).append(", :type :").append(type)
            .append(", :f :")
            .append(r.nextInt(30) < odd ? "other" : f[p]).append(", :value ").append(value)
            .append(extra).append("}\n");
        open[p] = false;
      }
    }
    if (odd > 0 && r.nextInt(40) < odd) {
      sb.append("{:process ").append(process[0]).append(", :type\n"); // malformed at the end
    }
    return sb.toString();
  }
}
