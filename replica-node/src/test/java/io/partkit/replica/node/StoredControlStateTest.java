package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Record;
import io.partkit.replica.Record.ControlState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control's state as one value of the coordinator's (embedded) store: written by
 * compare-and-set behind the control's records, read back by the next control, which fences the
 * one before it.
 */
class StoredControlStateTest {

  final MetadataStore store = MetadataStores.embedded();
  final VersionedValues values = (VersionedValues) store;
  final List<StoredControlState> opened = new ArrayList<>();

  /** What one storage reported: counts made durable, and a deposition. */
  static final class Reports {
    final BlockingQueue<Long> synced = new LinkedBlockingQueue<>();
    final BlockingQueue<String> deposed = new LinkedBlockingQueue<>();

    long nextSynced() throws InterruptedException {
      Long c = synced.poll(30, TimeUnit.SECONDS);
      assertThat(c).as("a durability report within 30 s").isNotNull();
      return c;
    }
  }

  StoredControlState.Opened open(Reports r) throws IOException {
    StoredControlState.Opened o = StoredControlState.open(values, "the test's store",
        r.synced::add, r.deposed::add, line -> { });
    opened.add(o.storage());
    return o;
  }

  @AfterEach
  void close() {
    opened.forEach(StoredControlState::close);
    store.close();
  }

  static ControlState state(long epoch) {
    return new ControlState(List.of(new ControlState.Row(0, epoch, 1, List.of(0, 1),
        new TreeSet<>(List.of(0, 1)), -1, 0, null)), new TreeSet<>(List.of(0, 1)),
        new TreeSet<>());
  }

  @Test
  void theLastStateTakenIsWrittenAndTheNextControlReadsIt() throws Exception {
    Reports first = new Reports();
    StoredControlState.Opened a = open(first);
    assertThat(a.state()).as("an empty store").isEmpty();
    assertThat(a.storage().append(List.of(state(1), state(2)))).isEqualTo(2);
    long durable = first.nextSynced();
    while (durable < 2) {
      durable = first.nextSynced();
    }
    assertThat(ControlStateCodec.decode(values.get(StoredControlState.NAME).orElseThrow()
        .value())).isEqualTo(state(2));
    assertThat(a.storage().append(List.of())).as("nothing taken: the same count").isEqualTo(2);

    StoredControlState.Opened b = open(new Reports());
    assertThat(b.state()).contains(state(2));
    assertThat(b.version()).as("the version after the successor's claim")
        .isGreaterThan(VersionedValues.ABSENT);
  }

  @Test
  void aControlWhoseSuccessorReadTheStateIsDeposedAndNothingItTakesLaterIsDurable()
      throws Exception {
    Reports first = new Reports();
    StoredControlState.Opened a = open(first);
    a.storage().append(List.of(state(1)));
    assertThat(first.nextSynced()).isEqualTo(1);

    StoredControlState.Opened b = open(new Reports());
    assertThat(b.state()).contains(state(1));
    a.storage().append(List.of(state(5)));
    String why = first.deposed.poll(30, TimeUnit.SECONDS);
    assertThat(why).as("the deposed control's report").isNotNull()
        .contains("another control wrote the state in the test's store");
    assertThat(first.synced).as("the deposed control's later state is never reported durable")
        .isEmpty();
    assertThat(ControlStateCodec.decode(values.get(StoredControlState.NAME).orElseThrow()
        .value())).as("what the store holds").isEqualTo(state(1));
  }

  @Test
  void twoFirstControlsNeverBothWriteTheFirstState() throws Exception {
    Reports first = new Reports();
    Reports second = new Reports();
    StoredControlState.Opened a = open(first);
    StoredControlState.Opened b = open(second);
    a.storage().append(List.of(state(1)));
    assertThat(first.nextSynced()).isEqualTo(1);
    b.storage().append(List.of(state(9)));
    assertThat(second.deposed.poll(30, TimeUnit.SECONDS)).isNotNull();
    assertThat(second.synced).isEmpty();
  }

  @Test
  void aValueThatIsNoControlStateRefusesTheStart() {
    values.compareAndSet(StoredControlState.NAME, VersionedValues.ABSENT,
        "not a state".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> open(new Reports())).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("the value " + StoredControlState.NAME)
        .hasMessageContaining("is not a control's state");
  }

  @Test
  void aStateOverTheStoresLimitFailsTheAppendAndARecordOfAnotherKindIsABug() throws Exception {
    StoredControlState.Opened a = open(new Reports());
    List<ControlState.Row> rows = new ArrayList<>();
    for (int p = 0; p < 40_000; p++) {
      rows.add(new ControlState.Row(p, 1, 0, List.of(0, 1, 2), new TreeSet<>(List.of(0, 1, 2)),
          -1, 0, null));
    }
    ControlState huge = new ControlState(rows, new TreeSet<>(List.of(0, 1, 2)), new TreeSet<>());
    assertThatThrownBy(() -> a.storage().append(List.of(huge))).isInstanceOf(IOException.class)
        .hasMessageContaining("over the " + VersionedValues.MAX_VALUE_BYTES + "-byte limit");
    Record checkpoint = RandomValues.records(new java.util.Random(5)).stream()
        .filter(r -> !(r instanceof ControlState)).findFirst().orElseThrow();
    assertThatThrownBy(() -> a.storage().append(List.of(checkpoint)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("takes control states");
  }
}
