package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The stable JSON format of partition tables, pending migrations and members: what the metadata
 * stores persist (the embedded store's file, the etcd store's values) and what data nodes read.
 *
 * <h2>Table format, version 1 (persisted: never change it, add a version)</h2>
 * <pre>{@code
 * {"format":1,"strategy":"fixed","epoch":7,"membershipVersion":3,
 *  "scheme":{"kind":"hash-slots","count":4,"keyHash":"MURMUR3_128"},
 *  "nodes":["a","b","c"],
 *  "replicas":[[0,1],[1,2],[2,0],[0,2]]}
 * }</pre>
 * <ul>
 *   <li>{@code scheme.kind} is {@code hash-slots} (with {@code count}) or {@code token-ranges}
 *       (with {@code tokens}: the sorted tokens as decimal <em>strings</em>, because JSON readers
 *       outside Java often hold numbers as doubles and would round 64-bit tokens).
 *   <li>{@code keyHash} is the name of a {@link KeyHash} constant.
 *   <li>{@code nodes} are the node ids that hold replicas, sorted; {@code replicas[p]} lists
 *       partition p's replicas as indexes into {@code nodes}, primary first (compact: a 1024
 *       partition, 3 replica table of 20-character ids is about 12 KB instead of 70 KB).
 * </ul>
 * Fields are written in this order; readers ignore unknown fields so that later versions can add
 * some.
 *
 * <h2>Migrations and members</h2>
 * A pending migration: {@code {"partition":5,"source":"a","target":"b","targetEpoch":8,
 * "targetReplicas":["b","c"]}}, plus {@code "sourceReplicas":["a","c"]} when it moves the whole
 * replica list ({@link Migration#sourceReplicas()}); a list of them is a JSON array. A member:
 * {@code {"id":"a","address":"127.0.0.1:7001","weight":1,"zone":"","rack":""}}.
 */
public final class MetadataCodec {

  /** The version written in {@code "format"}. */
  public static final int FORMAT = 1;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private MetadataCodec() {}

  // ---- tables ----

  /** The table as compact JSON. */
  public static String tableToJson(PartitionAssignment table) {
    return write(tableToTree(table));
  }

  /** The table as UTF-8 JSON bytes. */
  public static byte[] tableToBytes(PartitionAssignment table) {
    return tableToJson(table).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a table.
   *
   * @throws IllegalArgumentException naming the field when the JSON is malformed or not a table
   */
  public static PartitionAssignment tableFromJson(String json) {
    return tableFromTree(read(json, "table"));
  }

  /** Reads a table from UTF-8 JSON bytes. */
  public static PartitionAssignment tableFromBytes(byte[] json) {
    return tableFromJson(new String(json, StandardCharsets.UTF_8));
  }

  static ObjectNode tableToTree(PartitionAssignment table) {
    requireNonNull(table, "table");
    ObjectNode root = NODES.objectNode();
    root.put("format", FORMAT);
    root.put("strategy", table.strategy());
    root.put("epoch", table.epoch());
    root.put("membershipVersion", table.membershipVersion());
    ObjectNode scheme = root.putObject("scheme");
    PartitionScheme s = table.scheme();
    if (s instanceof HashSlots slots) {
      scheme.put("kind", "hash-slots");
      scheme.put("count", slots.count());
    } else if (s instanceof TokenRanges ranges) {
      scheme.put("kind", "token-ranges");
      ArrayNode tokens = scheme.putArray("tokens");
      for (long token : ranges.tokens()) {
        tokens.add(Long.toString(token));
      }
    } else if (s instanceof KeyRanges ranges) {
      scheme.put("kind", "key-ranges");
      ArrayNode splits = scheme.putArray("splits"); // keys are bytes: lower-case hex
      for (byte[] split : ranges.splits()) {
        splits.add(HexFormat.of().formatHex(split));
      }
    }
    scheme.put("keyHash", s.keyHash().name());
    List<NodeId> nodes = table.nodes();
    ArrayNode nodeArray = root.putArray("nodes");
    nodes.forEach(n -> nodeArray.add(n.value()));
    ArrayNode replicas = root.putArray("replicas");
    for (List<NodeId> list : table.replicaTable()) {
      ArrayNode row = replicas.addArray();
      for (NodeId n : list) {
        row.add(java.util.Collections.binarySearch(nodes, n));
      }
    }
    return root;
  }

  static PartitionAssignment tableFromTree(JsonNode root) {
    Fields f = new Fields(root, "table");
    int format = f.integer("format");
    if (format != FORMAT) {
      throw new IllegalArgumentException(
          "table: unsupported format " + format + ", this version reads format " + FORMAT);
    }
    JsonNode schemeNode = f.object("scheme");
    Fields sf = new Fields(schemeNode, "table.scheme");
    KeyHash keyHash;
    String hashName = sf.text("keyHash");
    try {
      keyHash = KeyHash.valueOf(hashName);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("table.scheme.keyHash: unknown key hash '" + hashName
          + "', expected one of " + java.util.Arrays.toString(KeyHash.values()), e);
    }
    String kind = sf.text("kind");
    PartitionScheme scheme;
    switch (kind) {
      case "hash-slots" -> scheme = new HashSlots(sf.integer("count"), keyHash);
      case "token-ranges" -> {
        JsonNode tokenNodes = sf.array("tokens");
        long[] tokens = new long[tokenNodes.size()];
        for (int i = 0; i < tokens.length; i++) {
          try {
            tokens[i] = Long.parseLong(tokenNodes.get(i).asText());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                "table.scheme.tokens[" + i + "]: not a 64-bit integer: " + tokenNodes.get(i), e);
          }
        }
        scheme = TokenRanges.of(keyHash, tokens);
      }
      case "key-ranges" -> {
        JsonNode splitNodes = sf.array("splits");
        List<byte[]> splits = new ArrayList<>(splitNodes.size());
        for (int i = 0; i < splitNodes.size(); i++) {
          try {
            splits.add(HexFormat.of().parseHex(splitNodes.get(i).asText()));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("table.scheme.splits[" + i
                + "]: expected a key as an even number of hex digits: " + splitNodes.get(i), e);
          }
        }
        if (keyHash != KeyHash.ORDERED_PREFIX) {
          throw new IllegalArgumentException("table.scheme.keyHash: key ranges route by "
              + KeyHash.ORDERED_PREFIX + ", not " + keyHash);
        }
        try {
          scheme = KeyRanges.of(splits);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("table.scheme.splits: " + e.getMessage(), e);
        }
      }
      default -> throw new IllegalArgumentException(
          "table.scheme.kind: expected hash-slots, token-ranges or key-ranges: '" + kind + "'");
    }
    JsonNode nodeArray = f.array("nodes");
    List<NodeId> nodes = new ArrayList<>(nodeArray.size());
    nodeArray.forEach(n -> nodes.add(NodeId.of(n.asText())));
    JsonNode replicaArray = f.array("replicas");
    List<List<NodeId>> replicas = new ArrayList<>(replicaArray.size());
    for (int p = 0; p < replicaArray.size(); p++) {
      JsonNode row = replicaArray.get(p);
      List<NodeId> list = new ArrayList<>(row.size());
      for (JsonNode index : row) {
        int i = index.asInt(-1);
        if (!index.canConvertToInt() || i < 0 || i >= nodes.size()) {
          throw new IllegalArgumentException("table.replicas[" + p + "]: node index must be in 0.."
              + (nodes.size() - 1) + ": " + index);
        }
        list.add(nodes.get(i));
      }
      replicas.add(list);
    }
    return PartitionAssignment.of(f.text("strategy"), f.longValue("epoch"),
        f.longValue("membershipVersion"), scheme, replicas);
  }

  // ---- migrations ----

  /** Pending migrations as a JSON array. */
  public static String migrationsToJson(List<PendingMigration> migrations) {
    return write(migrationsToTree(migrations));
  }

  /**
   * Reads pending migrations.
   *
   * @throws IllegalArgumentException naming the field when malformed
   */
  public static List<PendingMigration> migrationsFromJson(String json) {
    return migrationsFromTree(read(json, "migrations"));
  }

  static ArrayNode migrationsToTree(List<PendingMigration> migrations) {
    ArrayNode array = NODES.arrayNode();
    for (PendingMigration pm : migrations) {
      Migration m = pm.migration();
      ObjectNode o = array.addObject();
      o.put("partition", m.partition());
      o.put("source", m.source().value());
      o.put("target", m.target().value());
      o.put("targetEpoch", m.targetEpoch());
      ArrayNode replicas = o.putArray("targetReplicas");
      pm.targetReplicas().forEach(n -> replicas.add(n.value()));
      if (m.sourceReplicas().size() > 1 || m.targetReplicas().size() > 1) {
        // a migration of the whole replica list (its targets are targetReplicas)
        ArrayNode sources = o.putArray("sourceReplicas");
        m.sourceReplicas().forEach(n -> sources.add(n.value()));
      }
    }
    return array;
  }

  static List<PendingMigration> migrationsFromTree(JsonNode array) {
    if (!array.isArray()) {
      throw new IllegalArgumentException(
          "migrations: expected a JSON array: " + array.getNodeType());
    }
    List<PendingMigration> list = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      Fields f = new Fields(array.get(i), "migrations[" + i + "]");
      List<NodeId> replicas = new ArrayList<>();
      f.array("targetReplicas").forEach(n -> replicas.add(NodeId.of(n.asText())));
      Migration m;
      if (f.has("sourceReplicas")) {
        List<NodeId> sources = new ArrayList<>();
        f.array("sourceReplicas").forEach(n -> sources.add(NodeId.of(n.asText())));
        m = new Migration(f.integer("partition"), sources, replicas, f.longValue("targetEpoch"));
      } else {
        m = new Migration(f.integer("partition"), NodeId.of(f.text("source")),
            NodeId.of(f.text("target")), f.longValue("targetEpoch"));
      }
      list.add(new PendingMigration(m, replicas));
    }
    return list;
  }

  // ---- members ----

  /** A member as JSON. */
  public static String memberToJson(Member member) {
    return write(memberToTree(member));
  }

  /**
   * Reads a member.
   *
   * @throws IllegalArgumentException naming the field when malformed
   */
  public static Member memberFromJson(String json) {
    return memberFromTree(read(json, "member"));
  }

  static ObjectNode memberToTree(Member m) {
    ObjectNode o = NODES.objectNode();
    o.put("id", m.id().value());
    o.put("address", m.address());
    o.put("weight", m.weight());
    o.put("zone", m.zone());
    o.put("rack", m.rack());
    return o;
  }

  static Member memberFromTree(JsonNode node) {
    Fields f = new Fields(node, "member");
    return new Member(NodeId.of(f.text("id")), f.text("address"), f.integer("weight"),
        f.text("zone"), f.text("rack"));
  }

  // ---- plumbing ----

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e); // a tree always serializes
    }
  }

  static JsonNode read(String json, String what) {
    requireNonNull(json, what);
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(what + ": malformed JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Typed access to required fields, with messages naming the path. */
  static final class Fields {
    private final JsonNode node;
    private final String path;

    Fields(JsonNode node, String path) {
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(path + ": expected a JSON object: " + node);
      }
      this.node = node;
      this.path = path;
    }

    private JsonNode field(String name) {
      JsonNode value = node.get(name);
      if (value == null || value.isNull()) {
        throw new IllegalArgumentException(path + ": missing field '" + name + "'");
      }
      return value;
    }

    /** Whether an optional field is there (and not {@code null}). */
    boolean has(String name) {
      JsonNode value = node.get(name);
      return value != null && !value.isNull();
    }

    /** A field that must be there but may be {@code null}. */
    JsonNode present(String name) {
      JsonNode value = node.get(name);
      if (value == null) {
        throw new IllegalArgumentException(path + ": missing field '" + name + "'");
      }
      return value;
    }

    String text(String name) {
      JsonNode v = field(name);
      if (!v.isTextual()) {
        throw new IllegalArgumentException(path + "." + name + ": expected a string: " + v);
      }
      return v.asText();
    }

    long longValue(String name) {
      JsonNode v = field(name);
      if (!v.canConvertToLong() || !v.isIntegralNumber()) {
        throw new IllegalArgumentException(path + "." + name + ": expected an integer: " + v);
      }
      return v.asLong();
    }

    int integer(String name) {
      JsonNode v = field(name);
      if (!v.canConvertToInt() || !v.isIntegralNumber()) {
        throw new IllegalArgumentException(path + "." + name + ": expected a 32-bit integer: " + v);
      }
      return v.asInt();
    }

    JsonNode array(String name) {
      JsonNode v = field(name);
      if (!v.isArray()) {
        throw new IllegalArgumentException(path + "." + name + ": expected an array: " + v);
      }
      return v;
    }

    JsonNode object(String name) {
      JsonNode v = field(name);
      if (!v.isObject()) {
        throw new IllegalArgumentException(path + "." + name + ": expected an object: " + v);
      }
      return v;
    }
  }
}
