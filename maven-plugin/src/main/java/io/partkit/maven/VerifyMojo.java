package io.partkit.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * {@code partkit verify}: runs a system under faults, checks the history and stores the run.
 * The system's provider comes from the project: its classes ({@code systemJars}, by default the
 * project's output directory) and its runtime dependencies, which partkit loads in a class loader
 * of their own, looked in before partkit's jars. A run that is invalid, loses acknowledged
 * writes, ends unknown or cannot set the cluster up fails the build with the verdict line and the
 * store's path. Parameters are named as the command's options ({@code partkit verify --help}).
 */
@Mojo(name = "verify", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true,
    requiresDependencyResolution = ResolutionScope.RUNTIME)
public class VerifyMojo extends AbstractPartkitMojo {

  /** {@code --system}: the name of the system to run. */
  @Parameter(property = "partkit.system", required = true)
  String system;

  /**
   * {@code --system-jar}: jars or class directories listing the system's provider; by default
   * the project's output directory.
   */
  @Parameter(property = "partkit.systemJars")
  List<File> systemJars = new ArrayList<>();

  /** {@code --nodes}. */
  @Parameter(property = "partkit.nodes")
  Integer nodes;

  /** {@code --nemesis}: faults, comma-separated (kill, pause, partition, ...). */
  @Parameter(property = "partkit.nemesis")
  String nemesis;

  /** {@code --time}: how long clients run with faults, e.g. 30s. */
  @Parameter(property = "partkit.time")
  String time;

  /** {@code --concurrency}. */
  @Parameter(property = "partkit.concurrency")
  Integer concurrency;

  /** {@code --rate}: operations per second over all workers. */
  @Parameter(property = "partkit.rate")
  Double rate;

  /** {@code --seed}. */
  @Parameter(property = "partkit.seed")
  Long seed;

  /** {@code --store}: where runs are stored; in the build directory by default. */
  @Parameter(property = "partkit.store", defaultValue = "${project.build.directory}/partkit-store")
  File store;

  /** {@code --runtime}: processes, netns, containers, containers:IMAGE or ssh. */
  @Parameter(property = "partkit.runtime")
  String runtime;

  /** {@code --hosts}, comma-separated, with runtime ssh. */
  @Parameter(property = "partkit.hosts")
  String hosts;

  /** {@code --ssh-user}. */
  @Parameter(property = "partkit.sshUser")
  String sshUser;

  /** {@code --ssh-key}. */
  @Parameter(property = "partkit.sshKey")
  File sshKey;

  /** {@code --ssh-port}. */
  @Parameter(property = "partkit.sshPort")
  Integer sshPort;

  /** {@code --ssh-known-hosts}. */
  @Parameter(property = "partkit.sshKnownHosts")
  File sshKnownHosts;

  /** {@code --ssh-accept-new-host-keys}. */
  @Parameter(property = "partkit.sshAcceptNewHostKeys", defaultValue = "false")
  boolean sshAcceptNewHostKeys;

  /** {@code --ssh-dir}. */
  @Parameter(property = "partkit.sshDir")
  String sshDir;

  /** {@code --ops-per-key}. */
  @Parameter(property = "partkit.opsPerKey")
  Integer opsPerKey;

  /** {@code --check-time-limit}, e.g. 120s. */
  @Parameter(property = "partkit.checkTimeLimit")
  String checkTimeLimit;

  /** {@code --option KEY=VALUE}, one entry each: {@code <options><durable>false</durable>}. */
  @Parameter
  Map<String, String> options = new LinkedHashMap<>();

  /** The project's output directory: its classes, the default system jar. */
  @Parameter(defaultValue = "${project.build.outputDirectory}", readonly = true)
  File outputDirectory;

  /** The project's runtime class path, its own classes first. */
  @Parameter(defaultValue = "${project.runtimeClasspathElements}", readonly = true)
  List<String> runtimeClasspath;

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("partkit verify skipped");
      return;
    }
    List<File> jars = systemJars.isEmpty() ? List.of(outputDirectory) : systemJars;
    List<String> args = new ArrayList<>(List.of("verify", "--system", system));
    for (File jar : jars) {
      args.add("--system-jar");
      args.add(jar.getPath());
    }
    option(args, "--nodes", nodes);
    option(args, "--nemesis", nemesis);
    option(args, "--time", time);
    option(args, "--concurrency", concurrency);
    option(args, "--rate", rate);
    option(args, "--seed", seed);
    option(args, "--store", store);
    option(args, "--runtime", runtime);
    option(args, "--hosts", hosts);
    option(args, "--ssh-user", sshUser);
    option(args, "--ssh-key", sshKey);
    option(args, "--ssh-port", sshPort);
    option(args, "--ssh-known-hosts", sshKnownHosts);
    if (sshAcceptNewHostKeys) {
      args.add("--ssh-accept-new-host-keys");
    }
    option(args, "--ssh-dir", sshDir);
    option(args, "--ops-per-key", opsPerKey);
    option(args, "--check-time-limit", checkTimeLimit);
    options.forEach((k, v) -> {
      args.add("--option");
      args.add(k + "=" + (v == null ? "" : v));
    });
    // the dependencies: every entry of the project's class path but the system jars themselves
    List<String> dependencies = new ArrayList<>();
    for (String entry : runtimeClasspath == null ? List.<String>of() : runtimeClasspath) {
      if (jars.stream().noneMatch(j -> j.getAbsoluteFile().equals(new File(entry)
          .getAbsoluteFile()))) {
        dependencies.add(entry);
      }
    }
    PartkitFork.Result r = partkit(args,
        Map.of("PARTKIT_CLASSPATH", String.join(File.pathSeparator, dependencies)));
    Verdicts.verifyOutcome(r, store.getPath());
  }
}
