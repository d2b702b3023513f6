package io.partkit.verification.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The readers of bytes ({@link Histories#read(String, InputStream)}: {@link EdnBytes},
 * {@link JsonBytes}, the log's fast path) against the general readers they hand surprises to
 * ({@link Histories#read(String, java.io.Reader)}: Clojure's EDN reader, Jackson, the regular
 * expressions), on seeded generated histories in all three formats: values of every kind the
 * fast readers read and of kinds they leave to the general ones, every shape of file, line ends
 * of every kind, and, for one history in two, a few random edits that usually make it malformed.
 * Both must give the same operations (values, lines, indexes) or fail with the same message. The
 * bytes are fed in chunks of random sizes through buffers of a few bytes, so that forms and lines
 * are cut everywhere; and once through the default buffer.
 */
class FastReadersDifferentialTest {
  static Stream<Long> seeds() {
    return LongStream.range(0, Long.getLong("seeds", 400)).boxed();
  }

  @ParameterizedTest(name = "edn seed {0}")
  @MethodSource("seeds")
  void ednReadsAsClojuresReaderReads(long seed) {
    compare(seed, edn(new Random(seed)));
  }

  @ParameterizedTest(name = "json seed {0}")
  @MethodSource("seeds")
  void jsonLinesReadAsJacksonReads(long seed) {
    compare(seed, json(new Random(seed)));
  }

  @ParameterizedTest(name = "log seed {0}")
  @MethodSource("seeds")
  void jepsenLogsReadAsThePatternsRead(long seed) {
    compare(seed, log(new Random(seed)));
  }

  /**
   * The histories Jepsen, Knossos and partkit write are read by the readers of bytes alone: were
   * they handed to the general readers, the differential tests above would pass while the speed
   * was gone. Seeded keyed cas-register histories as partkit writes them, as Jepsen writes an
   * {@code independent} history (records, {@code :time}, {@code [k v]}, the nemesis) and as a
   * Knossos vector; each line of the same history as JSON lines and as a Jepsen log.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("fewSeeds")
  void writtenHistoriesAreReadWithoutTheGeneralReaders(long seed) throws Exception {
    History h = io.partkit.verification.bench.CasHistories.keyed(seed, 5, 40, 4, 0.05);
    StringBuilder jepsen = new StringBuilder();
    StringBuilder knossos = new StringBuilder("[");
    for (Op op : h.ops()) {
      String value = "[" + op.key() + " " + Values.toEdn(op.value()) + "]";
      jepsen.append(seed % 2 == 0 ? "#jepsen.history.Op" : "").append("{:index ")
          .append(op.index()).append(", :time ").append(op.index() * 1000 + 17)
          .append(", :type :").append(op.type().jepsenName()).append(", :process ")
          .append(op.process()).append(", :f :").append(op.f()).append(", :value ")
          .append(value).append("}\n");
      knossos.append("{:process ").append(op.process()).append(" :type :")
          .append(op.type().jepsenName()).append(" :f :").append(op.f()).append(" :value ")
          .append(Values.toEdn(op.value())).append("}\n ");
    }
    jepsen.append("{:index 99999, :time 1, :type :info, :process :nemesis, :f :start,"
        + " :value [:n1 \"n2\" -3 1.5 true]}\n");
    knossos.append("]\n");
    for (String edn : List.of(Histories.write(h, Histories.Format.EDN), jepsen.toString(),
        knossos.toString())) {
      byte[] b = edn.getBytes(StandardCharsets.UTF_8);
      List<Op> ops = new ArrayList<>();
      FastEdnHistoryReader.read("h", b, b.length, InputStream.nullInputStream(), ops,
          FastEdnHistoryReader.BUFFER, false); // throws where the general reader would be needed
      assertThat(ops).isEqualTo(Histories.read("h", general(b)).ops());
    }
    JsonBytes json = new JsonBytes();
    String[] lines = Histories.write(h, Histories.Format.JSON_LINES).split("\n");
    for (int i = 0; i < lines.length; i++) {
      byte[] b = lines[i].getBytes(StandardCharsets.UTF_8);
      assertThat(json.op(b, 0, b.length, i, i + 1)).as("JSON line %s", lines[i]).isNotNull();
    }
    EdnBytes values = new EdnBytes();
    NameTable names = new NameTable();
    List<Op> ops = new ArrayList<>();
    for (String line : Histories.write(h, Histories.Format.JEPSEN_LOG).split("\n")) {
      byte[] b = line.getBytes(StandardCharsets.UTF_8);
      int at = line.indexOf(JepsenLogReader.MARKER) + JepsenLogReader.MARKER.length();
      assertThat(JepsenLogReader.fast(b, at, b.length, 1, ops, values, names))
          .as("log line %s", line).isTrue();
    }
  }

  static Stream<Long> fewSeeds() {
    return LongStream.range(0, 20).boxed();
  }

  private static void compare(long seed, String generated) {
    Random rnd = new Random(seed * 31 + 7);
    String text = rnd.nextBoolean() ? mutate(rnd, generated) : generated;
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = rnd.nextInt(8) == 0 ? withBadByte(rnd, utf8) : utf8;
    String expected = outcome(() -> Histories.read("h", general(bytes)));
    int buffer = 1 + rnd.nextInt(64);
    String small = outcome(() -> Histories.read("h", new Chunks(bytes, rnd), buffer));
    String whole = outcome(() -> Histories.read("h", new ByteArrayInputStream(bytes)));
    String shown = text.length() > 3000 ? text.substring(0, 3000) + "..." : text;
    assertThat(small)
        .as("seed %d, buffer %d: the bytes' reader vs the general one, on:%n%s", seed, buffer,
            shown)
        .isEqualTo(expected);
    assertThat(whole).as("seed %d, default buffer, on:%n%s", seed, shown).isEqualTo(expected);
  }

  interface Read {
    History read() throws HistoryParseException;
  }

  /** The operations one per line (every field), or the error's message. */
  private static String outcome(Read r) {
    try {
      StringBuilder sb = new StringBuilder();
      for (Op op : r.read().ops()) {
        sb.append(op).append(" time=").append(op.time()).append(" key=")
            .append(Values.toEdn(op.key())).append(" value-class=")
            .append(kind(op.value()))
            .append(" process-class=").append(op.process().getClass().getSimpleName())
            .append('\n');
      }
      return sb.toString();
    } catch (HistoryParseException e) {
      return "error: " + e.getMessage();
    }
  }

  /** A value's kind: the readers of bytes make short lists of their own class (equal ones). */
  private static String kind(Object v) {
    return v == null ? "nil" : v instanceof java.util.List ? "List" : v instanceof java.util.Map
        ? "Map" : v instanceof java.util.Set ? "Set" : v.getClass().getSimpleName();
  }

  private static java.io.Reader general(byte[] bytes) {
    return new InputStreamReader(
        new ByteArrayInputStream(bytes),
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE));
  }

  /** A stream that returns its bytes a few at a time. */
  private static final class Chunks extends InputStream {
    private final byte[] b;
    private final Random rnd;
    private int pos;

    Chunks(byte[] b, Random rnd) {
      this.b = b;
      this.rnd = new Random(rnd.nextLong());
    }

    @Override
    public int read() {
      return pos < b.length ? b[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] to, int off, int len) {
      if (pos >= b.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, b.length - pos), 1 + rnd.nextInt(40));
      System.arraycopy(b, pos, to, off, n);
      pos += n;
      return n;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // EDN

  private static final String[] KEYWORDS = {
    ":read", ":write", ":cas", ":x", ":a-b", ":ok?", ":<=", ":_", ":+", ":a.b", ":ns/name",
    ":a#b", ":1x", ":é", ":a'b", ":-"
  };

  /** An EDN value's text; {@code line} false keeps it on one line (a log's value). */
  static String ednValue(Random r, int depth, boolean line) {
    int k = r.nextInt(depth > 3 ? 12 : 30);
    switch (k) {
      case 0: return "nil";
      case 1: return r.nextBoolean() ? "true" : "false";
      case 2: case 3: case 4: return Long.toString(r.nextInt(10) - 2);
      case 5: {
        String[] n = {"123456789012345678", "-123456789012345678", "1234567890123456789",
            "99999999999999999999", "5N", "1.5M", "1/2", "0x1F", "017", "0", "-0", "+7", "1.5",
            "-2.0e3", "1e5", "1.", "00.5", "7a", "1E+2", "2r101"};
        return n[r.nextInt(n.length)];
      }
      case 6: case 7: return KEYWORDS[r.nextInt(KEYWORDS.length)];
      case 8: {
        String[] s = {"\"abc\"", "\"a\\\"b\"", "\"a\\nb\\t\"", "\"é ü\"", "\"\\u0041\"",
            "\"a\\\\b\"", "\"\"", "\"123\"", "\"\\r\\b\\f\"", "\"\\x\"", "\"日本\"",
            line ? "\"a;b\"" : "\"two\nlines\"", line ? "\"x\"" : "\"cr\rhere\"", "\"\\0\""};
        return s[r.nextInt(s.length)];
      }
      case 9: {
        String[] o = {"foo", "nilx", "\\a", "\\newline", "#inst \"2020-01-01T00:00:00Z\"",
            "#uuid \"6c3f6f61-6c1e-4d4e-8f3b-2d3c1c9a0b11\"", "#foo 1", "#_ 1 2", "##Inf",
            "#{1 2}", "#{}", "#:a{:b 1}", "a/b", "'x", "true!", "@x", "^:m [1]", "~x"};
        return o[r.nextInt(o.length)];
      }
      case 10: case 11: case 12: case 13: case 14: case 15:
        return seq(r, depth, line, r.nextBoolean() ? "[" : "(", r.nextBoolean() ? "]" : ")");
      case 16: case 17: case 18: case 19: {
        int n = r.nextInt(r.nextInt(4) == 0 ? 11 : 4);
        StringBuilder sb = new StringBuilder(r.nextInt(10) == 0 ? "#my.Rec{" : "{");
        for (int i = 0; i < n; i++) {
          sb.append(i > 0 ? sep(r, line) : "")
              .append(r.nextInt(5) == 0 ? ednValue(r, depth + 1, line) : ":k" + r.nextInt(12))
              .append(' ')
              .append(ednValue(r, depth + 1, line));
        }
        return sb.append('}').toString();
      }
      default:
        return seq(r, depth, line, "[", "]");
    }
  }

  private static String seq(Random r, int depth, boolean line, String open, String close) {
    int n = r.nextInt(4);
    StringBuilder sb = new StringBuilder(open);
    for (int i = 0; i < n; i++) {
      sb.append(i > 0 ? sep(r, line) : "").append(ednValue(r, depth + 1, line));
    }
    return sb.append(r.nextInt(50) == 0 ? "" : close).toString();
  }

  private static String sep(Random r, boolean line) {
    String[] s = line ? new String[] {" ", ", ", "  ", "\t", ","}
        : new String[] {" ", ", ", "\n ", " ; c\n", ",", "\t", "\r\n"};
    return s[r.nextInt(s.length)];
  }

  private static String process(Random r) {
    String[] p = {"0", "1", "7", "12", ":nemesis", "\"c1\"", ":c2", "-3", "1.5", "[1]", "nil",
        "\"nemesis\""};
    return r.nextInt(3) > 0 ? Integer.toString(r.nextInt(5)) : p[r.nextInt(p.length)];
  }

  private static final String[] TYPES = {":invoke", ":ok", ":fail", ":info", ":invoke", ":ok",
      "\"invoke\"", ":bogus", "1"};
  private static final String[] FS = {":read", ":write", ":cas", "\":read\"", "\"\"", ":add",
      "1", ":x/y"};

  private static String ednOp(Random r) {
    if (r.nextInt(15) == 0) { // Knossos' tuple
      return "[" + process(r) + " " + TYPES[r.nextInt(TYPES.length)] + " "
          + FS[r.nextInt(FS.length)] + " " + ednValue(r, 1, false) + "]";
    }
    List<String> fields = new ArrayList<>();
    fields.add(":process " + process(r));
    fields.add(
        ":type " + (r.nextInt(6) > 0 ? TYPES[r.nextInt(4)] : TYPES[r.nextInt(TYPES.length)]));
    fields.add(":f " + (r.nextInt(6) > 0 ? FS[r.nextInt(3)] : FS[r.nextInt(FS.length)]));
    if (r.nextInt(8) > 0) {
      fields.add(":value " + ednValue(r, 1, false));
    }
    if (r.nextInt(3) == 0) {
      fields.add(":key " + ednValue(r, 2, false));
    }
    if (r.nextInt(3) == 0) {
      fields.add(":index " + (r.nextInt(10) == 0 ? "\"i\"" : Integer.toString(r.nextInt(100))));
    }
    if (r.nextInt(3) == 0) {
      fields.add(":time " + (r.nextInt(10) == 0 ? "1.5" : Long.toString(r.nextInt(1 << 30))));
    }
    if (r.nextInt(4) == 0) {
      fields.add(":node \"n1\"");
    }
    if (r.nextInt(20) == 0) {
      fields.add(fields.get(r.nextInt(fields.size()))); // a duplicate key
    }
    if (r.nextInt(20) == 0) {
      fields.add("\"process\" 3"); // the same field as a string key
    }
    if (r.nextInt(25) == 0) {
      fields.add(":error"); // a key without value
    }
    java.util.Collections.shuffle(fields, r);
    StringBuilder sb = new StringBuilder();
    if (r.nextInt(10) == 0) {
      sb.append(r.nextBoolean() ? "#jepsen.history.Op" : "#jepsen.history.Op ");
    }
    sb.append('{');
    for (int i = 0; i < fields.size(); i++) {
      sb.append(i > 0 ? sep(r, false) : "").append(fields.get(i));
    }
    return sb.append('}').toString();
  }

  static String edn(Random r) {
    StringBuilder sb = new StringBuilder();
    if (r.nextInt(10) == 0) {
      sb.append('\uFEFF');
    }
    if (r.nextInt(5) == 0) {
      sb.append("; a header\n;; more\n\n");
    }
    int shape = r.nextInt(4); // 0, 1: one per line; 2: a vector; 3: a list
    String nl = r.nextInt(6) == 0 ? "\r\n" : r.nextInt(12) == 0 ? "\r" : "\n";
    if (shape >= 2) {
      sb.append(shape == 2 ? "[" : "(").append(r.nextBoolean() ? nl : "");
    }
    int n = r.nextInt(r.nextInt(5) == 0 ? 200 : 30);
    for (int i = 0; i < n; i++) {
      sb.append(ednOp(r));
      int s = r.nextInt(12);
      sb.append(s == 0 ? " " : s == 1 ? nl + nl : s == 2 ? " ; note" + nl : s == 3 ? "," + nl : nl);
    }
    if (shape >= 2 && r.nextInt(20) > 0) {
      sb.append(shape == 2 ? "]" : ")").append(r.nextBoolean() ? nl : "");
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // JSON lines

  private static String jsonValue(Random r, int depth) {
    int k = r.nextInt(depth > 3 ? 9 : 14);
    switch (k) {
      case 0: return "null";
      case 1: return r.nextBoolean() ? "true" : "false";
      case 2: case 3: return Integer.toString(r.nextInt(10) - 2);
      case 4: {
        String[] n = {"123456789012345678", "-123456789012345678", "12345678901234567890", "1.5",
            "-0", "01", "1e5", "-", "2E-3", "0", "1.0"};
        return n[r.nextInt(n.length)];
      }
      case 5: case 6: {
        String[] s = {"\"abc\"", "\"read\"", "\"a\\\"b\"", "\"a\\nb\"", "\"é\"", "\"\\u0041\"",
            "\"\\/\"", "\"\"", "\"tab\there\"", "\"\\q\"", "\":read\"", "\"nemesis\""};
        return s[r.nextInt(s.length)];
      }
      case 7: return "tru";
      case 8: return "'x'";
      case 9: case 10: case 11: {
        int n = r.nextInt(4);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
          sb.append(i > 0 ? (r.nextBoolean() ? ", " : ",") : "").append(jsonValue(r, depth + 1));
        }
        return sb.append(r.nextInt(40) == 0 ? "" : "]").toString();
      }
      default: {
        int n = r.nextInt(4);
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
          sb.append(i > 0 ? ", " : "").append("\"k").append(r.nextInt(4)).append("\": ")
              .append(jsonValue(r, depth + 1));
        }
        return sb.append('}').toString();
      }
    }
  }

  private static String json(Random r) {
    StringBuilder sb = new StringBuilder();
    String nl = r.nextInt(6) == 0 ? "\r\n" : r.nextInt(12) == 0 ? "\r" : "\n";
    int n = 1 + r.nextInt(r.nextInt(5) == 0 ? 200 : 30);
    String[] procs = {"0", "3", "\"c1\"", "\"nemesis\"", "1.5", "null", "[1]", "\":c2\""};
    String[] types = {"\"invoke\"", "\"ok\"", "\"fail\"", "\"info\"", "\":ok\"", "\"bad\"", "1"};
    String[] fs = {"\"read\"", "\"write\"", "\"cas\"", "\":read\"", "\"\"", "2"};
    for (int i = 0; i < n; i++) {
      List<String> fields = new ArrayList<>();
      fields.add("\"process\": " + (r.nextInt(3) > 0 ? r.nextInt(5) : procs[r.nextInt(8)]));
      fields.add("\"type\": " + types[r.nextInt(r.nextInt(6) > 0 ? 4 : types.length)]);
      fields.add("\"f\": " + fs[r.nextInt(r.nextInt(6) > 0 ? 3 : fs.length)]);
      if (r.nextInt(8) > 0) {
        fields.add("\"value\": " + jsonValue(r, 1));
      }
      if (r.nextInt(3) == 0) {
        fields.add("\"key\": " + jsonValue(r, 2));
      }
      if (r.nextInt(3) == 0) {
        fields.add("\"index\": " + r.nextInt(100));
      }
      if (r.nextInt(3) == 0) {
        fields.add("\"time\": " + (r.nextInt(10) == 0 ? "1.5" : r.nextInt(1 << 30)));
      }
      if (r.nextInt(20) == 0) {
        fields.add(fields.get(r.nextInt(fields.size())));
      }
      java.util.Collections.shuffle(fields, r);
      sb.append(r.nextInt(10) == 0 ? "  " : "").append('{').append(r.nextBoolean() ? "" : " ")
          .append(String.join(r.nextBoolean() ? ", " : ",", fields)).append('}')
          .append(r.nextInt(15) == 0 ? " {}" : r.nextInt(10) == 0 ? "  " : "").append(nl);
      if (r.nextInt(15) == 0) {
        sb.append(nl);
      }
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // Jepsen logs

  private static String log(Random r) {
    StringBuilder sb = new StringBuilder();
    String nl = r.nextInt(6) == 0 ? "\r\n" : "\n";
    int n = 1 + r.nextInt(r.nextInt(5) == 0 ? 200 : 30);
    String[] procs = {"0", "3", "12", ":nemesis", "client-1", ":c2", "+5", "-1",
        "12345678901234567890", "00012", "é"};
    String[] types = {":invoke", ":ok", ":fail", ":info", ":information", "invoke", ":ok:"};
    String[] fs = {":read", ":write", ":cas", "read", ":cas,", "::x", ":", "[1]", ":x\"y"};
    String[] gaps = {"\t", " ", "  ", " \t"};
    for (int i = 0; i < n; i++) {
      int kind = r.nextInt(12);
      if (kind == 0) {
        sb.append("INFO  jepsen.core - Running test").append(nl);
        continue;
      }
      if (kind == 1) {
        sb.append("2020-01-01 INFO  jepsen.util - a message of its own").append(nl);
        continue;
      }
      sb.append(r.nextBoolean() ? "INFO  jepsen.util - " : "2017-05-01 10:00:00,000{GMT}\tINFO\t"
          + "[jepsen worker 0] jepsen.util - ");
      sb.append(r.nextInt(3) > 0 ? Integer.toString(r.nextInt(5)) : procs[r.nextInt(procs.length)])
          .append(gaps[r.nextInt(gaps.length)])
          .append(types[r.nextInt(r.nextInt(6) > 0 ? 4 : types.length)]);
      if (r.nextInt(20) > 0) {
        sb.append(gaps[r.nextInt(gaps.length)])
            .append(fs[r.nextInt(r.nextInt(6) > 0 ? 3 : fs.length)]);
        int v = r.nextInt(10);
        if (v > 0) {
          sb.append(gaps[r.nextInt(gaps.length)]).append(ednValue(r, 1, true));
        }
        if (v == 1) {
          sb.append(r.nextBoolean() ? " extra" : " ; a comment");
        }
        if (v == 2) {
          sb.append("  ");
        }
      }
      sb.append(nl);
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------------

  private static final String EDITS = "{}[]()\":;#\\ \n\r,x1é\t-";

  private static String mutate(Random r, String text) {
    StringBuilder sb = new StringBuilder(text);
    int edits = 1 + r.nextInt(3);
    for (int i = 0; i < edits && sb.length() > 0; i++) {
      int at = r.nextInt(sb.length());
      switch (r.nextInt(4)) {
        case 0:
          sb.deleteCharAt(at);
          break;
        case 1:
          sb.insert(at, EDITS.charAt(r.nextInt(EDITS.length())));
          break;
        case 2:
          sb.setLength(at); // cut short
          break;
        default:
          sb.setCharAt(at, EDITS.charAt(r.nextInt(EDITS.length())));
          break;
      }
    }
    return sb.toString();
  }

  private static byte[] withBadByte(Random r, byte[] b) {
    if (b.length == 0) {
      return b;
    }
    byte[] c = b.clone();
    c[r.nextInt(c.length)] = (byte) (0x80 + r.nextInt(0x7F));
    return c;
  }
}
