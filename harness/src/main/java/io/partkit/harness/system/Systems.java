package io.partkit.harness.system;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The systems on the class path, by name: every {@link SystemProvider} that {@link ServiceLoader}
 * finds. A provider that fails to load is listed in {@link #loadFailures()} instead of hiding
 * the others.
 */
public final class Systems {

  private final Map<String, SystemProvider> byName;
  private final Map<String, String> ambiguous;
  private final List<String> loadFailures;

  private Systems(Map<String, SystemProvider> byName, Map<String, String> ambiguous,
      List<String> loadFailures) {
    this.byName = Collections.unmodifiableMap(byName);
    this.ambiguous = Map.copyOf(ambiguous);
    this.loadFailures = List.copyOf(loadFailures);
  }

  /** The providers the context class loader (or this class's loader) finds. */
  public static Systems load() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    ClassLoader loader = context != null ? context : Systems.class.getClassLoader();
    Map<String, SystemProvider> byName = new TreeMap<>();
    Map<String, String> ambiguous = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    Iterator<SystemProvider> it = ServiceLoader.load(SystemProvider.class, loader).iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          break;
        }
        // a broken listing, a missing class or a throwing constructor fails this one provider
        SystemProvider provider = it.next();
        SystemProvider taken = byName.putIfAbsent(provider.name(), provider);
        if (taken != null) {
          // neither wins: which one ran would depend on the order of the class path
          String why = "two systems are named '" + provider.name() + "': " + origin(taken)
              + " and " + origin(provider);
          ambiguous.merge(provider.name(), why, (a, b) -> a + "; " + b);
          failures.add(why);
        }
      } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
        failures.add(withCauses(e));
      }
    }
    return new Systems(byName, ambiguous, failures);
  }

  /**
   * The message and every cause's: "could not be instantiated" alone does not say that a class
   * the provider needs is missing from the class path.
   */
  private static String withCauses(Throwable e) {
    StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      sb.append(": ").append(c);
    }
    return sb.toString();
  }

  /** {@code com.example.Provider in /path/to/its.jar}: the class and the file it came from. */
  public static String origin(SystemProvider provider) {
    return provider.getClass().getName() + " in " + location(provider.getClass());
  }

  private static String location(Class<?> type) {
    try {
      CodeSource source = type.getProtectionDomain().getCodeSource();
      if (source == null || source.getLocation() == null) {
        return "(unknown file)";
      }
      return Path.of(source.getLocation().toURI()).toString();
    } catch (URISyntaxException | RuntimeException e) {
      return "(unknown file)";
    }
  }

  /** The names found, sorted. */
  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  /** The provider called {@code name}, if one was found. */
  public Optional<SystemProvider> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * The provider called {@code name}.
   *
   * @throws IllegalArgumentException if none is on the class path (the message lists the known
   *     ones), or two providers have that name (the message names their files)
   */
  public SystemProvider provider(String name) {
    String twice = ambiguous.get(name);
    if (twice != null) {
      throw new IllegalArgumentException(twice + "; remove one of them from the class path");
    }
    SystemProvider p = byName.get(name);
    if (p == null) {
      throw new IllegalArgumentException("unknown system '" + name + "': expected one of "
          + (byName.isEmpty() ? "(none on the class path)" : String.join(", ", byName.keySet()))
          + (loadFailures.isEmpty() ? "" : "; failed to load: " + String.join("; ", loadFailures)));
    }
    return p;
  }

  /** Providers listed in a {@code META-INF/services} file that could not be loaded, and why. */
  public List<String> loadFailures() {
    return loadFailures;
  }

  /**
   * A new, not yet started system called {@code name}.
   *
   * @throws IllegalArgumentException if the name is unknown (the message lists the known ones)
   */
  public static SystemUnderTest named(String name) {
    return load().provider(name).create();
  }
}
