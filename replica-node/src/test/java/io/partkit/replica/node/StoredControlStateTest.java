package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStoreException;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.Record.ControlState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
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
    return open(values, r);
  }

  StoredControlState.Opened open(VersionedValues from, Reports r) throws IOException {
    StoredControlState.Opened o = StoredControlState.open(from, "the test's store",
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
    return new ControlState(1, List.of(new ControlState.Row(0, epoch, new Numbering.Hashed(1, 1),
        List.of(0, 1), new TreeSet<>(List.of(0, 1)), -1, 0, null)), new TreeSet<>(List.of(0, 1)),
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
  void aValueThatIsNoControlStateRefusesTheStartAndIsNoDeposition() {
    values.compareAndSet(StoredControlState.NAME, VersionedValues.ABSENT,
        "not a state".getBytes(StandardCharsets.UTF_8));
    Throwable refused = catchThrowable(() -> open(new Reports()));
    assertThat(refused).isInstanceOf(Codec.Malformed.class)
        .isNotInstanceOf(StoredControlState.Deposed.class)
        .hasMessageContaining("the value " + StoredControlState.NAME)
        .hasMessageContaining("is not a control's state");
    ReplicaNodeMain.StartFailure failure = ReplicaNodeMain.startFailure("c1", (Exception) refused);
    assertThat(failure.status()).as("the exit status of a control refusing a malformed value")
        .isEqualTo(1);
    assertThat(failure.why()).startsWith("refusing to start: the value "
        + StoredControlState.NAME);
  }

  @Test
  void aControlRacedWhileItOpensTheStateIsDeposedAndExitsAsDeposed() throws Exception {
    Reports first = new Reports();
    StoredControlState.Opened a = open(first);
    a.storage().append(List.of(state(1)));
    assertThat(first.nextSynced()).isEqualTo(1);
    // another control writes the state between this one's read and its claim
    VersionedValues racedAfterRead = new VersionedValues() {
      @Override
      public Optional<Versioned> get(String name) {
        Optional<Versioned> read = values.get(name);
        read.ifPresent(v -> assertThat(values.compareAndSet(name, v.version(),
            ControlStateCodec.encode(state(7)))).as("the other control's write").isPresent());
        return read;
      }

      @Override
      public OptionalLong compareAndSet(String name, long expectedVersion, byte[] value) {
        return values.compareAndSet(name, expectedVersion, value);
      }
    };

    Throwable raced = catchThrowable(
        () -> open(racedAfterRead, new Reports()));
    assertThat(raced).isInstanceOf(StoredControlState.Deposed.class)
        .hasMessageContaining("another control wrote the state in the test's store")
        .hasMessageContaining("it is deposed");
    ReplicaNodeMain.StartFailure failure = ReplicaNodeMain.startFailure("c2", (Exception) raced);
    assertThat(failure.status()).as("the exit status of a control raced at open")
        .isEqualTo(ReplicaNode.EXIT_DEPOSED);
    assertThat(failure.why()).startsWith("control c2: another control wrote the state");
    assertThat(ControlStateCodec.decode(values.get(StoredControlState.NAME).orElseThrow()
        .value())).as("the state the other control wrote, untouched").isEqualTo(state(7));
  }

  @Test
  void aStoreThatCannotBeReachedAtOpenIsNoDeposition() {
    VersionedValues unreachable = new VersionedValues() {
      @Override
      public Optional<Versioned> get(String name) {
        throw new MetadataStoreException("the test's store cannot be reached");
      }

      @Override
      public OptionalLong compareAndSet(String name, long expectedVersion, byte[] value) {
        throw new MetadataStoreException("the test's store cannot be reached");
      }
    };
    Throwable failed = catchThrowable(
        () -> open(unreachable, new Reports()));
    assertThat(failed).isInstanceOf(MetadataStoreException.class);
    ReplicaNodeMain.StartFailure failure = ReplicaNodeMain.startFailure("c3", (Exception) failed);
    assertThat(failure.status()).as("the exit status of a control whose store is unreachable")
        .isEqualTo(ReplicaNode.EXIT_IO);
    assertThat(failure.why()).isEqualTo("cannot start: the test's store cannot be reached");
  }

  @Test
  void aStateOverTheStoresLimitFailsTheAppendAndARecordOfAnotherKindIsABug() throws Exception {
    StoredControlState.Opened a = open(new Reports());
    List<ControlState.Row> rows = new ArrayList<>();
    for (int p = 0; p < 40_000; p++) {
      rows.add(new ControlState.Row(p, 1, Numbering.NONE, List.of(0, 1, 2),
          new TreeSet<>(List.of(0, 1, 2)), -1, 0, null));
    }
    ControlState huge = new ControlState(40_000, rows, new TreeSet<>(List.of(0, 1, 2)),
        new TreeSet<>());
    assertThatThrownBy(() -> a.storage().append(List.of(huge))).isInstanceOf(IOException.class)
        .hasMessageContaining("over the " + VersionedValues.MAX_VALUE_BYTES + "-byte limit");
    Record checkpoint = RandomValues.records(new java.util.Random(5)).stream()
        .filter(r -> !(r instanceof ControlState)).findFirst().orElseThrow();
    assertThatThrownBy(() -> a.storage().append(List.of(checkpoint)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("takes control states");
  }
}
