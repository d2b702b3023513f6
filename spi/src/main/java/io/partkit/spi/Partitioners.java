package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * Finds strategies by name through {@link ServiceLoader}: the one loader every partkit module
 * and application uses.
 *
 * <p>Defensive in the way slf4j's {@code LoggerFactory} is: a provider that cannot be
 * instantiated (missing class, failing constructor, a second provider claiming a taken name) is
 * recorded in {@link #loadFailures()} and skipped, and the others still work. An unknown name
 * fails with the names that are known and, if it is one of partkit's own strategies, the
 * artifact that provides it.
 *
 * <pre>{@code
 * Partitioner fixed = Partitioners.load().create("fixed", PartitionerConfig.of("partitions", 271));
 * PartitionAssignment table = fixed.assign(MembershipView.ofEqualNodes("node-", 5));
 * NodeId owner = table.primaryOf("user-42");
 * }</pre>
 */
public final class Partitioners {

  private final Map<String, PartitionerProvider> byName;
  private final List<String> loadFailures;

  private Partitioners(Map<String, PartitionerProvider> byName, List<String> loadFailures) {
    this.byName = Collections.unmodifiableMap(byName);
    this.loadFailures = List.copyOf(loadFailures);
  }

  /** Providers visible to the thread's context class loader (or this class's loader). */
  public static Partitioners load() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return load(context != null ? context : Partitioners.class.getClassLoader());
  }

  /** Providers visible to {@code loader}. */
  public static Partitioners load(ClassLoader loader) {
    requireNonNull(loader, "loader");
    TreeMap<String, PartitionerProvider> byName = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    Iterator<PartitionerProvider> it = ServiceLoader.load(PartitionerProvider.class, loader)
        .iterator();
    while (true) {
      PartitionerProvider provider;
      try {
        if (!it.hasNext()) {
          break;
        }
        provider = it.next();
      } catch (ServiceConfigurationError | LinkageError e) {
        // One broken provider (bad listing, missing class, throwing constructor) must not hide
        // the others: record it and keep iterating.
        failures.add(describe(e));
        continue;
      }
      String name;
      try {
        name = requireNonNull(provider.name(), "name()");
      } catch (RuntimeException | LinkageError e) {
        failures.add(provider.getClass().getName() + ": name() failed: " + describe(e));
        continue;
      }
      PartitionerProvider taken = byName.putIfAbsent(name, provider);
      if (taken != null) {
        failures.add(provider.getClass().getName() + ": name '" + name + "' is already taken by "
            + taken.getClass().getName() + "; ignored");
      }
    }
    return new Partitioners(byName, failures);
  }

  private static String describe(Throwable e) {
    Throwable root = e;
    StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
      sb.append(" <- ").append(root.getClass().getSimpleName()).append(": ")
          .append(root.getMessage());
    }
    return sb.toString();
  }

  /** Known strategy names, sorted. */
  public Set<String> names() {
    return byName.keySet();
  }

  /** The provider with this name, if one loaded. */
  public Optional<PartitionerProvider> provider(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** One message per provider that could not be loaded; empty when all loaded. */
  public List<String> loadFailures() {
    return loadFailures;
  }

  /**
   * Creates the named strategy.
   *
   * @throws UnknownStrategyException if no provider has that name (the message lists the known
   *     names and any load failures)
   * @throws InvalidConfigurationException if the provider rejects the configuration
   */
  public Partitioner create(String name, PartitionerConfig config) {
    requireNonNull(name, "name");
    requireNonNull(config, "config");
    PartitionerProvider provider = byName.get(name);
    if (provider == null) {
      throw new UnknownStrategyException(name, names(), loadFailures);
    }
    return provider.create(config);
  }

  /** Creates the named strategy with its defaults. */
  public Partitioner create(String name) {
    return create(name, PartitionerConfig.empty());
  }
}
