package io.partkit.maven;

import io.partkit.harness.system.JavaCommand;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.maven.plugin.MojoExecutionException;

/**
 * {@code java ... io.partkit.cli.Main ARGS} in a JVM of its own, on the plugin's class path, with
 * the flags Ignite and Hazelcast need on Java 17 (as the launchers pass them). Forked rather than
 * run inside Maven: the nodes of a run are child JVMs started with the class path of the JVM
 * that runs partkit, which inside Maven would be Maven's own.
 */
final class PartkitFork {

  /** What the command ended with, and what it printed on standard output. */
  record Result(int code, List<String> out, List<String> err) {}

  private PartkitFork() {}

  /**
   * Runs partkit with {@code args}, each line of its output passed to {@code log} as it comes;
   * {@code env} is added to this JVM's environment.
   */
  static Result run(List<File> classPath, List<String> jvmArgs, List<String> args,
      Map<String, String> env, Consumer<String> log) throws MojoExecutionException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(JavaCommand.productFlags("ignite"));
    command.addAll(JavaCommand.productFlags("hazelcast"));
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classPath.stream().map(File::toString).toList()));
    command.add("io.partkit.cli.Main");
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      List<String> out = Collections.synchronizedList(new ArrayList<>());
      List<String> err = Collections.synchronizedList(new ArrayList<>());
      Thread errors = pump(process.getErrorStream(), err, log);
      pump(process.getInputStream(), out, log).join();
      errors.join();
      return new Result(process.waitFor(), List.copyOf(out), List.copyOf(err));
    } catch (IOException e) {
      throw new MojoExecutionException("cannot start partkit: " + command.get(0) + ": "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MojoExecutionException("interrupted while partkit ran", e);
    }
  }

  private static Thread pump(InputStream stream, List<String> into, Consumer<String> log) {
    Thread t = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          into.add(line);
          log.accept(line);
        }
      } catch (IOException e) {
        log.accept("(partkit's output could not be read: " + e.getMessage() + ")");
      }
    }, "partkit-output");
    t.start();
    return t;
  }
}
