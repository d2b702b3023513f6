package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtimes are providers found on the class path, and their options reach the runtime typed:
 * a typed value as it was given, a command-line text parsed once, each checked before anything
 * starts.
 */
class RuntimeProvidersTest {

  @TempDir
  Path tmp;

  @Test
  void theFourBuiltInRuntimesAreFoundInTheirOrderWithTheirCapabilities() {
    Runtimes runtimes = Runtimes.load();
    assertThat(runtimes.loadFailures()).isEmpty();
    assertThat(runtimes.names()).startsWith("processes", "netns", "containers", "ssh");
    assertThat(runtimes.provider("processes").capabilities()).isEmpty();
    for (String cutting : List.of("netns", "containers", "ssh")) {
      assertThat(runtimes.provider(cutting).capabilities()).as(cutting)
          .containsExactly("partitions");
    }
    assertThatThrownBy(() -> runtimes.provider("vm"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown runtime 'vm': expected one of processes, netns, "
            + "containers, ssh");
  }

  @Test
  void theProcessesRuntimeOffersNoPartitions() {
    try (NodeRuntime rt = Runtimes.load().create(RuntimeSpec.processes(), tmp)) {
      assertThat(rt.name()).isEqualTo("processes");
      assertThat(rt).isNotInstanceOf(RuntimeCapability.Partitions.class);
    }
  }

  @Test
  void typedSshOptionsReachTheTargetAsGivenWithDefaultsForTheRest() {
    RuntimeSpec spec = RuntimeSpec.named("ssh").with(SshProvider.HOSTS, List.of("h1", "h2"))
        .with(SshProvider.PORT, 2222).with(SshProvider.KEY, Path.of("/keys/id"));
    SshTarget t = SshProvider.target(Runtimes.load().check(spec));
    assertThat(t.hosts()).containsExactly("h1", "h2");
    assertThat(t.port()).isEqualTo(2222);
    assertThat(t.key()).isEqualTo(Path.of("/keys/id"));
    assertThat(t.user()).isEqualTo(System.getProperty("user.name"));
    assertThat(t.dir()).isEqualTo(SshProvider.DEFAULT_DIR);
    assertThat(t.acceptNewHostKeys()).isFalse();
    assertThat(spec).hasToString("ssh hosts=h1,h2 port=2222 key=/keys/id");
  }

  @Test
  void commandLineTextsAreParsedOnceIntoTheSameTypes() {
    RuntimeSpec spec = RuntimeSpec.named("ssh").withText("hosts", "a, b,c")
        .withText("accept-new-host-keys", "true").withText("port", "23");
    SshTarget t = SshProvider.target(Runtimes.load().check(spec));
    assertThat(t.hosts()).containsExactly("a", "b", "c");
    assertThat(t.acceptNewHostKeys()).isTrue();
    assertThat(t.port()).isEqualTo(23);
  }

  @Test
  void badOptionsAreRefusedNamingEachProblemAndListingTheOptions() {
    Runtimes runtimes = Runtimes.load();
    assertThatThrownBy(() -> runtimes.check(RuntimeSpec.named("ssh").withText("port", "x")
        .withText("hots", "h1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ssh option port=x: not an integer (expected an integer from 1 to "
            + "65535)")
        .hasMessageContaining("unknown ssh option 'hots'")
        .hasMessageContaining("ssh option hosts is required")
        .hasMessageContaining("ssh options: hosts (");
    assertThatThrownBy(() -> runtimes.check(RuntimeSpec.named("ssh")
        .with(SshProvider.HOSTS, List.of("h1", "h1"))))
        .hasMessageContaining("ssh option hosts=h1,h1: host h1 is listed twice");
    assertThatThrownBy(() -> runtimes.check(RuntimeSpec.named("containers")
        .withText("image", "two words")))
        .hasMessageContaining("containers option image=two words: has blanks");
    assertThatThrownBy(() -> runtimes.check(RuntimeSpec.processes().withText("image", "x")))
        .hasMessageContaining("unknown processes option 'image'")
        .hasMessageContaining("processes takes no options");
    assertThatThrownBy(() -> RuntimeSpec.named("ssh").with(SshProvider.PORT, 1)
        .withText("port", "2"))
        .hasMessage("ssh option port is given twice: 1 and 2");
  }

  @Test
  void theContainersImageIsAnOptionWithPartkitsImageAsItsDefault() {
    RuntimeValues values = Runtimes.load().check(RuntimeSpec.named("containers"));
    assertThat(values.get(ContainersProvider.IMAGE)).isEqualTo(ContainerRuntime.DEFAULT_IMAGE);
    assertThat(values.isGiven(ContainersProvider.IMAGE)).isFalse();
    assertThatThrownBy(() -> values.get(SshProvider.PORT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("containers has no option 'port'");
  }
}
