package io.partkit.replica.node;

import io.partkit.replica.Envelope;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import java.util.List;
import java.util.function.Consumer;

/**
 * What stands between a node's driver and its core: what the core is handed, what of its
 * messages leaves, what of its records reaches the log. The production node runs with {@link
 * #NONE}, which changes nothing; nothing on its command line or wire gives it another. Another is
 * for planted bugs only: a test's node process passes one to {@link ReplicaNodeMain#run}, so
 * {@code partkit verify} can show that it catches a broken protocol on real processes.
 */
public interface Interposer {

  /** Hands the core every message, sends every message, logs every record. */
  Interposer NONE = new Interposer() {
    @Override
    public Envelope inbound(Replica core, int self, Envelope e, Consumer<Envelope> send) {
      return e;
    }

    @Override
    public boolean outbound(Envelope e) {
      return true;
    }

    @Override
    public List<Record> logged(List<Record> records) {
      return records;
    }
  };

  /**
   * What the core of node {@code self} is handed for {@code e}: {@code e}, another message, or
   * null when it was answered through {@code send} instead.
   */
  Envelope inbound(Replica core, int self, Envelope e, Consumer<Envelope> send);

  /** Whether the core's message {@code e} leaves. */
  boolean outbound(Envelope e);

  /** The records of {@code records} that reach the log; all count as durable once they do. */
  List<Record> logged(List<Record> records);
}
