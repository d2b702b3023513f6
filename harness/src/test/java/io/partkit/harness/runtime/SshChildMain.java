package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A control node for {@link SshRuntimeTest} to kill with {@code kill -9}: {@code SshChildMain
 * RUNTIME DIR} opens the SSH runtime on nodes x and y, starts {@code sleep} on each, cuts x off
 * from y, prints {@code READY <run name> <table> <pid of x>} and waits to be killed.
 */
public final class SshChildMain {

  private SshChildMain() {}

  public static void main(String[] args) throws Exception {
    SshRuntime rt = (SshRuntime) Runtimes.named(args[0], Path.of(args[1]));
    rt.open(List.of("x", "y"));
    NodeProcess x = rt.start("x", List.of("sleep", "600"), Path.of(args[1], "x.log"));
    rt.start("y", List.of("sleep", "600"), Path.of(args[1], "y.log"));
    rt.partition(Map.of("x", Set.of("y")));
    System.out.println("READY " + rt.runName() + " " + rt.table() + " " + x.pid());
    System.out.flush();
    Thread.sleep(600_000);
  }
}
