package io.partkit.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link LookupBenchmark} once (every subject and the bare hash in the same run) and prints
 * the lookup / bare Murmur3 ratio per subject as a Markdown table; with a folder argument it also
 * writes {@code jmh-lookups.csv} there.
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.partkit.bench.LookupRatios \
 *     [nodes (default 1000)] [out-dir] [subject,subject,...]
 * </pre>
 */
public final class LookupRatios {

  private LookupRatios() {}

  /** The JVM flags forked benchmark JVMs need (Ignite's opens), from the build. */
  static String[] forkFlags() throws IOException {
    java.util.Properties p = new java.util.Properties();
    try (var in = LookupRatios.class.getResourceAsStream("jvm.properties")) {
      if (in == null) {
        throw new IllegalStateException(
            "jvm.properties missing: build with ./mvnw -pl bench -am package");
      }
      p.load(in);
    }
    String flags = p.getProperty("ignite.jvm.opens", "").trim();
    return flags.isEmpty() ? new String[0] : flags.split("\\s+");
  }

  public static void main(String[] args) throws RunnerException, IOException {
    String nodes = args.length > 0 ? args[0] : "1000";
    OptionsBuilder builder = new OptionsBuilder();
    builder.include(LookupBenchmark.class.getName() + "\\.(lookup|murmur3|cassandraHash|floor)$");
    builder.param("nodes", nodes);
    // replaces @Fork's jvmArgsAppend, so repeat its flags
    List<String> flags = new ArrayList<>(List.of("-Xmx1g", "-XX:+UseParallelGC"));
    flags.addAll(List.of(forkFlags()));
    builder.jvmArgsAppend(flags.toArray(String[]::new));
    if (args.length > 2) {
      builder.param("subject", args[2].split(","));
    }
    Collection<RunResult> results = new Runner(builder.build()).run();
    double bare = Double.NaN;
    double floor = Double.NaN;
    double cassandra = Double.NaN;
    Map<String, double[]> lookups = new LinkedHashMap<>();
    for (RunResult r : results) {
      String method = r.getParams().getBenchmark();
      double score = r.getPrimaryResult().getScore();
      double error = r.getPrimaryResult().getScoreError();
      if (method.endsWith(".murmur3")) {
        bare = score;
      } else if (method.endsWith(".cassandraHash")) {
        cassandra = score;
      } else if (method.endsWith(".floor")) {
        floor = score;
      } else {
        lookups.put(r.getParams().getParam("subject"), new double[] {score, error});
      }
    }
    List<String> lines = new ArrayList<>();
    lines.add("| subject | ns per lookup | bare Murmur3 ns | lookup / bare hash |");
    lines.add("|---|---:|---:|---:|");
    StringBuilder csv =
        new StringBuilder("subject,nodes,ns_per_lookup,error_ns,bare_hash_ns,ratio\n");
    for (Map.Entry<String, double[]> e : lookups.entrySet()) {
      double ns = e.getValue()[0];
      lines.add(String.format(Locale.ROOT, "| %s | %.2f ± %.2f | %.2f | %.2fx |", e.getKey(), ns,
          e.getValue()[1], bare, ns / bare));
      csv.append(String.format(Locale.ROOT, "%s,%s,%.4f,%.4f,%.4f,%.4f%n", e.getKey(), nodes, ns,
          e.getValue()[1], bare, ns / bare));
    }
    System.out.println();
    System.out.println("JMH, " + nodes + " nodes, equal weights, RF 1:");
    lines.forEach(System.out::println);
    System.out.printf(
        Locale.ROOT,
        "%nfloor (the hash plus one array read, nothing else): %.2f ns = %.2fx"
            + " the bare hash%n",
        floor,
        floor / bare);
    System.out.printf(Locale.ROOT, "Cassandra's Murmur3 variant (the token ring's hash, no lookup):"
        + " %.2f ns = %.2fx the bare hash%n", cassandra, cassandra / bare);
    if (args.length > 1) {
      Path dir = Path.of(args[1]);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("jmh-lookups.csv"), csv);
    }
  }
}
