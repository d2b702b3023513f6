package io.partkit.kvstore.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.wire.SchemeCodec;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.TokenRanges;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The SPLIT requests in the layout the node reads, and the QUERY answer in the one it writes. */
class SplitRequestsTest {

  @Test
  void prepareCarriesTheHeaderThePhaseTheSchemeAndTheOwnedPartitions() throws IOException {
    byte[] scheme = SchemeCodec.encode(TokenRanges.of(-5, 9));
    Wire.Reader r = new Wire.Reader(SplitRequests.prepare(12, scheme, new int[] {0, 3}));
    assertThat(r.i8()).isEqualTo(Wire.SPLIT);
    assertThat(r.i32()).isZero();
    assertThat(r.i64()).isEqualTo(12);
    assertThat((int) r.i8()).isEqualTo(Wire.SPLIT_PREPARE);
    assertThat(SchemeCodec.decode(r.bytes())).isEqualTo(TokenRanges.of(-5, 9));
    assertThat(r.i32()).isEqualTo(2);
    assertThat(r.i32()).isZero();
    assertThat(r.i32()).isEqualTo(3);
  }

  @Test
  void aPhaseIsTheHeaderAndThePhase() throws IOException {
    Wire.Reader r = new Wire.Reader(SplitRequests.phase(Wire.SPLIT_APPLY, 7));
    assertThat(r.i8()).isEqualTo(Wire.SPLIT);
    assertThat(r.i32()).isZero();
    assertThat(r.i64()).isEqualTo(7);
    assertThat((int) r.i8()).isEqualTo(Wire.SPLIT_APPLY);
  }

  @Test
  void theQueryAnswerNamesThePendingSplitOrNone() throws IOException {
    byte[] scheme = SchemeCodec.encode(TokenRanges.of(-5, 9));
    byte[] pending = new Wire.Writer().i64(9).bytes(scheme).i64(4).toBytes();
    assertThat(SplitRequests.readPending(pending))
        .isEqualTo(new SplitRequests.Pending(9, TokenRanges.of(-5, 9)));
    byte[] none = new Wire.Writer().i64(0).bytes(null).i64(4).toBytes();
    assertThat(SplitRequests.readPending(none)).isNull();
  }
}
