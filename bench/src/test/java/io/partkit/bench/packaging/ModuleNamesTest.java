package io.partkit.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every module has a stable module name, {@code io.partkit.} and its directory with dots: the
 * {@code partkit.module.name} property the root pom writes to {@code Automatic-Module-Name}, and,
 * where there is a {@code module-info.java}, the name it declares.
 */
class ModuleNamesTest {

  private static final Pattern DECLARED = Pattern.compile("(?m)^\\s*module\\s+([\\w.]+)\\s*\\{");

  @Test
  void everyModuleIsNamedAfterItsDirectory() throws IOException {
    int modular = 0;
    for (String module : Reactor.modules()) {
      if (module.equals("bom")) {
        continue;
      }
      Path dir = Reactor.root().resolve(module);
      String expected = "io.partkit." + module.replace('-', '.');
      assertThat(Reactor.text(Reactor.pom(dir.resolve("pom.xml")),
          "/project/properties/partkit.module.name")).as(module).isEqualTo(expected);
      Path info = dir.resolve("src/main/java/module-info.java");
      if (Files.exists(info)) {
        Matcher m = DECLARED.matcher(Files.readString(info));
        assertThat(m.find()).as(info.toString()).isTrue();
        assertThat(m.group(1)).as(info.toString()).isEqualTo(expected);
        modular++;
      }
    }
    assertThat(modular).as("at least spi and the three strategies").isGreaterThanOrEqualTo(4);
  }
}
