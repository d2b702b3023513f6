package io.partkit.harness.system;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM running a main class of this class path. */
final class JavaCommand {

  private JavaCommand() {}

  /**
   * {@code java -Xmx<heap> ... -cp <this JVM's class path> mainClass args}. Small heaps and the
   * serial collector with C1 only: a run puts several JVMs on two cores.
   */
  static List<String> of(String heap, Class<?> mainClass, List<String> args) {
    return of(heap, List.of(), mainClass, args);
  }

  /**
   * The same with extra JVM flags before the class path (e.g. the {@code --add-opens} a product
   * asks for on Java 17).
   */
  static List<String> of(String heap, List<String> jvmFlags, Class<?> mainClass,
      List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"));
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-cp", classPath(), mainClass.getName()));
    cmd.addAll(args);
    return cmd;
  }

  /** Surefire hides the test class path in a property; elsewhere it is the JVM's own. */
  static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }
}
