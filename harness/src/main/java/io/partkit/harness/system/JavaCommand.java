package io.partkit.harness.system;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Properties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM running a main class of this class path. */
public final class JavaCommand {

  private JavaCommand() {}

  /**
   * {@code java -Xmx<heap> ... -cp <this JVM's class path> mainClass args}. Small heaps and the
   * serial collector with C1 only: a run puts several JVMs on two cores.
   */
  public static List<String> of(String heap, Class<?> mainClass, List<String> args) {
    return of(heap, List.of(), mainClass, args);
  }

  /**
   * The same with extra JVM flags before the class path (e.g. the {@code --add-opens} a product
   * asks for on Java 17).
   */
  public static List<String> of(String heap, List<String> jvmFlags, Class<?> mainClass,
      List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"));
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-cp", classPath(mainClass), mainClass.getName()));
    cmd.addAll(args);
    return cmd;
  }

  /**
   * The class path a node running {@code mainClass} needs: for a class of a user's system jar
   * ({@link SystemJars}), the user's jars first, then partkit's, as that loader sees them.
   */
  public static String classPath(Class<?> mainClass) {
    return mainClass.getClassLoader() instanceof SystemJars jars
        ? jars.classPath() + File.pathSeparator + classPath() : classPath();
  }

  /** Surefire hides the test class path in a property; elsewhere it is the JVM's own. */
  public static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /**
   * The JVM flags a product asks for on Java 17 ({@code ignite} or {@code hazelcast}): the root
   * pom's {@code <product>.jvm.opens}, filtered into {@code jvm-flags.properties} when the harness
   * is built.
   *
   * @throws IllegalStateException when the resource is missing or was not filtered (classes built
   *     outside Maven): a node without them fails in ways far harder to read
   */
  public static List<String> productFlags(String product) {
    Properties p = new Properties();
    try (InputStream in = JavaCommand.class.getResourceAsStream("jvm-flags.properties")) {
      if (in == null) {
        throw new IllegalStateException(
            "jvm-flags.properties is missing: build harness with Maven");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String flags = p.getProperty(product, "").trim();
    if (flags.isEmpty() || flags.contains("${")) {
      throw new IllegalStateException("jvm-flags.properties has no flags for " + product
          + " (not filtered): build harness with Maven");
    }
    return new ArrayList<>(Arrays.asList(flags.split("\\s+")));
  }
}
