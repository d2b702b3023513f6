package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.Timing;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The control's record through the log's codec: whole, or refused. */
class ControlStateCodecTest {

  static ControlState state() {
    return new ControlState(2, List.of(
        new ControlState.Row(0, 7, new Numbering.Hashed(2, 4), List.of(2, 0, 1),
            new TreeSet<>(List.of(0, 2)), new TreeSet<>(List.of(1)), -1, 0,
            new ControlState.Move(2, 3, true)),
        new ControlState.Row(2, 5, new Numbering.Hashed(2, 4), List.of(1),
            new TreeSet<>(List.of(1)), 0, 5, null)),
        new TreeSet<>(List.of(0, 1, 2, 3)), new TreeSet<>(List.of(1)));
  }

  @Test
  void aControlStateRoundTripsThroughTheRecordCodec() throws Exception {
    ControlState s = state();
    Record back = Codec.record(Codec.encode(s));
    assertThat(back).isEqualTo(s);
    Control first = new Control(Timing.DEFAULT, 16, 3, List.of(0, 1, 2, 3, 4));
    Record table = first.ready().records().get(0);
    assertThat(Codec.record(Codec.encode(table))).isEqualTo(table);
  }

  /**
   * The last control state of a control over {@code scheme} that split {@code partition} at its
   * midpoint and the new partition again: span numberings with a cut and with two.
   */
  static ControlState splitTwice(PartitionScheme scheme, int partition) {
    Control c = new Control(Timing.DEFAULT, scheme, 2, List.of(0, 1, 2));
    int child = c.split(partition).orElseThrow();
    c.split(child).orElseThrow();
    List<Record> records = c.ready().records();
    return (ControlState) records.get(records.size() - 1);
  }

  static List<ControlState> spans() {
    return List.of(splitTwice(KeyRanges.even(4), 1),
        splitTwice(KeyRanges.of(new byte[] {'m'}, new byte[] {'t'}), 2),
        splitTwice(TokenRanges.of(-1000, 0, 1000), 0), splitTwice(TokenRanges.of(5), 0));
  }

  /**
   * Control states of key ranges and token rings, split, carry each row's whole numbering (its
   * range and cuts) through the record (tag 67) and restore the control's table.
   */
  @Test
  void aControlStateOfSpansRoundTripsAndRestoresItsNumberings() throws Exception {
    for (ControlState s : spans()) {
      assertThat(s.rows()).extracting(ControlState.Row::numbering)
          .allMatch(n -> n instanceof Numbering.KeySpans || n instanceof Numbering.TokenSpans)
          .anyMatch(n -> n.modulus() == 4 * n.base());
      byte[] b = Codec.encode(s);
      assertThat(b[0]).isEqualTo(ControlStateCodec.TAG);
      ControlState back = (ControlState) Codec.record(b);
      assertThat(back).isEqualTo(s);
      Control restored = Control.restore(Timing.DEFAULT, 2, List.of(back));
      for (ControlState.Row row : s.rows()) {
        assertThat(restored.configuration(row.partition()).numbering())
            .isEqualTo(row.numbering());
      }
      for (long k = -50; k < 50; k++) {
        Bytes key = Bytes.ofLong(k * 7919);
        int p = restored.partitionOf(key);
        assertThat(back.rows()).filteredOn(r -> r.numbering().holds(r.partition(), key))
            .extracting(ControlState.Row::partition).containsExactly(p);
      }
    }
  }

  /** The shape before rows named joining backups (tag 65), as that build wrote it. */
  @Test
  void aControlStateOfTheEarlierShapeIsRestoredNamingNoBackupJoining() throws Exception {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream d = new java.io.DataOutputStream(buf);
    d.writeByte(65);
    d.writeInt(2); // base
    d.writeInt(1); // rows
    d.writeInt(0); // partition
    d.writeLong(7); // epoch
    d.writeLong(4); // modulus
    Codec.ints(d, List.of(2, 0, 1)); // members
    Codec.ints(d, List.of(0, 2)); // level
    d.writeInt(-1); // parent
    d.writeLong(0); // split at
    d.writeBoolean(false); // no move
    Codec.ints(d, List.of(0, 1, 2));
    Codec.ints(d, List.of());
    assertThat(Codec.record(buf.toByteArray())).isEqualTo(new ControlState(2, List.of(
        new ControlState.Row(0, 7, new Numbering.Hashed(2, 4), List.of(2, 0, 1),
            new TreeSet<>(List.of(0, 2)), -1, 0, null)), new TreeSet<>(List.of(0, 1, 2)),
        new TreeSet<>()));
  }

  @Test
  void aTruncatedOrExtendedControlStateIsMalformed() {
    List<ControlState> states = new java.util.ArrayList<>(spans());
    states.add(0, state());
    for (ControlState s : states) {
      byte[] b = Codec.encode(s);
      for (int cut = 1; cut < b.length; cut += 7) {
        byte[] shorter = Arrays.copyOf(b, cut);
        assertThatThrownBy(() -> Codec.record(shorter)).as("cut at %d", cut)
            .isInstanceOf(Codec.Malformed.class);
      }
      byte[] longer = Arrays.copyOf(b, b.length + 1);
      assertThatThrownBy(() -> Codec.record(longer)).isInstanceOf(Codec.Malformed.class)
          .hasMessageContaining("after a control state record");
    }
  }
}
