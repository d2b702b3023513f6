package io.partkit.cli;

import io.partkit.harness.system.SystemJars;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --system-jar JAR} (repeatable) and {@code PARTKIT_CLASSPATH}: a user's systems and
 * their dependencies, loaded by {@link SystemJars} in a class loader of their own, user first.
 * Shared by {@code verify} and {@code systems}, so that a jar can be checked before a long run.
 */
final class SystemJarOptions {

  /** The environment variable: the user's dependencies (jars or class directories). */
  static final String CLASSPATH_VARIABLE = "PARTKIT_CLASSPATH";

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--system-jar", paramLabel = "JAR",
      description = "A jar (or class directory) of a system of your own, listing its "
          + "SystemProvider in META-INF/services; repeatable. It and the entries of "
          + "PARTKIT_CLASSPATH (its dependencies) load in a class loader of their own, looked "
          + "in before partkit's jars (partkit's own classes excepted).")
  List<Path> systemJars = new ArrayList<>();

  /** Runs {@code body} with the user's jars as the thread's context class loader, if any. */
  <T> T run(Supplier<T> body) {
    List<Path> classPath = SystemJars.parsePath(System.getenv(CLASSPATH_VARIABLE));
    if (systemJars.isEmpty() && classPath.isEmpty()) {
      return body.get();
    }
    SystemJars jars;
    try {
      jars = SystemJars.open(systemJars, classPath);
    } catch (IllegalArgumentException e) {
      // before anything starts, and the caller's to fix: a usage error naming the file
      throw new ParameterException(spec.commandLine(),
          e.getMessage().startsWith("class-path entry") ? CLASSPATH_VARIABLE + ": "
              + e.getMessage() : e.getMessage(), e);
    }
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    thread.setContextClassLoader(jars);
    try {
      return body.get();
    } finally {
      thread.setContextClassLoader(before);
      // left open: a class of the user's may still be loaded lazily by a thread that outlives
      // the command (a JVM's exit ends them); closing would make that fail obscurely
    }
  }
}
