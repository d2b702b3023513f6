package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A control node for {@link SshRuntimeTest} to kill with {@code kill -9}: {@code SshChildMain
 * HOSTS USER KEY KNOWN_HOSTS HOST_DIR DIR} opens the SSH runtime on nodes x and y, starts {@code
 * sleep} on each, cuts x off from y, prints {@code READY <run name> <table> <pid of x>} and waits
 * to be killed.
 */
public final class SshChildMain {

  private SshChildMain() {}

  public static void main(String[] args) throws Exception {
    SshTarget target = new SshTarget(List.of(args[0].split(",")), args[1], Path.of(args[2]), 22,
        Path.of(args[3]), false, args[4]);
    Path dir = Path.of(args[5]);
    SshRuntime rt = new SshRuntime(target, dir);
    rt.open(List.of("x", "y"));
    NodeProcess x = rt.start("x", List.of("sleep", "600"), dir.resolve("x.log"));
    rt.start("y", List.of("sleep", "600"), dir.resolve("y.log"));
    rt.partition(Map.of("x", Set.of("y")));
    System.out.println("READY " + rt.runName() + " " + rt.table() + " " + x.pid());
    System.out.flush();
    Thread.sleep(600_000);
  }
}
