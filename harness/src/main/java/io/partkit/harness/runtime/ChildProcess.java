package io.partkit.harness.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A started OS process shared by the process-based runtimes: one thread copies its merged output
 * to the node's log and keeps the lines for {@link #awaitLine}; signals are sent with
 * {@code kill(1)} because {@link Process} has no SIGSTOP.
 */
final class ChildProcess implements NodeProcess {

  /** kill(1) by absolute path, so a run with a short PATH still signals its nodes. */
  private static final String KILL = java.util.stream.Stream.of("/bin/kill", "/usr/bin/kill")
      .filter(p -> java.nio.file.Files.isExecutable(Path.of(p))).findFirst().orElse("kill");

  private final String node;
  private final Process process;
  private final ChildLines lines;

  private ChildProcess(String node, Process process, Path log) {
    this.node = node;
    this.process = process;
    this.lines = new ChildLines(node, log);
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
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.accept(line);
      }
    } catch (IOException | UncheckedIOException e) {
      // the process is gone; what it printed so far is in the log
    } finally {
      lines.end();
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
    // the output's end, not the exit, says it is gone: the last lines may still be in the pipe
    return lines.await(prefix, timeout, () -> true);
  }

  @Override
  public void skipLines() {
    lines.skip();
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
        throw new SetupException(
            "kill -9 of " + node + " (pid " + pid() + ") did not end it in 30 s");
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
      Process kill = new ProcessBuilder(KILL, "-" + name, Long.toString(pid()))
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
}
