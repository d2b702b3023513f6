package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Partitioners;
import io.partkit.spi.PartitionerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class StrategiesCommandTest {

  private static final String SERVICES = "META-INF/services/io.partkit.spi.PartitionerProvider";

  @Test
  void listsTheThreeStrategiesByName() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute("strategies");
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString().lines().map(l -> l.split("\\s+")[0]))
        .containsExactly("fixed", "rendezvous", "tokenring");
  }

  /**
   * Discovery on a plain class path of nothing but the spi jar and the three strategy jars (no
   * module path, no test classes, no other partkit code): all three are found by name, and an
   * unknown name fails listing them.
   */
  @Test
  void aPlainClassPathOfTheStrategyJarsFindsAllThree() throws Exception {
    List<URL> jars = new ArrayList<>();
    for (URL listing : Collections.list(getClass().getClassLoader().getResources(SERVICES))) {
      String s = listing.toString();
      if (s.contains("strategy-")) {
        jars.add(new URL(s.substring(0, s.length() - SERVICES.length())
            .replaceFirst("^jar:", "").replaceFirst("!/$", "")));
      }
    }
    jars.add(Partitioners.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(jars).as("spi and three strategy modules on the test class path").hasSize(4);

    try (URLClassLoader plain = new URLClassLoader(jars.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      Class<?> loader = plain.loadClass(Partitioners.class.getName());
      assertThat(loader).isNotSameAs(Partitioners.class); // really the isolated copy
      Object loaded = loader.getMethod("load", ClassLoader.class).invoke(null, plain);
      Set<?> names = (Set<?>) loader.getMethod("names").invoke(loaded);
      assertThat(names.stream().map(Object::toString).toList())
          .containsExactly("fixed", "rendezvous", "tokenring");
      assertThat((List<?>) loader.getMethod("loadFailures").invoke(loaded)).isEmpty();

      Class<?> config = plain.loadClass(PartitionerConfig.class.getName());
      Object empty = config.getMethod("empty").invoke(null);
      Method create = loader.getMethod("create", String.class, config);
      Throwable thrown = null;
      try {
        create.invoke(loaded, "consistent", empty);
      } catch (InvocationTargetException e) {
        thrown = e.getCause();
      }
      assertThat(thrown).isNotNull();
      assertThat(thrown.getClass().getSimpleName()).isEqualTo("UnknownStrategyException");
      assertThat(thrown.getMessage()).isEqualTo("unknown partitioning strategy 'consistent'; "
          + "known strategies: [fixed, rendezvous, tokenring]");
    }
  }
}
