package example.register;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;

/**
 * {@code partkit verify --system register}: found by the harness through
 * {@code META-INF/services/io.partkit.harness.system.SystemProvider} in this jar.
 */
public final class RegisterProvider implements SystemProvider {

  @Override
  public String name() {
    return "register";
  }

  @Override
  public String description() {
    return "the example: in-memory registers, one node process per key range";
  }

  @Override
  public int defaultNodes() {
    return 3;
  }

  @Override
  public SystemOptions options() {
    return SystemOptions.of(name(),
        SystemOptions.oneOf("durable", "true", "true", "false"));
  }

  @Override
  public SystemUnderTest create() {
    return new RegisterSystem();
  }
}
