package io.partkit.replica.node.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** A frame's body costs what arrived of it, not what its prefix declared. */
class FrameBodyTest {

  @Test
  void aBodyThatDeclares64MiBButSendsAFewBytesCostsAFewBytes() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    // the same path once first: loading the classes of the reader and of the assertion must not
    // count against the frame
    assertThatThrownBy(() -> FrameBody.read(new ByteArrayInputStream(new byte[1]), 9))
        .isInstanceOf(EOFException.class);
    long before = threads.getCurrentThreadAllocatedBytes();
    assertThatThrownBy(() -> FrameBody.read(new ByteArrayInputStream(new byte[1000]), 64 << 20))
        .isInstanceOf(EOFException.class).hasMessage("frame ended after 1000 of 67108864 bytes");
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).as("bytes allocated to read the prefix").isLessThan(1 << 20);
  }

  @Test
  void aBodyLargerThanTheFirstBufferIsReadWhole() throws Exception {
    byte[] bytes = new byte[300_000];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31);
    }
    assertThat(FrameBody.read(new ByteArrayInputStream(bytes), bytes.length)).isEqualTo(bytes);
  }
}
