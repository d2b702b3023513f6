package io.partkit.coordinator;

/**
 * One candidate's standing in a leader election on a {@link MetadataStore}: standby until it wins,
 * then leader until it {@linkplain #close() steps down} or loses its lease. A candidate that lost
 * leadership without being closed keeps campaigning and may lead again.
 *
 * <p>Leadership decides who acts; it is not what keeps the table safe: every table change is a
 * compare-and-set on the epoch, so a deposed leader that has not noticed yet cannot overwrite its
 * successor's work.
 */
public interface Leadership extends AutoCloseable {

  /** True while this candidate leads. */
  boolean isLeader();

  /** The candidate's name. */
  String candidate();

  /** Steps down (or stops campaigning); a standby may then win. Idempotent. */
  @Override
  void close();
}
