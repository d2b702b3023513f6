package io.partkit.replica.node;

/**
 * How a spread key's writes are ordered ({@link ReplicaClient.Builder#spreadKey}). A spread key's
 * value is the newest of its sub-keys' values, newest by a stamp each write carries ({@link
 * KeySpreading}); the two ways differ in where the stamp comes from, and so in what they cost and
 * guarantee.
 */
public enum SpreadWrites {
  /**
   * The stamp is the writing client's hybrid logical clock: its wall clock, moved past every
   * stamp it has read. A write costs two requests to one sub-key (read it, then compare-and-set
   * it so that a sub-key never goes back to an older stamp); a read costs one request per
   * sub-key, plus one for the key itself while no sub-key has a value. Not linearizable: a write
   * that finished before another started, from another client whose clock runs behind by more
   * than the time between them, is ordered after it, and the later write is lost (last writer
   * wins, by clock). A client reads its own writes and never reads a value older than one it read
   * before.
   */
  LAST_WRITER_WINS,
  /**
   * Before it writes, the client reads every sub-key and stamps the write above every stamp it
   * saw (the multi-writer register of Attiya, Bar-Noy and Dolev, each sub-key a linearizable
   * register that only grows): linearizable, whatever the clocks. A write costs one request per
   * sub-key plus the read and compare-and-set of its own, so every sub-key's partition still sees
   * a read for every write; what is spread is the work of the writes themselves (the log, its
   * sync, the replication to the backups), not the count of requests.
   */
  LINEARIZABLE
}
