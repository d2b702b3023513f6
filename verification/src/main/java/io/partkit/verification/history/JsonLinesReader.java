package io.partkit.verification.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
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
    int i = -1;
    while (true) {
      String raw;
      try {
        raw = in.readLine();
      } catch (IOException e) {
        throw new HistoryParseException(source, i + 2, "cannot read: " + e, e);
      }
      if (raw == null) {
        return;
      }
      i++;
      String line = raw.trim();
      if (line.isEmpty()) {
        continue;
      }
      JsonNode node;
      try {
        node = MAPPER.readTree(line);
      } catch (JsonProcessingException | RuntimeException e) {
        throw new HistoryParseException(source, i + 1,
            "expected one JSON object per line: " + firstLine(e.getMessage()), e);
      }
      if (node == null || !node.isObject()) {
        throw new HistoryParseException(
            source,
            i + 1,
            "expected a JSON object like {\"process\": 0, \"type\": \"invoke\", \"f\": \"read\","
                + " \"value\": null}");
      }
      ops.add(OpMaps.toOp(toJava(node), ops.size(), i + 1, source));
    }
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
