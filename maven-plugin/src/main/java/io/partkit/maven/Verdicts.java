package io.partkit.maven;

import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;

/** partkit's exit codes as a build's outcome: failures carry the verdict line, as failsafe's. */
final class Verdicts {

  /** partkit's usage error (sysexits' EX_USAGE): a misconfigured goal, not a verdict. */
  static final int USAGE = 64;

  private Verdicts() {}

  /** {@code partkit check}'s outcome: 0 passes; 1 invalid, 2 unknown, 3 bad input fail. */
  static void checkOutcome(PartkitFork.Result r)
      throws MojoExecutionException, MojoFailureException {
    switch (r.code()) {
      case 0:
        return;
      case 1:
      case 2:
      case 3:
        throw new MojoFailureException("partkit check: " + verdictLines(r.out()));
      default:
        throw misconfigured("check", r);
    }
  }

  /**
   * {@code partkit verify}'s outcome: 0 passes; 1 invalid or lost writes, 2 unknown and 4 a
   * cluster that could not be set up fail the build with the verdict line (which ends with the
   * run's directory in the store) or the set-up error and the store.
   */
  static void verifyOutcome(PartkitFork.Result r, String store)
      throws MojoExecutionException, MojoFailureException {
    switch (r.code()) {
      case 0:
        return;
      case 1:
      case 2:
        throw new MojoFailureException("partkit verify: " + last(r.out())
            + "\nThe run is stored there: history.edn, results.edn, the nodes' logs, index.html.");
      case 4:
        throw new MojoFailureException("partkit verify: " + setupLine(r.err())
            + "\nstore: " + store);
      default:
        throw misconfigured("verify", r);
    }
  }

  private static MojoExecutionException misconfigured(String command, PartkitFork.Result r) {
    List<String> lines = new ArrayList<>(r.err());
    return new MojoExecutionException("partkit " + command + " exited " + r.code()
        + (r.code() == USAGE ? " (a usage error: check the goal's parameters)" : "") + ": "
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
  }

  /** Check's lines that carry a verdict: every line, as printed, the first 40. */
  private static String verdictLines(List<String> out) {
    return String.join("\n", out.subList(0, Math.min(out.size(), 40)));
  }

  private static String last(List<String> lines) {
    return lines.isEmpty() ? "(no verdict printed)" : lines.get(lines.size() - 1);
  }

  private static String setupLine(List<String> err) {
    for (String line : err) {
      if (line.contains("setup failed")) {
        return line.replaceFirst("^partkit verify: ", "");
      }
    }
    return "the cluster could not be set up: " + last(err);
  }
}
