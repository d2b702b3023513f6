package io.partkit.replica.node;

import io.partkit.coordinator.MetadataStoreException;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Record;
import io.partkit.replica.Record.ControlState;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The control's durable state as one value, {@value #NAME}, in the coordinator's linearizable
 * store (a {@link io.partkit.coordinator.MetadataStore} that keeps {@link VersionedValues}: etcd,
 * or the embedded store) instead of a log of the control's own: a control then starts on any
 * host, and a standby that wins the store's election takes over from where the last leader's
 * durable state stands.
 *
 * <p>Every record the control hands over is its whole durable state ({@link ControlState}), so
 * only the last one taken matters. A writer thread stores it by compare-and-set from the version
 * this control read or wrote last, then reports every record taken until then durable; records
 * taken meanwhile are covered by the next write (group commit, as the log's syncer does).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>One writer.</b> A compare-and-set that finds another version means another control
 *       wrote since: this one is deposed. It reports so ({@code onDeposed}) and writes nothing
 *       more, and nothing it decided after its last write is ever reported durable, so none of
 *       its later configurations leave. Its successor restored from what it wrote last.
 *   <li><b>No write is applied twice or lost in doubt.</b> A store that cannot be reached is asked
 *       again (the store itself recognizes a write of its own whose answer was lost); meanwhile
 *       the control's new configurations wait. A control that loses its leadership for good stops
 *       through the election's own report, not here.
 * </ul>
 */
final class StoredControlState implements Storage {

  /** The value's name in the store. */
  static final String NAME = "replica-control";
  private static final long RETRY_MILLIS = 100;

  /**
   * Another control wrote the state while this one opened it: another control succeeded this
   * one, which is deposed before it began (the process stops as any deposed control does).
   */
  static final class Deposed extends IOException {
    private static final long serialVersionUID = 1L;

    Deposed(String message) {
      super(message);
    }
  }

  /** What {@link #open} found: the storage and the state to restore, if any was stored. */
  record Opened(StoredControlState storage, Optional<ControlState> state, long version) {}

  private final VersionedValues values;
  private final String store;
  private final LongConsumer onSynced;
  private final Consumer<String> onDeposed;
  private final Consumer<String> log;
  private final Object lock = new Object();
  private final Thread writer;
  /** The encoded state taken last, written by the next write. */
  private byte[] latest;
  private long taken;
  private long written;
  /** The version of the value as this control last read or wrote it. */
  private long version;
  private boolean closed;

  private StoredControlState(VersionedValues values, String store, long version,
      LongConsumer onSynced, Consumer<String> onDeposed, Consumer<String> log) {
    this.values = values;
    this.store = store;
    this.version = version;
    this.onSynced = onSynced;
    this.onDeposed = onDeposed;
    this.log = log;
    this.writer = new Thread(this::writeLoop, "control-state-writer");
    this.writer.setDaemon(true);
  }

  /**
   * Reads the control's state from {@code values} ({@code store} names it in messages) and opens
   * the storage that writes the next ones.
   *
   * @param onSynced called on the writer thread with the count of records durable after a write
   * @param onDeposed called on the writer thread, once, when another control wrote since this one
   *     read or wrote (the process must stop)
   * @throws Codec.Malformed when the stored value is not a control state (the process must not
   *     start from it)
   * @throws Deposed when another control wrote the state while this one read it
   * @throws MetadataStoreException when the store cannot be read
   */
  static Opened open(VersionedValues values, String store, LongConsumer onSynced,
      Consumer<String> onDeposed, Consumer<String> log) throws IOException {
    Optional<VersionedValues.Versioned> v = values.get(NAME);
    Optional<ControlState> state = Optional.empty();
    if (v.isPresent()) {
      try {
        state = Optional.of(ControlStateCodec.decode(v.get().value()));
      } catch (Codec.Malformed e) {
        throw new Codec.Malformed("the value " + NAME + " (version " + v.get().version()
            + ") in " + store + " is not a control's state: " + e.getMessage());
      }
    }
    long version = v.map(VersionedValues.Versioned::version).orElse(VersionedValues.ABSENT);
    if (v.isPresent()) {
      // Writing the state read back at once fences the control this one succeeds: a write of
      // the deposed one, from the version read here, now fails instead of passing this one's
      // first write by.
      var claimed = values.compareAndSet(NAME, version, v.get().value());
      if (claimed.isEmpty()) {
        throw new Deposed("another control wrote the state in " + store + " after version "
            + version + " that this one read: it is deposed");
      }
      version = claimed.getAsLong();
    }
    StoredControlState s = new StoredControlState(values, store, version, onSynced, onDeposed,
        log);
    s.writer.start();
    return new Opened(s, state, version);
  }

  /**
   * Takes the control's records: the last one is its whole durable state.
   *
   * @throws IOException when that state is over the store's limit for a value
   * @throws IllegalArgumentException when a record is not a control state (a bug)
   */
  @Override
  public long append(List<Record> records) throws IOException {
    if (records.isEmpty()) {
      synchronized (lock) {
        return taken;
      }
    }
    if (!(records.get(records.size() - 1) instanceof ControlState last)) {
      throw new IllegalArgumentException("the control's storage takes control states, not "
          + records.get(records.size() - 1).getClass().getSimpleName());
    }
    byte[] bytes = ControlStateCodec.encode(last);
    if (bytes.length > VersionedValues.MAX_VALUE_BYTES) {
      throw new IOException("the control's state of " + bytes.length + " bytes is over the "
          + VersionedValues.MAX_VALUE_BYTES + "-byte limit of a value in " + store);
    }
    synchronized (lock) {
      latest = bytes;
      taken += records.size();
      lock.notifyAll();
      return taken;
    }
  }

  private void writeLoop() {
    boolean warned = false;
    while (true) {
      byte[] bytes;
      long count;
      synchronized (lock) {
        while (!closed && written == taken) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        bytes = latest;
        count = taken;
      }
      try {
        var stored = values.compareAndSet(NAME, version, bytes);
        if (stored.isEmpty()) {
          onDeposed.accept("another control wrote the state in " + store + " after version "
              + version + " that this one last saw: it is deposed");
          return;
        }
        version = stored.getAsLong();
      } catch (MetadataStoreException e) {
        if (!warned) {
          log.accept("control: cannot write its state to " + store + ": " + e.getMessage()
              + " (asking again; configurations wait)");
          warned = true;
        }
        try {
          Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException ie) {
          return;
        }
        continue;
      }
      if (warned) {
        log.accept("control: its state is written to " + store + " again");
        warned = false;
      }
      synchronized (lock) {
        written = count;
      }
      onSynced.accept(count);
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    writer.interrupt();
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
