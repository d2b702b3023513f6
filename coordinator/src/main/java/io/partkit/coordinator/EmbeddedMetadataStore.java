package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partkit.coordinator.internal.ListenerExecutor;
import io.partkit.coordinator.internal.VersionedValueArguments;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process {@link MetadataStore} and {@link VersionedValues}: linearizable because every
 * operation holds one lock, optionally durable through a JSON file.
 *
 * <p>Persistence follows the classic atomic-replace recipe: write the whole state to a temporary
 * file in the same directory, {@code fsync} it, rename it over the old file (atomic on POSIX), and
 * {@code fsync} the directory so the rename itself survives a power loss. A crash leaves either the
 * old or the new file, never a torn one. The state is small (one table, one wave of migrations,
 * the members, a few values), so rewriting it whole is cheaper than any log.
 *
 * <p>Callbacks (watches, election) run on one store thread in the order the changes happened, never
 * under the lock, so a listener may call back into the store.
 */
final class EmbeddedMetadataStore implements MetadataStore, VersionedValues {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMetadataStore.class);

  /**
   * The store file's format: {@code {"format":2,"crc32c":...,"state":{...}}}. Format 1 (the
   * state's fields at the top level, no checksum) is no longer read: it cannot be told apart
   * from a damaged file. The state's {@code values} ({@code {"<name>":{"version":7,"value":
   * "<base64>"}}}) may be missing: files written before the store kept values have none.
   */
  static final int FORMAT = 2;

  private final Object lock = new Object();
  private final Path file;
  private final ListenerExecutor callbacks;

  // guarded by lock
  private PartitionAssignment table;
  private List<PendingMigration> pending = List.of();
  private final TreeMap<NodeId, Member> members = new TreeMap<>();
  private long memberVersion;
  private final TreeMap<String, Versioned> values = new TreeMap<>();
  private long revision;
  private final List<TableWatch> tableWatches = new ArrayList<>();
  private final List<Runnable> memberWatches = new CopyOnWriteArrayList<>();
  private EmbeddedLeadership leader;
  private final ArrayDeque<EmbeddedLeadership> standbys = new ArrayDeque<>();
  private boolean closed;

  private EmbeddedMetadataStore(Path file) {
    this.file = file;
    this.callbacks = new ListenerExecutor("partkit-embedded-store-callbacks", describe());
  }

  static EmbeddedMetadataStore inMemory() {
    return new EmbeddedMetadataStore(null);
  }

  static EmbeddedMetadataStore persistent(Path file) {
    EmbeddedMetadataStore store = new EmbeddedMetadataStore(file.toAbsolutePath());
    if (Files.exists(store.file)) {
      store.load();
    }
    return store;
  }

  // ---- table and migrations ----

  @Override
  public MetadataSnapshot read() {
    synchronized (lock) {
      checkOpen();
      return new MetadataSnapshot(Optional.ofNullable(table), pending, revision);
    }
  }

  @Override
  public boolean compareAndSetTable(long expectedEpoch, PartitionAssignment next) {
    requireNonNull(next, "next");
    if (next.epoch() <= expectedEpoch) {
      throw new IllegalArgumentException("the next table's epoch must be above the expected "
          + expectedEpoch + ": " + next.epoch());
    }
    synchronized (lock) {
      checkOpen();
      if (epoch() != expectedEpoch) {
        return false;
      }
      persist(next, List.of(), members, memberVersion, values);
      table = next;
      pending = List.of();
      revision++;
      for (TableWatch w : tableWatches) {
        w.offer(next);
      }
      return true;
    }
  }

  @Override
  public boolean recordMigrations(long expectedEpoch, List<PendingMigration> migrations) {
    List<PendingMigration> copy = List.copyOf(migrations);
    checkMigrations(expectedEpoch, copy);
    synchronized (lock) {
      checkOpen();
      if (epoch() != expectedEpoch || !pending.isEmpty()) {
        return false;
      }
      persist(table, copy, members, memberVersion, values);
      pending = copy;
      revision++;
      return true;
    }
  }

  static void checkMigrations(long expectedEpoch, List<PendingMigration> migrations) {
    if (migrations.isEmpty()) {
      throw new IllegalArgumentException("no migrations to record");
    }
    for (PendingMigration m : migrations) {
      if (m.migration().targetEpoch() <= expectedEpoch) {
        throw new IllegalArgumentException("migration of partition " + m.migration().partition()
            + " must target an epoch above " + expectedEpoch + ": "
            + m.migration().targetEpoch());
      }
    }
  }

  @Override
  public boolean clearMigrations(long expectedEpoch) {
    synchronized (lock) {
      checkOpen();
      if (epoch() != expectedEpoch) {
        return false;
      }
      if (!pending.isEmpty()) {
        persist(table, List.of(), members, memberVersion, values);
        pending = List.of();
        revision++;
      }
      return true;
    }
  }

  @Override
  public AutoCloseable watchTable(Consumer<PartitionAssignment> listener) {
    requireNonNull(listener, "listener");
    synchronized (lock) {
      checkOpen();
      TableWatch watch = new TableWatch(listener);
      tableWatches.add(watch);
      if (table != null) {
        watch.offer(table);
      }
      return () -> {
        synchronized (lock) {
          tableWatches.remove(watch);
          watch.cancelled = true;
        }
      };
    }
  }

  private long epoch() {
    return table == null ? NO_TABLE : table.epoch();
  }

  /** Delivers tables to one listener in commit order, skipping any epoch not above the last. */
  private final class TableWatch {
    private final Consumer<PartitionAssignment> listener;
    private long lastEpoch = Long.MIN_VALUE; // touched only on the callback thread
    private volatile boolean cancelled;

    TableWatch(Consumer<PartitionAssignment> listener) {
      this.listener = listener;
    }

    void offer(PartitionAssignment t) {
      callbacks.run(() -> {
        if (!cancelled && t.epoch() > lastEpoch) {
          lastEpoch = t.epoch();
          listener.accept(t);
        }
      });
    }
  }

  // ---- members ----

  @Override
  public void putMember(Member member, Duration ttl) {
    requireNonNull(member, "member");
    requireNonNull(ttl, "ttl");
    synchronized (lock) {
      checkOpen();
      TreeMap<NodeId, Member> next = new TreeMap<>(members);
      next.put(member.id(), member);
      memberChanged(next);
    }
  }

  @Override
  public boolean renewMember(NodeId id) {
    requireNonNull(id, "id");
    synchronized (lock) {
      checkOpen();
      return members.containsKey(id);
    }
  }

  @Override
  public boolean removeMember(NodeId id) {
    requireNonNull(id, "id");
    synchronized (lock) {
      checkOpen();
      if (!members.containsKey(id)) {
        return false;
      }
      TreeMap<NodeId, Member> next = new TreeMap<>(members);
      next.remove(id);
      memberChanged(next);
      return true;
    }
  }

  private void memberChanged(TreeMap<NodeId, Member> next) {
    persist(table, pending, next, memberVersion + 1, values);
    members.clear();
    members.putAll(next);
    memberVersion++;
    revision++;
    for (Runnable r : memberWatches) {
      callbacks.run(r);
    }
  }

  @Override
  public MembershipView members() {
    synchronized (lock) {
      checkOpen();
      return MembershipView.of(memberVersion, members.values());
    }
  }

  @Override
  public AutoCloseable watchMembers(Runnable onChange) {
    requireNonNull(onChange, "onChange");
    Runnable wrapper = onChange::run; // a distinct identity, so the same Runnable can watch twice
    memberWatches.add(wrapper);
    return () -> memberWatches.remove(wrapper);
  }

  // ---- versioned values ----

  @Override
  public Optional<Versioned> get(String name) {
    VersionedValueArguments.checkName(name);
    synchronized (lock) {
      checkOpen();
      return Optional.ofNullable(values.get(name));
    }
  }

  /**
   * The new version is the revision the change gives the store: persisted with the file, so it
   * keeps growing across a reopen, and above every version any name had before.
   */
  @Override
  public OptionalLong compareAndSet(String name, long expectedVersion, byte[] value) {
    VersionedValueArguments.checkCompareAndSet(name, expectedVersion, value);
    Versioned next;
    synchronized (lock) {
      checkOpen();
      Versioned current = values.get(name);
      if ((current == null ? ABSENT : current.version()) != expectedVersion) {
        return OptionalLong.empty();
      }
      next = new Versioned(value, revision + 1);
      TreeMap<String, Versioned> nextValues = new TreeMap<>(values);
      nextValues.put(name, next);
      persist(table, pending, members, memberVersion, nextValues);
      values.put(name, next);
      revision++;
    }
    return OptionalLong.of(next.version());
  }

  // ---- leadership ----

  @Override
  public Leadership campaign(String candidate, Runnable onElected, Runnable onLost) {
    requireNonNull(candidate, "candidate");
    EmbeddedLeadership l = new EmbeddedLeadership(candidate, onElected, onLost);
    synchronized (lock) {
      checkOpen();
      if (leader == null) {
        leader = l;
        callbacks.run(onElected);
      } else {
        standbys.add(l);
      }
    }
    return l;
  }

  @Override
  public Optional<String> leader() {
    synchronized (lock) {
      return Optional.ofNullable(leader).map(EmbeddedLeadership::candidate);
    }
  }

  private final class EmbeddedLeadership implements Leadership {
    private final String candidate;
    private final Runnable onElected;
    private final Runnable onLost;

    EmbeddedLeadership(String candidate, Runnable onElected, Runnable onLost) {
      this.candidate = candidate;
      this.onElected = onElected;
      this.onLost = onLost;
    }

    @Override
    public boolean isLeader() {
      synchronized (lock) {
        return leader == this;
      }
    }

    @Override
    public String candidate() {
      return candidate;
    }

    @Override
    public void close() {
      synchronized (lock) {
        standbys.remove(this);
        if (leader == this) {
          leader = standbys.poll();
          if (leader != null) {
            callbacks.run(leader.onElected);
          }
        }
      }
    }
  }

  // ---- lifecycle ----

  @Override
  public String describe() {
    return file == null ? "embedded store (in memory)" : "embedded store (file " + file + ")";
  }

  @Override
  public void close() {
    List<EmbeddedLeadership> lost = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (leader != null) {
        lost.add(leader);
      }
      leader = null;
      standbys.clear();
      tableWatches.clear();
      memberWatches.clear();
    }
    lost.forEach(l -> callbacks.run(l.onLost));
    callbacks.shutdown();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }


  // ---- persistence ----

  /**
   * Writes the state the store is about to take (its revision one above today's) before the
   * store takes it: a failed write must leave memory as it was, or the process would serve a
   * state the file never had and lose it at the next restart.
   */
  private void persist(PartitionAssignment nextTable, List<PendingMigration> nextPending,
      TreeMap<NodeId, Member> nextMembers, long nextMemberVersion,
      TreeMap<String, Versioned> nextValues) {
    if (file == null) {
      return;
    }
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode state = f.objectNode();
    state.put("revision", revision + 1);
    state.set("table", nextTable == null ? f.nullNode() : MetadataCodec.tableToTree(nextTable));
    state.set("pending", MetadataCodec.migrationsToTree(nextPending));
    state.put("memberVersion", nextMemberVersion);
    ArrayNode memberArray = state.putArray("members");
    nextMembers.values().forEach(m -> memberArray.add(MetadataCodec.memberToTree(m)));
    ObjectNode valueObject = state.putObject("values");
    nextValues.forEach((name, v) -> valueObject.putObject(name).put("version", v.version())
        .put("value", Base64.getEncoder().encodeToString(v.value())));
    ObjectNode root = f.objectNode();
    root.put("format", FORMAT);
    root.put("crc32c", checksum(state));
    root.set("state", state);
    byte[] bytes = MetadataCodec.write(root).getBytes(StandardCharsets.UTF_8);
    Path dir = file.getParent();
    try {
      Files.createDirectories(dir);
      Path tmp = dir.resolve(file.getFileName() + ".tmp");
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true); // make the rename durable (Linux allows fsync on a directory)
      } catch (IOException e) {
        LOG.debug("cannot fsync directory {} (not supported here): {}", dir, e.toString());
      }
    } catch (IOException e) {
      throw new MetadataStoreException("cannot write " + describe() + " (nothing changed): " + e,
          e);
    }
  }

  /**
   * CRC-32C of the state's compact JSON. Jackson keeps a parsed object's field order and
   * writes numbers as read, so the state read back serializes to the same text: any changed
   * character (a flipped replica index, which would silently change an owner) fails the check.
   */
  private static long checksum(JsonNode state) {
    CRC32C crc = new CRC32C();
    crc.update(MetadataCodec.write(state).getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }

  private void load() {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new MetadataStoreException("cannot read " + describe() + ": " + e, e);
    }
    try {
      JsonNode root = MetadataCodec.read(json, "store file");
      MetadataCodec.Fields state = new MetadataCodec.Fields(verified(root), "state");
      JsonNode t = state.present("table");
      table = t.isNull() ? null : MetadataCodec.tableFromTree(t);
      pending = List.copyOf(MetadataCodec.migrationsFromTree(state.array("pending")));
      memberVersion = state.longValue("memberVersion");
      revision = state.longValue("revision");
      for (JsonNode m : state.array("members")) {
        Member member = MetadataCodec.memberFromTree(m);
        members.put(member.id(), member);
      }
      if (state.has("values")) { // absent from files written before the store kept values
        loadValues(state.object("values"));
      }
    } catch (IllegalArgumentException e) {
      throw new MetadataStoreException("cannot load " + describe() + ": " + e.getMessage()
          + "; the file is left as it is (restore it from a backup, or move it away to start"
          + " with an empty store)", e);
    }
  }

  private void loadValues(JsonNode object) {
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = "state.values." + e.getKey();
      MetadataCodec.Fields v = new MetadataCodec.Fields(e.getValue(), path);
      long version = v.longValue("version");
      if (version <= ABSENT || version > revision) {
        throw new IllegalArgumentException(path + ".version: expected 1 to the store's revision "
            + revision + ": " + version);
      }
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(v.text("value"));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(path + ".value: expected base64: " + bad.getMessage(),
            bad);
      }
      values.put(VersionedValueArguments.checkName(e.getKey()), new Versioned(bytes, version));
    }
  }

  /**
   * The state of a store file, after checking its shape, format and checksum. An empty file,
   * {@code null} or {@code {}} is not an empty store: a store file is only ever written whole,
   * so anything else is damage, and reading it as "no table" would let a coordinator start over.
   */
  private static JsonNode verified(JsonNode root) {
    if (root == null || !root.isObject() || root.isEmpty()) {
      String found = root == null || root.isMissingNode() ? "nothing"
          : root.isObject() ? "{}" : root.toString();
      throw new IllegalArgumentException("expected a JSON object with format " + FORMAT
          + ", crc32c and state; found " + found);
    }
    MetadataCodec.Fields file = new MetadataCodec.Fields(root, "store file");
    int format = file.integer("format");
    if (format != FORMAT) {
      throw new IllegalArgumentException("unsupported format " + format + ", this version reads"
          + " format " + FORMAT);
    }
    JsonNode state = file.object("state");
    long expected = file.longValue("crc32c");
    long actual = checksum(state);
    if (expected != actual) {
      throw new IllegalArgumentException("checksum mismatch (crc32c " + actual + ", the file says "
          + expected + "): the file was changed or damaged after it was written");
    }
    return state;
  }
}
