package io.partkit.replica;

import java.util.List;

/**
 * What a state machine asks its driver to do, in this order: make {@code records} durable
 * (appended and synced, after every record of earlier batches), then send {@code messages}
 * (client replies among them). A message may depend on a record of the same or an earlier batch:
 * sending it before that record is durable can acknowledge what a crash then loses.
 */
public record Ready(List<Record> records, List<Envelope> messages, boolean more) {

  public static final Ready EMPTY = new Ready(List.of(), List.of(), false);

  /**
   * @param more the machine has more to hand out without any further input (the next page of a
   *     copy under way): the driver asks again soon, after the inputs already waiting
   */
  public Ready {
    records = List.copyOf(records);
    messages = List.copyOf(messages);
  }

  /** A Ready after which the machine has nothing more to hand out until its next input. */
  public Ready(List<Record> records, List<Envelope> messages) {
    this(records, messages, false);
  }

  public boolean isEmpty() {
    return records.isEmpty() && messages.isEmpty();
  }
}
