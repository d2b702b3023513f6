package io.partkit.harness.exec;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One worker's client: a process of the user's client command, started on the first operation
 * and again after it exited, timed out or broke the protocol. Each operation is one JSON line on
 * its standard input, and the next line on its standard output is the result; its standard
 * error goes to {@code clients.log} in the run directory.
 *
 * <p>Outcomes, honestly: a line that could not be written (the process is gone, so it read
 * nothing) is {@code fail}; no line within the deadline, or the process exiting first, is {@code
 * info}, since the operation may have reached a node (the process is then killed, so a late
 * answer cannot be taken for the next operation's); otherwise the client's own word. A line that
 * is not the protocol is {@code info} as well, naming the command and the line.
 */
final class ExecClient implements Client {

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  /** The reader's mark for the end of the process's output. */
  private static final Object END = new Object();
  private static final int LINE_SHOWN = 300;

  private final List<String> command;
  private final List<String> nodes;
  private final Duration timeout;
  private final Path log;
  private final Consumer<String> notes;
  private Process process;
  private OutputStream stdin;
  private BlockingQueue<Object> lines;
  private long nextId = 1;

  /** A line that is not the protocol; the message names the command and the line. */
  static final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    ProtocolException(String message) {
      super(message);
    }
  }

  /**
   * A client of {@code command}, its standard error appended to {@code log}.
   *
   * @param notes told why, whenever the harness itself decides an outcome (no answer, an exit,
   *     a line outside the protocol), since the history records no reasons
   */
  ExecClient(List<String> command, List<String> nodes, Duration timeout, Path log,
      Consumer<String> notes) {
    this.command = List.copyOf(command);
    this.nodes = List.copyOf(nodes);
    this.timeout = timeout;
    this.log = log;
    this.notes = notes;
  }

  @Override
  public Outcome invoke(Operation op) {
    try {
      return exchange(op, timeout, false);
    } catch (ProtocolException e) {
      stop(); // out of step with us: a fresh process for the next operation
      notes.accept(e.getMessage());
      return Outcome.info(op.value(), e.getMessage());
    }
  }

  /**
   * Sends {@code op} and reads the answer, waiting at most {@code wait}.
   *
   * @param strict when true, a client that cannot start, exits or does not answer is a {@link
   *     ProtocolException} too (for the probe at set-up), not an outcome
   * @throws ProtocolException for an answer that is not the protocol
   */
  Outcome exchange(Operation op, Duration wait, boolean strict) throws ProtocolException {
    long id = nextId++;
    String request = request(id, op);
    try {
      ensureStarted();
    } catch (IOException e) {
      return unsent(op, strict, "client `" + commandLine() + "` cannot start: " + e.getMessage());
    }
    try {
      stdin.write((request + "\n").getBytes(UTF_8));
      stdin.flush();
    } catch (IOException e) {
      // the process is gone (or closed its input), so it read nothing of this line
      String status = exitStatus();
      return unsent(op, strict, "client `" + commandLine() + "` "
          + (status.isEmpty() ? "closed its input (" + e.getMessage() + ")" : "exited" + status)
          + " before it could be sent " + request + " (its stderr: " + log + ")");
    }
    Object line;
    try {
      line = lines.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      return Outcome.info(op.value(), "interrupted waiting for the client");
    }
    if (line == null || line == END) {
      String why = line == null
          ? "client `" + commandLine() + "` gave no answer to " + request + " within "
              + wait.toMillis() + " ms"
          : "client `" + commandLine() + "` exited" + exitStatus() + " before answering "
              + request + " (its stderr: " + log + ")";
      stop();
      if (strict) {
        throw new ProtocolException(why);
      }
      notes.accept(why);
      return Outcome.info(op.value(), why);
    }
    return outcome(op, id, request, (String) line);
  }

  /** An operation that never reached the client: a failure (or, strict, a protocol error). */
  private Outcome unsent(Operation op, boolean strict, String why) throws ProtocolException {
    stop();
    if (strict) {
      throw new ProtocolException(why);
    }
    notes.accept(why);
    return Outcome.fail(Operation.READ.equals(op.f()) ? null : op.value(), why);
  }

  /** One operation as a JSON line. */
  private String request(long id, Operation op) {
    ObjectNode r = JSON.createObjectNode();
    r.put("id", id);
    r.put("f", op.f());
    r.put("key", op.key());
    switch (op.f()) {
      case Operation.WRITE -> r.put("value", (Long) op.value());
      case Operation.CAS -> {
        ArrayNode v = r.putArray("value");
        if (op.casExpected() == null) {
          v.addNull();
        } else {
          v.add(op.casExpected());
        }
        v.add(op.casNew());
      }
      default -> r.putNull("value");
    }
    ArrayNode n = r.putArray("nodes");
    nodes.forEach(n::add);
    return r.toString();
  }

  /** The client's answer as an outcome; anything but the protocol is a ProtocolException. */
  private Outcome outcome(Operation op, long id, String request, String line)
      throws ProtocolException {
    JsonNode answer;
    try {
      answer = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw garbage(request, line, "not JSON");
    }
    if (answer == null || !answer.isObject()) {
      throw garbage(request, line, "not a JSON object");
    }
    JsonNode echoed = answer.get("id");
    if (echoed != null && !echoed.isNull()
        && (!echoed.isIntegralNumber() || echoed.asLong() != id)) {
      throw garbage(request, line, "its \"id\" is not the operation's, " + id);
    }
    JsonNode typeNode = answer.get("type");
    String type = typeNode != null && typeNode.isTextual() ? typeNode.asText() : null;
    JsonNode errorNode = answer.get("error");
    String error = errorNode == null || errorNode.isNull() ? null
        : errorNode.isTextual() ? errorNode.asText() : errorNode.toString();
    boolean read = Operation.READ.equals(op.f());
    if ("ok".equals(type)) {
      if (!read) {
        return Outcome.ok(op.value());
      }
      JsonNode value = answer.get("value");
      if (value == null) {
        throw garbage(request, line, "an ok read needs \"value\" (null when the key is absent)");
      }
      if (value.isNull()) {
        return Outcome.ok(null);
      }
      if (!value.isIntegralNumber() || !value.canConvertToLong()) {
        throw garbage(request, line, "an ok read's \"value\" is an integer or null");
      }
      return Outcome.ok(value.asLong());
    }
    if ("fail".equals(type)) {
      boolean mismatch = Operation.CAS.equals(op.f()) && answer.path("mismatch").asBoolean(false);
      return mismatch ? Outcome.mismatch(op.value(), error == null ? "mismatch" : error)
          : Outcome.fail(read ? null : op.value(), error);
    }
    if ("info".equals(type)) {
      return Outcome.info(op.value(), error);
    }
    throw garbage(request, line, "\"type\" must be \"ok\", \"fail\" or \"info\"");
  }

  private ProtocolException garbage(String request, String line, String why) {
    String shown = line.length() > LINE_SHOWN ? line.substring(0, LINE_SHOWN) + "..." : line;
    return new ProtocolException("client `" + commandLine() + "` answered " + request
        + " with the line '" + shown + "': " + why
        + " (expected one JSON object a line: {\"type\": \"ok\"|\"fail\"|\"info\", ...})");
  }

  private void ensureStarted() throws IOException {
    if (process != null && process.isAlive()) {
      return;
    }
    stop();
    Process p = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    BlockingQueue<Object> q = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> pump(p, q), "exec-client-" + p.pid());
    reader.setDaemon(true);
    reader.start();
    process = p;
    stdin = p.getOutputStream();
    lines = q;
  }

  /** Every line the process prints, then {@link #END}; its own queue, so a stale one is inert. */
  private static void pump(Process p, BlockingQueue<Object> q) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        q.add(line);
      }
    } catch (IOException e) {
      // the process is gone or was killed: its end is what the waiting operation learns
    } finally {
      q.add(END);
    }
  }

  private String exitStatus() {
    try {
      if (process != null && process.waitFor(200, TimeUnit.MILLISECONDS)) {
        return " with status " + process.exitValue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "";
  }

  private String commandLine() {
    return String.join(" ", command);
  }

  /** Ends the current process, if any: its standard input closed first, so it may exit. */
  private void stop() {
    Process p = process;
    process = null;
    if (p == null) {
      return;
    }
    try {
      stdin.close();
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!p.waitFor(200, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
  }
}
