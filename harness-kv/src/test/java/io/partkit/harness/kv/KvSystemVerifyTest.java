package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.partkit.test.support.RequiresEtcd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code partkit verify --system kv} on the processes runtime, with the store's own faults: five
 * node processes and a control (or two on etcd, or a partkit coordinator), nodes killed with
 * {@code kill -9} and restarted from their logs, partitions split, migrations caught in flight,
 * nodes lost for good; each history is linearizable with every acknowledged write read back.
 * harness-it's {@code KvVerifyTest} runs the CI shape every system shares, and the planted bugs.
 */
class KvSystemVerifyTest {

  /**
   * The control's state in etcd and two controls: {@code --option metadata=etcd} with {@code
   * kill}. Seed 34's schedule kills the leading control, so a control is elected again (the
   * standby, or the killed one started again) and restores from the state in etcd, and the
   * history stays linearizable with every acknowledged write read back.
   */
  @Test
  @ExtendWith(RequiresEtcd.class)
  void replicaCoresPassKillsOfTheLeadingControlWithTheStateInEtcd() throws Exception {
    VerifySpec spec = VerifySpec.builder("kv").nemeses(List.of("kill"))
        .time(Duration.ofSeconds(20)).seed(34).runtime("processes")
        .options(Map.of("metadata", "etcd")).store(Path.of("target", "store")).build();
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).containsPattern("\"kill control2?\"");
    // the recovery's settled table needs a control elected after each kill of the leader (the
    // standby, or the killed one started again) that restored from the state in etcd
    String logs = Files.readString(r.dir().resolve("control.log"))
        + Files.readString(r.dir().resolve("control2.log"));
    assertThat(Pattern.compile("control control2?: elected in").matcher(logs).results().count())
        .as("elections of a control").isGreaterThanOrEqualTo(2);
    assertThat(logs).contains("control: state read from etcd store");
  }

  /**
   * Splits under kills: {@code --nemesis kill,split} on a table of 2 partitions. Seed 33's
   * schedule draws split, kill, split, kill, so the table doubles while clients run and nodes
   * die, and the history stays linearizable with every acknowledged write read back.
   */
  @Test
  void replicaCoresOnRealProcessesPassSplitsAndKills() throws Exception {
    VerifySpec spec = VerifySpec.builder("kv").nemeses(List.of("kill", "split"))
        .time(Duration.ofSeconds(25)).seed(33).runtime("processes")
        .options(Map.of("partitions", "2")).store(Path.of("target", "store")).build();
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    String history = Files.readString(r.dir().resolve("history.edn"));
    Matcher m = Pattern.compile("\"split \\d+ into \\d+ modulus \\d+ partitions (\\d+)\"")
        .matcher(history);
    int partitions = 2;
    int splits = 0;
    while (m.find()) {
      partitions = Math.max(partitions, Integer.parseInt(m.group(1)));
      splits++;
    }
    assertThat(splits).as("splits committed").isGreaterThanOrEqualTo(2);
    assertThat(partitions).as("the table's partitions after the splits").isGreaterThanOrEqualTo(4);
    assertThat(history).contains("kill");
  }

  /**
   * Key ranges on real processes: {@code --option numbering=keys} with {@code kill,split} on a
   * table of 2 ranges. The split cuts a range at its midpoint, the nodes divide their copies at
   * that key, and the history stays linearizable with every acknowledged write read back and
   * every copy where the table of ranges says.
   */
  @Test
  void replicaCoresPassSplitsOfKeyRangesAndKills() throws Exception {
    String history = validWithPlacementHeld(VerifySpec.builder("kv")
        .nemeses(List.of("kill", "split")).time(Duration.ofSeconds(15)).seed(33)
        .runtime("processes").options(Map.of("partitions", "2", "numbering", "keys"))
        .store(Path.of("target", "store")).build());
    assertThat(history).containsPattern("\"split \\d+ into \\d+ modulus 4 partitions 3\"");
  }

  /**
   * A partkit coordinator deciding the table: {@code --option metadata=coordinator} with {@code
   * kill,membership}. Seed 41's schedule has three nodes leave (each rebalanced by the
   * coordinator, whose migrations the control carries out) and join again on heal, and kills the
   * coordinator's process, which restarts from its store; the history stays linearizable with
   * every acknowledged write read back.
   */
  @Test
  void replicaCoresPassMembershipChangesAndKillsUnderAPartkitCoordinator() throws Exception {
    VerifySpec spec = VerifySpec.builder("kv").nemeses(List.of("kill", "membership"))
        .time(Duration.ofSeconds(25)).seed(41).runtime("processes")
        .options(Map.of("metadata", "coordinator")).store(Path.of("target", "store")).build();
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(Pattern.compile("\"healed: leave n\\d\"").matcher(history).results().count())
        .as("leaves rebalanced and joined again").isGreaterThanOrEqualTo(2);
    assertThat(history).contains("\"healed: kill control\"");
    String log = Files.readString(r.dir().resolve("control.log"));
    assertThat(log).contains("control: state read from the coordinator's store");
    assertThat(Pattern.compile("control: partition \\d+ epoch").matcher(log).results().count())
        .as("configurations the control carried out").isGreaterThan(20);
  }

  /**
   * Faults aimed at migrations in flight: {@code --nemesis migration}. Each fault has a member
   * leave, waits for a copy to join a partition's configuration ({@code REPLICA JOINING} on the
   * control's output) and pauses the copy's source or target or kills the control mid-move; the
   * history stays linearizable with every acknowledged write read back, and the placement check
   * finds every partition's copies where the control's table says.
   */
  @Test
  void replicaCoresPassFaultsAimedAtMigrationsInFlight() throws Exception {
    String history = validWithPlacementHeld("migration", 36);
    assertThat(Pattern.compile("\\(partition \\d+ n\\d -> n\\d\\)").matcher(history).results()
        .count()).as("faults aimed at a migration caught in flight").isGreaterThanOrEqualTo(1);
  }

  /**
   * Nodes lost for good: {@code --nemesis lose}, with the control's own log and under a partkit
   * coordinator. Each fault kills a node, deletes its data and has the control (or the
   * coordinator, which tells the control first) forget it; the heal starts an empty node in its
   * place, which joins. The history stays linearizable with every acknowledged write read back
   * from the other copies, and the placement check holds.
   */
  @ParameterizedTest(name = "metadata={0}")
  @ValueSource(strings = {"log", "coordinator"})
  void replicaCoresPassNodesLostForGood(String metadata) throws Exception {
    String history = validWithPlacementHeld(VerifySpec.builder("kv")
        .nemeses(List.of("lose")).time(Duration.ofSeconds(20)).seed(37).runtime("processes")
        .options(Map.of("metadata", metadata)).store(Path.of("target", "store")).build());
    assertThat(Pattern.compile("\"lose n\\d\"").matcher(history).results().count())
        .as("nodes lost for good").isGreaterThanOrEqualTo(1);
  }

  /**
   * A 20 s run of {@code nemesis} with {@code seed}, asserted valid with acknowledged writes
   * checked and the placement check holding; its history.
   */
  private static String validWithPlacementHeld(String nemesis, long seed) throws Exception {
    return validWithPlacementHeld(VerifySpec.builder("kv").nemeses(List.of(nemesis))
        .time(Duration.ofSeconds(20)).seed(seed).runtime("processes")
        .store(Path.of("target", "store")).build());
  }

  /** A run of {@code spec}, asserted as above; its history. */
  private static String validWithPlacementHeld(VerifySpec spec) throws Exception {
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    assertThat(r.placement()).as("placement checked").isPresent();
    assertThat(r.placement().get().misplaced()).isEmpty();
    return Files.readString(r.dir().resolve("history.edn"));
  }
}
