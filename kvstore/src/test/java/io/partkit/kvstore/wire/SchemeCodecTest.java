package io.partkit.kvstore.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.TokenRanges;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Schemes on the wire: every kind round-trips, and bad key ranges are refused saying why. */
class SchemeCodecTest {

  @Test
  void everyKindRoundTrips() throws IOException {
    KeyRanges ranges = KeyRanges.of(new byte[] {'g'}, new byte[] {'t', 0, (byte) 0xff});
    assertThat(SchemeCodec.decode(SchemeCodec.encode(ranges))).isEqualTo(ranges);
    assertThat(SchemeCodec.decode(SchemeCodec.encode(KeyRanges.even(1))))
        .isEqualTo(KeyRanges.even(1));
    assertThat(SchemeCodec.decode(SchemeCodec.encode(HashSlots.of(7))))
        .isEqualTo(HashSlots.of(7));
    assertThat(SchemeCodec.decode(SchemeCodec.encode(TokenRanges.of(-5, 9))))
        .isEqualTo(TokenRanges.of(-5, 9));
  }

  @Test
  void keyRangesOutOfOrderOrTooManyAreRefused() {
    byte[] good = SchemeCodec.encode(KeyRanges.of(new byte[] {'a'}, new byte[] {'b'}));
    byte[] swapped = good.clone();
    swapped[swapped.length - 1] = 'a';
    swapped[swapped.length - 6] = 'b';
    assertThatThrownBy(() -> SchemeCodec.decode(swapped)).isInstanceOf(IOException.class)
        .hasMessageContaining("strictly increasing");
    byte[] huge = good.clone();
    int countAt = good.length - 2 * 5 - 4; // int32 n before two (int32 length, 1 byte) keys
    huge[countAt] = 0x7f;
    assertThatThrownBy(() -> SchemeCodec.decode(huge)).isInstanceOf(IOException.class)
        .hasMessageContaining("do not fit");
  }
}
