package example.register;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * A recording client: each operation goes to the node that holds its key, over a connection kept
 * per node and opened again after a failure. A read that gets no answer is {@code fail} (it
 * changed nothing); a write or cas that gets none is {@code info} (it may have been applied). A
 * cas the register refuses because it held another value is {@code mismatch}: a failure the
 * system answered, which the run's "answered" figure counts as available.
 */
final class RegisterClient implements Client {

  private static final int TIMEOUT_MILLIS = 2000;

  private final List<String> addresses;
  private final Connection[] connections;

  RegisterClient(List<String> addresses) {
    this.addresses = addresses;
    this.connections = new Connection[addresses.size()];
  }

  private record Connection(Socket socket, BufferedReader in, PrintWriter out) {}

  @Override
  public Outcome invoke(Operation op) {
    int node = (int) Math.floorMod(op.key(), (long) addresses.size());
    String request = switch (op.f()) {
      case Operation.READ -> "GET " + op.key();
      case Operation.WRITE -> "PUT " + op.key() + " " + op.value();
      default -> "CAS " + op.key() + " " + (op.casExpected() == null ? "nil" : op.casExpected())
          + " " + op.casNew();
    };
    String answer;
    try {
      answer = ask(node, request);
    } catch (IOException e) {
      close(node);
      String why = addresses.get(node) + ": " + e.getMessage();
      return Operation.READ.equals(op.f()) ? Outcome.fail(null, why)
          : Outcome.info(op.value(), why);
    }
    if (answer.startsWith("VALUE ")) {
      String v = answer.substring("VALUE ".length());
      return Outcome.ok(v.equals("nil") ? null : Long.valueOf(v));
    }
    return answer.equals("OK") ? Outcome.ok(op.value())
        : Outcome.mismatch(op.value(), "the register did not hold " + op.casExpected());
  }

  private String ask(int node, String request) throws IOException {
    Connection c = connections[node];
    if (c == null) {
      String[] hostPort = addresses.get(node).split(":");
      Socket s = new Socket();
      s.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
          TIMEOUT_MILLIS);
      s.setSoTimeout(TIMEOUT_MILLIS);
      c = new Connection(s, new BufferedReader(new InputStreamReader(s.getInputStream(), UTF_8)),
          new PrintWriter(s.getOutputStream(), true, UTF_8));
      connections[node] = c;
    }
    c.out().println(request);
    String line = c.in().readLine();
    if (line == null) {
      throw new IOException("connection closed");
    }
    return line;
  }

  private void close(int node) {
    Connection c = connections[node];
    connections[node] = null;
    if (c != null) {
      try {
        c.socket().close();
      } catch (IOException e) {
        // closing a broken connection: nothing more to do
      }
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < connections.length; i++) {
      close(i);
    }
  }
}
