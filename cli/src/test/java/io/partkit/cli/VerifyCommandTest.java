package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.RuntimeOption;
import io.partkit.harness.runtime.Runtimes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class VerifyCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cmd = Main.commandLine(new VerifyCommand());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return cmd.execute(args);
  }

  @Test
  void aShortKvRunIsValidAndStoredJepsensWay(@TempDir Path store) throws Exception {
    int code = run("--system", "kv", "--nodes", "3", "--time", "6s", "--concurrency", "4",
        "--rate", "100", "--seed", "5", "--store", store.toString());
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("valid: ");
    Path latest = store.resolve("latest");
    assertThat(latest).isSymbolicLink();
    for (String file : new String[] {"history.edn", "results.edn", "index.html", "n1.log",
        "control.log"}) {
      assertThat(latest.resolve(file)).isNotEmptyFile();
    }
    assertThat(err.toString()).contains("final reads").contains("check");
    assertThat(err.toString()).as("a duration as people write it").contains(", 6 s, seed 5")
        .doesNotContain("PT6S");
    assertThat(out.toString()).contains(" 0 keys unread");
    // no --option given: the run still records the mode it ran in, defaults included
    assertThat(out.toString()).contains("; options ").contains("replicas=3");
    assertThat(Files.readString(latest.resolve("results.edn")))
        .containsPattern(":options \\{[^}]*\"replicas\" \"3\"");
  }

  @Test
  void containersWithoutTheirImageOrEngineAreASetupFailureSayingHowToFixIt(@TempDir Path store) {
    assertThat(run("--system", "kv", "--nodes", "2", "--runtime",
        "containers:partkit/no-such-image:0", "--store", store.toString())).isEqualTo(4);
    // with an engine (CI starts one) the image is missing; without one, the engine is
    assertThat(err.toString()).containsAnyOf("docker pull partkit/no-such-image:0",
        "no Docker engine answers at");
    assertThat(err.toString()).containsAnyOf(
        "image partkit/no-such-image:0 is not in the Docker engine", "dockerd --iptables=false");
    assertThat(err.toString()).doesNotContain("Exception");
  }

  @Test
  void badArgumentsAreUsageErrorsNamingWhatWasWrong(@TempDir Path store) {
    assertThat(run("--system", "riak", "--store", store.toString())).isEqualTo(64);
    assertThat(err.toString())
        .contains("unknown system 'riak': expected one of etcd, exec, hazelcast, ignite, kv");
    assertThat(run("--system", "kv", "--nemesis", "meteor", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("unknown nemesis 'meteor'");
    assertThat(run("--system", "kv", "--nemesis", "partition", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("cannot cut the network: use --runtime containers");
    assertThat(run("--system", "kv", "--time", "soon", "--store", store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("--time must look like 30s");
    assertThat(run("--system", "kv", "--runtime", "vm", "--store", store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("unknown runtime 'vm'");
    assertThat(run("--system", "kv", "--runtime", "ssh", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("--runtime ssh needs --hosts h1,h2,h3");
    assertThat(run("--system", "kv", "--hosts", "h1,h2", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("--hosts and --ssh-* options need --runtime ssh");
    assertThat(run("--system", "kv", "--runtime", "ssh", "--hosts", "h1,h1", "--store",
        store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("ssh option hosts=h1,h1: host h1 is listed twice");
    assertThat(run("--system", "kv", "--runtime", "ssh:h2,h2", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("ssh option hosts=h2,h2: host h2 is listed twice");
    assertThat(run("--system", "kv", "--runtime", "ssh", "--hosts", "h1", "--ssh-port", "0",
        "--store", store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("ssh option port=0: out of range (expected an integer "
        + "from 1 to 65535)");
    assertThat(run("--system", "kv", "--runtime-option", "image=x", "--store", store.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("unknown processes option 'image'")
        .contains("processes takes no options");
    assertThat(run("--system", "kv", "--runtime", "containers", "--runtime-option",
        "imag=x", "--store", store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("unknown containers option 'imag'")
        .contains("containers options: image=partkit/node:bookworm-2");
    assertThat(run("--store", store.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("Missing required option: '--system=<system>'");
    assertThat(store.resolve("kv")).satisfiesAnyOf(
        p -> assertThat(Files.exists(p)).isFalse(),
        p -> assertThat(Files.list(p)).isEmpty());
  }

  @Test
  void theHelpStatesTheExitCodes() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Exit codes:").contains(" 4   the cluster could not be "
        + "set up").contains("64   usage error");
  }

  @Test
  void anUnknownMutantIsAUsageErrorBeforeAnythingStarts(@TempDir Path store) {
    // it used to start the cluster and fail there, as a setup failure
    int code = run("--system", "kv", "--nodes", "2", "--time", "5s", "--store", store.toString(),
        "--option", "mutant=no-such-mutant");
    assertThat(code).isEqualTo(64);
    assertThat(err.toString())
        .contains("kv option mutant=no-such-mutant: not one of them (expected one of"
            + " unlogged-writes, async-replication, read-without-confirm,");
  }

  @Test
  void aPartThatCannotStartIsASetupFailureWithEverythingTornDown(@TempDir Path store) {
    int code = run("--system", "kv", "--nodes", "2", "--time", "5s", "--store", store.toString(),
        "--option", "metadata=etcd", "--option", "etcd=" + store.resolve("no-etcd-here"));
    assertThat(code).as(err.toString()).isEqualTo(4);
    assertThat(err.toString()).contains("setup failed: etcd not found at ");
  }

  @Test
  void theHelpListsDefaultsAndEveryOptionOfEverySystem() {
    assertThat(run("--help")).isZero();
    String help = out.toString().replaceAll("\\s+", " ");
    assertThat(help).contains("seed (default 1)").contains("processes (loopback, the default)")
        .contains("--option metadata=log one of log, etcd, coordinator");
    io.partkit.harness.system.Systems systems = io.partkit.harness.system.Systems.load();
    for (String name : systems.names()) {
      for (var option : systems.provider(name).options().specs()) {
        assertThat(help).as(name + " option " + option.name()).contains(option.name() + "=");
      }
    }
  }

  @Test
  void theHelpListsEveryRuntimeOnTheClassPathWithItsOptions() {
    assertThat(run("--help")).isZero();
    String help = out.toString().replaceAll("\\s+", " ");
    assertThat(help).contains("Runtimes on the class path (partkit runtimes lists them too):")
        .contains("--runtime-option=KEY=VALUE");
    Runtimes runtimes = Runtimes.load();
    assertThat(runtimes.names()).contains("processes", "netns", "containers", "ssh",
        "recording");
    for (String name : runtimes.names()) {
      assertThat(help).as(name).contains(name + " " + runtimes.provider(name).description());
      for (RuntimeOption<?> option : runtimes.provider(name).options().options()) {
        assertThat(help).as(name + " option " + option.name())
            .contains("--runtime-option " + option.name() + "=");
      }
    }
  }

  @Test
  void aRuntimeFromOutsideTheHarnessRunsAVerifyAndIsRecorded(@TempDir Path store)
      throws Exception {
    Path starts = store.resolve("starts.txt");
    int code = run("--system", "kv", "--nodes", "3", "--time", "5s", "--concurrency", "4",
        "--rate", "100", "--seed", "3", "--nemesis", "kill", "--store", store.toString(),
        "--runtime", "recording", "--runtime-option", "starts=" + starts);
    assertThat(code).as(err.toString()).isZero();
    assertThat(Files.readAllLines(starts)).contains("start n1", "start n2", "start n3",
        "start control");
    assertThat(err.toString()).contains("(recording starts=" + starts + ")");
    assertThat(Files.readString(store.resolve("latest").resolve("results.edn")))
        .contains(":runtime :recording, :runtime-options {\"starts\" \"" + starts + "\"}");

    // it offers no partitions: refused before anything starts, as on processes
    assertThat(run("--system", "kv", "--nemesis", "partition", "--store", store.toString(),
        "--runtime", "recording", "--runtime-option", "starts=" + starts)).isEqualTo(64);
    assertThat(err.toString()).contains("the recording runtime cannot cut the network");
    assertThat(run("--system", "kv", "--store", store.toString(), "--runtime", "recording"))
        .isEqualTo(64);
    assertThat(err.toString()).contains("recording option starts is required");
  }

  @Test
  void aMissingEtcdBinaryIsASetupFailureSayingHowToInstallIt(@TempDir Path store) {
    int code = run("--system", "etcd", "--time", "5s", "--store", store.toString(),
        "--option", "etcd=" + store.resolve("no-etcd-here"));
    assertThat(code).as(err.toString()).isEqualTo(4);
    assertThat(err.toString()).contains("setup failed: etcd not found at ")
        .contains("apt-get install etcd-server");
  }
}
