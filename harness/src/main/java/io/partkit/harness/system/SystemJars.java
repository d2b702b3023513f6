package io.partkit.harness.system;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * A user's own systems and their dependencies, in a class loader of their own: what
 * {@code partkit verify --system-jar JAR} and {@code PARTKIT_CLASSPATH} load.
 *
 * <p>The loader looks in the user's jars first, before partkit's class path, for resources and
 * for every class except partkit's own ({@code io.partkit.*}) and the JDK's. So a provider that
 * depends on a library partkit also ships (Netty, gRPC, Hazelcast, Ignite, ...) runs with the
 * version it was built against, while partkit's own systems keep theirs, and the SPI's types are
 * the ones the harness knows (a user's copy of partkit's jars is not used). A node started with
 * {@link JavaCommand} for a main class loaded here gets the user's entries first on its class
 * path, for the same reason.
 *
 * <p>Every jar given as a system jar must list a {@link SystemProvider} in
 * {@code META-INF/services/io.partkit.harness.system.SystemProvider}, and no provider class may
 * be listed by two of them: either is refused, naming the file, before anything starts.
 * Class-path entries (dependencies) need list nothing.
 */
public final class SystemJars extends URLClassLoader {

  /** Where a jar lists its providers. */
  public static final String SERVICE_FILE =
      "META-INF/services/" + SystemProvider.class.getName();

  static {
    ClassLoader.registerAsParallelCapable();
  }

  private final List<Path> entries;

  private SystemJars(List<Path> entries, ClassLoader parent) {
    super("partkit-system-jars", urls(entries), parent);
    this.entries = List.copyOf(entries);
  }

  /**
   * A loader over {@code systemJars} (each must list a provider) and then {@code classPath}
   * (their dependencies), whose parent is partkit's own loader.
   *
   * @throws IllegalArgumentException naming the file, when one does not exist, cannot be read,
   *     lists no provider, or lists a provider another system jar lists too
   */
  public static SystemJars open(List<Path> systemJars, List<Path> classPath) {
    Map<String, Path> listedBy = new LinkedHashMap<>();
    List<Path> entries = new ArrayList<>();
    for (Path jar : systemJars) {
      Path file = jar.toAbsolutePath().normalize();
      List<String> providers = providers(file);
      if (providers.isEmpty()) {
        throw new IllegalArgumentException("--system-jar " + file + " lists no system: it has no "
            + SERVICE_FILE + " naming a class (a system's jar lists its SystemProvider there)");
      }
      for (String provider : providers) {
        Path other = listedBy.putIfAbsent(provider, file);
        if (other != null && !other.equals(file)) {
          throw new IllegalArgumentException("--system-jar " + file + " lists the provider "
              + provider + ", which " + other + " lists too: give one of them");
        }
      }
      entries.add(file);
    }
    for (Path entry : classPath) {
      Path file = entry.toAbsolutePath().normalize();
      if (!Files.exists(file)) {
        throw new IllegalArgumentException("class-path entry " + file + " does not exist");
      }
      entries.add(file);
    }
    ClassLoader parent = SystemJars.class.getClassLoader();
    return new SystemJars(entries, parent);
  }

  /** The entries of a {@code PARTKIT_CLASSPATH}-style path (empty parts left out). */
  public static List<Path> parsePath(String path) {
    List<Path> entries = new ArrayList<>();
    if (path != null) {
      for (String part : path.split(File.pathSeparator)) {
        if (!part.isBlank()) {
          entries.add(Path.of(part.trim()));
        }
      }
    }
    return entries;
  }

  /**
   * The provider class names {@code file} (a jar or a class directory) lists.
   *
   * @throws IllegalArgumentException when it does not exist or cannot be read
   */
  static List<String> providers(Path file) {
    if (!Files.exists(file)) {
      throw new IllegalArgumentException("--system-jar " + file + " does not exist");
    }
    try {
      String text;
      if (Files.isDirectory(file)) {
        Path listing = file.resolve(SERVICE_FILE);
        text = Files.isRegularFile(listing) ? Files.readString(listing) : "";
      } else {
        try (JarFile jar = new JarFile(file.toFile())) {
          ZipEntry listing = jar.getEntry(SERVICE_FILE);
          text = listing == null ? ""
              : new String(jar.getInputStream(listing).readAllBytes(), StandardCharsets.UTF_8);
        }
      }
      List<String> names = new ArrayList<>();
      for (String line : text.split("\n")) {
        int hash = line.indexOf('#');
        String name = (hash >= 0 ? line.substring(0, hash) : line).trim();
        if (!name.isEmpty()) {
          names.add(name);
        }
      }
      return names;
    } catch (IOException e) {
      throw new IllegalArgumentException("--system-jar " + file + " cannot be read as a jar: "
          + e.getMessage(), e);
    }
  }

  /** The jars and directories this loader reads, system jars first. */
  public List<Path> entries() {
    return entries;
  }

  /** {@link #entries()} as a class path. */
  public String classPath() {
    return String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());
  }

  /** partkit's classes and the JDK's always come from the parent: the SPI must be one type. */
  private static boolean parentFirst(String name) {
    return name.startsWith("io.partkit.") || name.startsWith("java.")
        || name.startsWith("javax.") || name.startsWith("jdk.") || name.startsWith("sun.")
        || name.startsWith("com.sun.");
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null && parentFirst(name)) {
        try {
          c = getParent().loadClass(name);
        } catch (ClassNotFoundException e) {
          // not partkit's: one of the user's own, in an io.partkit package
        }
      }
      if (c == null) {
        try {
          c = findClass(name);
        } catch (ClassNotFoundException e) {
          c = getParent().loadClass(name);
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  @Override
  public URL getResource(String name) {
    URL own = findResource(name);
    return own != null ? own : getParent().getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
    all.addAll(Collections.list(getParent().getResources(name)));
    return Collections.enumeration(all);
  }

  private static URL[] urls(List<Path> entries) {
    URL[] urls = new URL[entries.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = entries.get(i).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new UncheckedIOException(e);
      }
    }
    return urls;
  }
}
