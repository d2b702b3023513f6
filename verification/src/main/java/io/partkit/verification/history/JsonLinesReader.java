package io.partkit.verification.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON lines, one operation object per line, for users outside Clojure:
 * {@code {"process": 0, "type": "invoke", "f": "read", "value": null, "key": "x"}}. Type and
 * function may carry a leading colon. Values map to the same Java values as EDN.
 */
final class JsonLinesReader {
  private JsonLinesReader() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Reads line by line into {@code ops}: the text is never held whole. */
  static void read(String source, BufferedReader in, List<Op> ops) throws HistoryParseException {
    int lineNo = 0;
    while (true) {
      String raw;
      try {
        raw = in.readLine();
      } catch (IOException e) {
        throw new HistoryParseException(source, lineNo + 1, "cannot read: " + e, e);
      }
      if (raw == null) {
        return;
      }
      line(source, raw, ++lineNo, ops);
    }
  }

  /**
   * Reads from bytes, {@code head[0, headLength)} and then the rest of {@code in}: each line by
   * {@link JsonBytes}, or, when it does not read the line, as text by the Jackson path (so the
   * values and messages are the ones this reader always gave).
   */
  static void read(String source, byte[] head, int headLength, InputStream in, List<Op> ops)
      throws HistoryParseException {
    read(source, head, headLength, in, ops, FastEdnHistoryReader.BUFFER);
  }

  /** As above with a buffer of {@code buffer} bytes at first (tests use a few). */
  static void read(String source, byte[] head, int headLength, InputStream in, List<Op> ops,
      int buffer) throws HistoryParseException {
    JsonBytes fast = new JsonBytes();
    ByteLines.read(source, head, headLength, in, (b, from, to, lineNo) -> {
      while (from < to && b[from] >= 0 && b[from] <= ' ') {
        from++;
      }
      while (to > from && b[to - 1] >= 0 && b[to - 1] <= ' ') {
        to--;
      }
      if (from == to) {
        return; // a blank line, as String.trim() sees it
      }
      Op op = fast.op(b, from, to, ops.size(), lineNo);
      if (op != null) {
        ops.add(op);
      } else {
        line(source, new String(b, from, to - from, StandardCharsets.UTF_8), lineNo, ops);
      }
    }, buffer);
  }

  /** One line of text, numbered from 1: an operation into {@code ops}, or nothing when blank. */
  private static void line(String source, String raw, int lineNo, List<Op> ops)
      throws HistoryParseException {
    String line = raw.trim();
    if (line.isEmpty()) {
      return;
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(line);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new HistoryParseException(source, lineNo,
          "expected one JSON object per line: " + firstLine(e.getMessage()), e);
    }
    if (node == null || !node.isObject()) {
      throw new HistoryParseException(
          source,
          lineNo,
          "expected a JSON object like {\"process\": 0, \"type\": \"invoke\", \"f\": \"read\","
              + " \"value\": null}");
    }
    ops.add(OpMaps.toOp(toJava(node), ops.size(), lineNo, source));
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "malformed JSON";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  static Object toJava(JsonNode n) {
    switch (n.getNodeType()) {
      case NULL:
      case MISSING:
        return null;
      case BOOLEAN:
        return n.booleanValue();
      case NUMBER:
        if (n.canConvertToLong() && n.isIntegralNumber()) {
          return n.longValue();
        }
        return n.isIntegralNumber() ? n.bigIntegerValue() : (Object) n.doubleValue();
      case STRING:
        return n.textValue();
      case ARRAY: {
        List<Object> l = new ArrayList<>();
        for (JsonNode e : n) {
          l.add(toJava(e));
        }
        return Collections.unmodifiableList(l);
      }
      case OBJECT: {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
          m.put(e.getKey(), toJava(e.getValue()));
        }
        return Collections.unmodifiableMap(m);
      }
      default:
        return n.asText();
    }
  }
}
