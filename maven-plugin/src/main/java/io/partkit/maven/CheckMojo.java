package io.partkit.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * {@code partkit check}: checks recorded histories for linearizability. A history that is
 * invalid, unknown or not a history fails the build with partkit's verdict lines. Parameters
 * are named as the command's options ({@code partkit check --help}).
 */
@Mojo(name = "check", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true,
    requiresProject = false)
public class CheckMojo extends AbstractPartkitMojo {

  /** History files or directories (searched recursively): the command's PATH arguments. */
  @Parameter(property = "partkit.histories", required = true)
  List<File> histories;

  /** {@code --model}: register, cas-register, ..., or auto (partkit's default). */
  @Parameter(property = "partkit.model")
  String model;

  /** {@code --init}: the model's initial state as EDN. */
  @Parameter(property = "partkit.init")
  String init;

  /** {@code --strict-nil}: an ok read of nil means the register held nil. */
  @Parameter(property = "partkit.strictNil", defaultValue = "false")
  boolean strictNil;

  /** {@code --independent}: auto, yes or no. */
  @Parameter(property = "partkit.independent")
  String independent;

  /** {@code --time-limit}, per file, e.g. 30s; reaching it gives unknown. */
  @Parameter(property = "partkit.timeLimit")
  String timeLimit;

  /** {@code --html}: a self-contained picture of the history (one file only). */
  @Parameter(property = "partkit.html")
  File html;

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("partkit check skipped");
      return;
    }
    List<String> args = new ArrayList<>(List.of("check"));
    option(args, "--model", model);
    option(args, "--init", init);
    if (strictNil) {
      args.add("--strict-nil");
    }
    option(args, "--independent", independent);
    option(args, "--time-limit", timeLimit);
    option(args, "--html", html);
    for (File h : histories) {
      args.add(h.getPath());
    }
    PartkitFork.Result r = partkit(args, Map.of());
    Verdicts.checkOutcome(r);
  }
}
