package io.partkit.harness.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One host of the SSH runtime, reached with OpenSSH's client ({@code ssh}): every call is one
 * remote shell command over a connection that the first call opens and later calls share
 * ({@code ControlMaster}), so a signal or a rule costs a round trip, not a handshake.
 *
 * <p>The user's own {@code ~/.ssh/config} is never read ({@code -F /dev/null}): what the run does
 * depends only on its {@link SshTarget}. Host keys are checked against the target's known-hosts
 * file ({@code StrictHostKeyChecking=yes}), or added to it for a host never seen before when the
 * target says so ({@code accept-new}: a changed key is still refused).
 */
final class SshHost {

  /** ssh's own exit code for "could not connect or log in"; remote scripts never use it. */
  private static final int SSH_FAILED = 255;

  final String name;
  final String address;
  final int index;
  private final SshTarget target;
  private final Path controlDir;

  SshHost(String name, String address, int index, SshTarget target, Path controlDir) {
    this.name = name;
    this.address = address;
    this.index = index;
    this.target = target;
    this.controlDir = controlDir;
  }

  /** The ssh command line running {@code script} on this host. */
  List<String> command(String script) {
    List<String> c = new ArrayList<>(List.of("ssh", "-F", "/dev/null", "-T",
        "-o", "BatchMode=yes",
        "-o", "StrictHostKeyChecking=" + (target.acceptNewHostKeys() ? "accept-new" : "yes"),
        "-o", "UserKnownHostsFile=" + target.knownHosts(),
        "-o", "GlobalKnownHostsFile=/dev/null",
        "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=6",
        "-o", "LogLevel=ERROR",
        "-o", "ControlMaster=auto", "-o", "ControlPersist=30",
        "-o", "ControlPath=" + controlDir.resolve("h" + index),
        "-p", Integer.toString(target.port()), "-l", target.user()));
    if (target.key() != null) {
      c.addAll(List.of("-i", target.key().toString(), "-o", "IdentitiesOnly=yes"));
    }
    c.add(address);
    c.add("--");
    c.add(script);
    return c;
  }

  /** Runs {@code script}; its output, or an exception saying why not. */
  String run(String script, Duration timeout) throws IOException {
    return run(script, null, timeout);
  }

  /**
   * Runs {@code script} with {@code input} on its standard input.
   *
   * @throws SshUnreachable when ssh could not connect or log in (its words and a hint)
   * @throws IOException when the script failed (exit code and output) or overran {@code timeout}
   */
  String run(String script, byte[] input, Duration timeout) throws IOException {
    Process p = new ProcessBuilder(command(MARK_OUTPUT + script)).start();
    CompletableFuture<byte[]> out =
        CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
    CompletableFuture<byte[]> err =
        CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
    try (OutputStream in = p.getOutputStream()) {
      if (input != null) {
        in.write(input);
      }
    } catch (IOException e) {
      // it ended before reading its input: the exit code and output say why
    }
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException("on host " + name + ": `" + abbreviate(script)
            + "` did not finish in " + timeout);
      }
      String output = afterMark(new String(out.get(10, TimeUnit.SECONDS),
          StandardCharsets.UTF_8));
      String said = new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8).strip();
      if (p.exitValue() == SSH_FAILED) {
        throw new SshUnreachable(this, said);
      }
      if (p.exitValue() != 0) {
        throw new IOException("on host " + name + ": `" + abbreviate(script) + "` failed (exit "
            + p.exitValue() + "): " + (output + "\n" + said).strip());
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted talking to host " + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("cannot read ssh's output from host " + name + ": " + e, e);
    }
  }

  /**
   * Starts {@code script} and leaves it running; the caller reads its output, which begins after
   * the line {@link #MARK} (see {@link #MARK_OUTPUT}).
   */
  Process spawn(String script) throws IOException {
    return new ProcessBuilder(command(MARK_OUTPUT + script))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  /**
   * A line printed before every script's own output. A user's shell start-up files may print
   * (bash reads ~/.bashrc for commands from sshd; pyenv's complained about a busy lock there):
   * what comes before the mark is theirs, not the script's.
   */
  static final String MARK = "--partkit-output--";

  private static final String MARK_OUTPUT = "echo " + MARK + "; ";

  /** What follows the mark line, or everything when there is none (ssh failed before it). */
  static String afterMark(String output) {
    int at = output.indexOf(MARK + "\n");
    return at < 0 ? output : output.substring(at + MARK.length() + 1);
  }

  /** Closes the shared connection; a no-op when none is open. */
  void closeConnection() {
    List<String> c = new ArrayList<>(command("true"));
    c.subList(c.size() - 3, c.size()).clear(); // address, "--", script
    c.addAll(List.of("-O", "exit", address));
    try {
      Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      // no connection to close
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name.equals(address) ? name : name + " (" + address + ")";
  }

  /** {@code 'text'} for a POSIX shell. */
  static String quote(String text) {
    return "'" + text.replace("'", "'\\''") + "'";
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      return new byte[0];
    }
  }

  private static String abbreviate(String script) {
    String one = script.replace('\n', ' ');
    return one.length() <= 120 ? one : one.substring(0, 117) + "...";
  }

  /** ssh could not connect or log in: the host, ssh's words and what usually fixes it. */
  static final class SshUnreachable extends IOException {
    private static final long serialVersionUID = 1L;

    SshUnreachable(SshHost host, String said) {
      super("cannot log in to host " + host + " port " + host.target.port() + " as "
          + host.target.user() + " over SSH: " + (said.isEmpty() ? "ssh exited with 255" : said)
          + hint(host, said));
    }

    private static String hint(SshHost host, String said) {
      if (said.contains("IDENTIFICATION HAS CHANGED")) {
        return "\n(its host key differs from the one in " + host.target.knownHosts()
            + ": if the host was reinstalled, remove the old key with `ssh-keygen -R "
            + host.address + " -f " + host.target.knownHosts() + "`)";
      }
      if (said.contains("Host key verification failed") || said.contains("No ")
          && said.contains("host key is known")) {
        return "\n(its host key is not in " + host.target.knownHosts() + ": check it, then add "
            + "it with `ssh-keyscan -p " + host.target.port() + " " + host.address + " >> "
            + host.target.knownHosts() + "`, or trust it on first contact with "
            + "--ssh-accept-new-host-keys)";
      }
      if (said.contains("Permission denied")) {
        return "\n(the key " + (host.target.key() == null ? "(OpenSSH's default)"
            : host.target.key().toString()) + " is not accepted for " + host.target.user()
            + ": add its public half to that user's ~/.ssh/authorized_keys, or pass --ssh-key)";
      }
      if (said.contains("Connection refused")) {
        return "\n(nothing listens on that port: is sshd running? is --ssh-port right?)";
      }
      if (said.contains("timed out") || said.contains("No route") || said.contains("unreachable")
          || said.contains("resolve")) {
        return "\n(the host is not reachable from here: check the address and the network)";
      }
      return "";
    }
  }
}
