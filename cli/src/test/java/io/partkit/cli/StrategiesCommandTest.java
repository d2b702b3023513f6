package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Partitioners;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.StrategyOption;
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

class StrategiesCommandTest {

  private static final String SERVICES = "META-INF/services/io.partkit.spi.PartitionerProvider";

  @Test
  void listsTheFourStrategiesByName() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.commandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err)).execute("strategies");
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString().lines().filter(l -> !l.startsWith(" "))
        .map(l -> l.split("\\s+")[0]))
        .containsExactly("fixed", "range", "rendezvous", "tokenring");
  }

  @Test
  void eachStrategyListsItsOptionsWithTheirDefaults() {
    StringWriter out = new StringWriter();
    int code = Main.commandLine(new PartkitCommand()).setOut(new PrintWriter(out))
        .execute("strategies");
    assertThat(code).isZero();
    String text = out.toString();
    String fixed = text.substring(text.indexOf("fixed "), text.indexOf("rendezvous "));
    assertThat(fixed).containsPattern("\\n    partitions +default 271 ")
        .containsPattern("\\n    replicas +default 1 ")
        .containsPattern("\\n    zone-aware +default true ");
    String rendezvous = text.substring(text.indexOf("rendezvous "), text.indexOf("tokenring "));
    assertThat(rendezvous).containsPattern("\\n    partitions +default 1024 ")
        .containsPattern("\\n    load-bound +default none ")
        .containsPattern("\\n    seed +default 0 ");
    String ring = text.substring(text.indexOf("tokenring "));
    assertThat(ring).containsPattern("\\n    vnodes +default 16 ")
        .containsPattern("\\n    tokens +default allocator ");
  }

  /**
   * Every option a provider describes is one its strategy accepts, and the described default is
   * the value it takes: creating the strategy with every described default given explicitly
   * succeeds (an option described but not read would be rejected as unknown).
   */
  @Test
  void describedOptionsAreTheOnesTheStrategiesAccept() {
    Partitioners loaded = Partitioners.load();
    for (String name : loaded.names()) {
      PartitionerProvider provider = loaded.provider(name).orElseThrow();
      assertThat(provider.options()).as(name).isNotEmpty();
      PartitionerConfig config = PartitionerConfig.empty();
      for (StrategyOption o : provider.options()) {
        if (!o.defaultValue().equals("none")) {
          config = config.with(o.name(), o.defaultValue());
        }
      }
      assertThat(provider.create(config)).as(name).isNotNull();
    }
  }

  /**
   * Discovery on a plain class path of nothing but the spi jar and the four strategy jars (no
   * module path, no test classes, no other partkit code): all four are found by name (range
   * among them, which reaches fixed through the same discovery), and an unknown name fails
   * listing them.
   */
  @Test
  void aPlainClassPathOfTheStrategyJarsFindsAllFour() throws Exception {
    List<URL> jars = new ArrayList<>();
    for (URL listing : Collections.list(getClass().getClassLoader().getResources(SERVICES))) {
      String s = listing.toString();
      if (s.contains("strategy-")) {
        jars.add(new URL(s.substring(0, s.length() - SERVICES.length())
            .replaceFirst("^jar:", "").replaceFirst("!/$", "")));
      }
    }
    jars.add(Partitioners.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(jars).as("spi and four strategy modules on the test class path").hasSize(5);

    try (URLClassLoader plain = new URLClassLoader(jars.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      Class<?> loader = plain.loadClass(Partitioners.class.getName());
      assertThat(loader).isNotSameAs(Partitioners.class); // really the isolated copy
      Object loaded = loader.getMethod("load", ClassLoader.class).invoke(null, plain);
      Set<?> names = (Set<?>) loader.getMethod("names").invoke(loaded);
      assertThat(names.stream().map(Object::toString).toList())
          .containsExactly("fixed", "range", "rendezvous", "tokenring");
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
          + "known strategies: [fixed, range, rendezvous, tokenring]");
    }
  }
}
