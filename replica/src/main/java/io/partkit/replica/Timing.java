package io.partkit.replica;

/**
 * The protocol's timeouts, in the milliseconds of whatever clock the driver ticks with (virtual
 * time in the simulator, the wall clock on a TCP node).
 *
 * @param resendMillis a message not answered within this is sent again (messages may be lost)
 * @param suspectMillis a backup that has not answered a request for this long is reported to the
 *     control as a suspect, which may take it out of the configuration
 * @param pingMillis the control's heartbeat to every node
 * @param downMillis a node that has not answered the control's heartbeat for this long is down:
 *     its partitions' primacy moves to a level backup
 */
public record Timing(long resendMillis, long suspectMillis, long pingMillis, long downMillis) {

  /** The figures the simulator and the tests use. */
  public static final Timing DEFAULT = new Timing(40, 250, 50, 400);

  public Timing {
    if (resendMillis <= 0 || suspectMillis <= resendMillis || pingMillis <= 0
        || downMillis <= pingMillis) {
      throw new IllegalArgumentException("timings must be positive, suspicion longer than a "
          + "resend and down longer than a ping: " + this);
    }
  }
}
