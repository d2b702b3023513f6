package io.partkit.harness.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A started OS process shared by the process-based runtimes: one thread copies its merged output
 * to the node's log and keeps the lines for {@link #awaitLine}; signals are sent with
 * {@code kill(1)} because {@link Process} has no SIGSTOP.
 */
final class ChildProcess implements NodeProcess {

  private final String node;
  private final Process process;
  private final Path log;
  private final List<String> lines = new ArrayList<>();
  /** Per prefix, the index after the line the last awaitLine returned; guarded by lines. */
  private final Map<String, Integer> cursors = new HashMap<>();
  private int skippedTo;

  private ChildProcess(String node, Process process, Path log) {
    this.node = node;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} with output merged and appended to {@code log}. */
  static ChildProcess start(String node, List<String> command, Path log) throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    ChildProcess child = new ChildProcess(node, p, log);
    Thread pump = new Thread(child::pump, "output-" + node + "-" + p.pid());
    pump.setDaemon(true);
    pump.start();
    return child;
  }

  private void pump() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(Files.newOutputStream(log, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND), true, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        out.println(line);
        synchronized (lines) {
          lines.add(line);
          lines.notifyAll();
        }
      }
    } catch (IOException e) {
      // the process is gone; what it printed so far is in the log
    } finally {
      synchronized (lines) {
        lines.notifyAll();
      }
    }
  }

  @Override
  public String node() {
    return node;
  }

  @Override
  public long pid() {
    return process.pid();
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public String awaitLine(String prefix, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      int seen = Math.max(skippedTo, cursors.getOrDefault(prefix, 0));
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (lines.get(seen).startsWith(prefix)) {
            cursors.put(prefix, seen + 1);
            return lines.get(seen);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !process.isAlive() && !pumping()) {
          cursors.put(prefix, seen);
          throw new SetupException(node + " printed no line starting with '" + prefix + "' within "
              + timeout + (process.isAlive() ? "" : " (it exited with " + exitCode() + ")")
              + "; its log " + log + " ends with:\n" + tail(log, 30));
        }
        try {
          lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SetupException("interrupted waiting for " + node, e);
        }
      }
    }
  }

  @Override
  public void skipLines() {
    synchronized (lines) {
      cursors.replaceAll((prefix, seen) -> lines.size());
      skippedTo = lines.size();
    }
  }

  private boolean pumping() {
    // after exit the pump may still be copying the last lines: give it the wait's next round
    try {
      return process.getInputStream().available() > 0;
    } catch (IOException e) {
      return false;
    }
  }

  private String exitCode() {
    try {
      return Integer.toString(process.exitValue());
    } catch (IllegalThreadStateException e) {
      return "?";
    }
  }

  @Override
  public void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  @Override
  public void kill() {
    signal("KILL");
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new SetupException("kill -9 of " + node + " (pid " + pid() + ") did not end it in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void pause() {
    signal("STOP");
  }

  @Override
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    if (!process.isAlive()) {
      return;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid()))
          .redirectErrorStream(true).start();
      String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (kill.waitFor() != 0 && process.isAlive()) {
        throw new SetupException("kill -" + name + " " + pid() + " (" + node + ") failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill(1)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Kills it if alive, without waiting long: for tear-down. */
  void destroy() {
    if (process.isAlive()) {
      signal("CONT"); // a stopped JVM would otherwise keep its stdin pipe until killed
      process.destroyForcibly();
    }
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String tail(Path file, int count) {
    try {
      if (!Files.exists(file)) {
        return "(no log)";
      }
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - count), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
