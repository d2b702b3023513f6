package io.partkit.harness.testkit.minimal;

import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code partkit verify --system memory}: one register per key, in partkit's own JVM. The
 * smallest provider that runs; its jar lists it in
 * META-INF/services/io.partkit.harness.system.SystemProvider.
 */
public final class MemoryProvider implements SystemProvider {

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public String description() {
    return "registers in partkit's JVM: the smallest system that runs";
  }

  @Override
  public int defaultNodes() {
    return 1;
  }

  @Override
  public SystemUnderTest create() {
    Map<Long, Long> registers = new ConcurrentHashMap<>();
    return new SystemUnderTest() {
      @Override
      public String name() {
        return "memory";
      }

      @Override
      public void start(SystemContext context) {
        // nothing to start: a real system starts its nodes on context.runtime() here
      }

      @Override
      public List<String> nodes() {
        return List.of("m1");
      }

      @Override
      public Client openClient() {
        return new Client() {
          @Override
          public Outcome invoke(Operation op) {
            switch (op.f()) {
              case Operation.READ:
                return Outcome.ok(registers.get(op.key()));
              case Operation.WRITE:
                registers.put(op.key(), (Long) op.value());
                return Outcome.ok(op.value());
              default: // cas: ok when the register held the expected value (null: unset)
                boolean set = op.casExpected() == null
                    ? registers.putIfAbsent(op.key(), op.casNew()) == null
                    : registers.replace(op.key(), op.casExpected(), op.casNew());
                return set ? Outcome.ok(op.value())
                    : Outcome.mismatch(op.value(), "held another value");
            }
          }

          @Override
          public void close() {}
        };
      }

      @Override
      public void close() {}
    };
  }
}
