package io.partkit.replica;

import java.util.List;

/**
 * What a state machine asks its driver to do, in this order: make {@code records} durable
 * (appended and synced, after every record of earlier batches), then send {@code messages}
 * (client replies among them). A message may depend on a record of the same or an earlier batch:
 * sending it before that record is durable can acknowledge what a crash then loses.
 */
public record Ready(List<Record> records, List<Envelope> messages) {

  public static final Ready EMPTY = new Ready(List.of(), List.of());

  public Ready {
    records = List.copyOf(records);
    messages = List.copyOf(messages);
  }

  public boolean isEmpty() {
    return records.isEmpty() && messages.isEmpty();
  }
}
