package io.partkit.kvstore.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Bounds checks of frame bodies, which come from the network and from the log. */
class WireTest {

  @Test
  void aLengthNearTwoToThe31IsTruncationNotAHugeAllocation() throws IOException {
    // 17 bytes of fields, then a byte-string length whose sum with the position overflows an int:
    // the old check (pos + n > length) passed and allocated 2 GiB for a 21-byte body
    byte[] body = new Wire.Writer().i8(1).i32(2).i32(3).i32(4).i32(5).i32(0x7FFFFFF0).toBytes();
    assertThat(body).hasSize(21);
    Wire.Reader r = new Wire.Reader(body);
    r.i8();
    r.i32();
    r.i32();
    r.i32();
    r.i32();
    assertThatThrownBy(r::bytes).isInstanceOf(EOFException.class)
        .hasMessageContaining("need 2147483632 bytes at 21 of 21");
  }

  @Test
  void aByteStringReadsBackAndAShortOneIsTruncation() throws IOException {
    byte[] body = new Wire.Writer().bytes(new byte[] {7, 8, 9}).toBytes();
    assertThat(new Wire.Reader(body).bytes()).containsExactly(7, 8, 9);
    byte[] cut = java.util.Arrays.copyOf(body, body.length - 1);
    assertThatThrownBy(() -> new Wire.Reader(cut).bytes()).isInstanceOf(EOFException.class);
  }
}
