package io.partkit.replica.node.access;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A frame's body read as its bytes arrive, growing the buffer, never allocated whole from the
 * length its prefix declares: allocating that up front let a peer that sent only a 64 MiB prefix
 * hold 64 MiB of the node's heap.
 */
public final class FrameBody {

  private static final int FIRST_BUFFER = 1 << 16;

  private FrameBody() {}

  /**
   * The next {@code length} bytes of {@code in} (a length the caller has checked against its
   * limit).
   *
   * @throws EOFException when the stream ends first, saying how far the frame got
   */
  public static byte[] read(InputStream in, int length) throws IOException {
    byte[] body = new byte[Math.min(length, FIRST_BUFFER)];
    int read = 0;
    while (read < length) {
      if (read == body.length) {
        body = Arrays.copyOf(body, (int) Math.min(length, 2L * body.length));
      }
      int n = in.read(body, read, body.length - read);
      if (n < 0) {
        throw new EOFException("frame ended after " + read + " of " + length + " bytes");
      }
      read += n;
    }
    return body;
  }
}
