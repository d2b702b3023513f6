package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading an EDN file with two threads ({@link TwoHalves}, what {@code partkit check} does with
 * a long file) against one thread, on seeded files split at every line start: Jepsen
 * {@code independent} histories or nearly (SplitWhileReadingTest's), most lines with their
 * {@code :index}, some without, with CRLF or lone CR line ends, blank and comment lines, maps
 * over two lines (a split inside a form), malformed lines; read as they are and split by key in
 * the three modes, through buffers of a few bytes and of a megabyte. The same operations (values,
 * keys, indexes, line numbers) or the same error, line included.
 */
class TwoHalvesTest {
  @TempDir
  Path dir;

  static Stream<Long> seeds() {
    return LongStream.range(0, 250).boxed();
  }

  private static final Independent.Mode[] MODES = {null, Independent.Mode.AUTO,
      Independent.Mode.YES, Independent.Mode.NO};

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void twoHalvesReadWhatOneThreadReads(long seed) throws IOException {
    Random r = new Random(seed);
    String text = file(r);
    Path file = dir.resolve("h" + seed + ".edn");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Files.write(file, bytes);
    int buffer = r.nextBoolean() ? FastEdnHistoryReader.BUFFER : 8 + r.nextInt(64);
    Independent.Mode mode = MODES[(int) (seed % MODES.length)];
    String source = file.toString();
    String expected = SplitWhileReadingTest.outcome(
        () -> Histories.read(source, new ByteArrayInputStream(bytes), buffer, mode));
    for (long at : lineStarts(bytes)) {
      String actual = SplitWhileReadingTest.outcome(() -> {
        try (InputStream in = Files.newInputStream(file)) {
          return Histories.read(source, in, buffer, mode, file, at);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      assertThat(actual).as("seed %d, mode %s, buffer %d, split at byte %d of:%n%s", seed, mode,
          buffer, at, text).isEqualTo(expected);
    }
  }

  /**
   * The seeds reach both ways out: the second half used, and given up (a form across the split,
   * an operation without :index, a malformed line after the split).
   */
  @Test
  void theSecondHalfIsUsedAndGivenUp() throws IOException {
    long taken = 0;
    long reads = 0;
    for (long seed : seeds().toList()) {
      Random r = new Random(seed);
      String text = file(r);
      Path file = dir.resolve("c" + seed + ".edn");
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      Files.write(file, bytes);
      for (long at : lineStarts(bytes)) {
        long before = TwoHalves.TAKEN_OVER.get();
        SplitWhileReadingTest.outcome(() -> {
          try (InputStream in = Files.newInputStream(file)) {
            return Histories.read(file.toString(), in, 64, Independent.Mode.AUTO, file, at);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
        taken += TwoHalves.TAKEN_OVER.get() - before;
        reads++;
      }
    }
    assertThat(taken).as("second halves used, of %d reads", reads)
        .isGreaterThan(reads / 5).isLessThan(reads - reads / 10);
  }

  /** A long file split where partkit check splits it: the same history, the second half used. */
  @Test
  void aLongFileSplitAfterItsMiddle() throws IOException {
    StringBuilder sb = new StringBuilder();
    Random r = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      int p = i % 10;
      int k = (i / 20) % 50;
      sb.append(i % 2 == 0
          ? "{:index " + i + ", :process " + p + ", :type :invoke, :f :write, :value [" + k + " "
              + r.nextInt(5) + "]}"
          : "{:index " + i + ", :process " + p + ", :type :ok, :f :write, :value [" + k + " "
              + r.nextInt(5) + "]}").append(i % 7 == 0 ? "\r\n" : "\n");
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    Path file = dir.resolve("long.edn");
    Files.write(file, bytes);
    for (Independent.Mode mode : MODES) {
      String expected = SplitWhileReadingTest.outcome(() -> Histories.read(file.toString(),
          new ByteArrayInputStream(bytes), FastEdnHistoryReader.BUFFER, mode));
      long before = TwoHalves.TAKEN_OVER.get();
      String actual = SplitWhileReadingTest.outcome(() -> {
        try (InputStream in = Files.newInputStream(file)) {
          return Histories.read(file.toString(), in, FastEdnHistoryReader.BUFFER, mode, file, -1);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      assertThat(actual).as("mode %s", mode).isEqualTo(expected);
      assertThat(TwoHalves.TAKEN_OVER.get() - before).as("mode %s", mode).isEqualTo(1);
    }
  }

  /** Every offset just after a '\n' but the end: where a split may be. */
  private static long[] lineStarts(byte[] b) {
    List<Long> at = new ArrayList<>();
    for (int i = 0; i + 1 < b.length; i++) {
      if (b[i] == '\n') {
        at.add((long) i + 1);
      }
    }
    return at.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * SplitWhileReadingTest's history, its lines given an :index (nine in ten), and now and then a
   * blank line, a comment, a map over two lines, a malformed line; line ends \n, \r\n or \r.
   */
  private static String file(Random r) {
    String[] lines = SplitWhileReadingTest.history(r).split("\n", -1);
    String[] ends = {"\n", "\n", "\n", "\r\n", r.nextInt(8) == 0 ? "\r" : "\n"};
    String end = ends[r.nextInt(ends.length)];
    int odd = r.nextInt(4);
    StringBuilder sb = new StringBuilder();
    if (r.nextInt(6) == 0) {
      sb.append("; a history").append(end).append(end);
    }
    int index = 0;
    for (String line : Arrays.asList(lines)) {
      if (line.isEmpty()) {
        continue;
      }
      if (line.endsWith("}") && r.nextInt(10) != 0) {
        line = line.substring(0, line.length() - 1) + ", :index " + index + "}";
      }
      index++;
      if (odd > 0 && r.nextInt(30) < odd) {
        line = line.replaceFirst(", :type", "," + end + " :type"); // a form over two lines
      }
      if (odd > 0 && r.nextInt(60) < odd) {
        line = line.replace("}", "]"); // malformed
      }
      sb.append(line).append(end);
      if (r.nextInt(15) == 0) {
        sb.append(r.nextBoolean() ? "" : "  ; a comment").append(end);
      }
    }
    return sb.toString();
  }
}
