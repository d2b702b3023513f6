package example.register;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One node of the example system: registers in memory, one line per request on a TCP socket.
 * {@code GET k} answers {@code VALUE v} or {@code VALUE nil}; {@code PUT k v} answers {@code OK};
 * {@code CAS k old new} ({@code old} may be {@code nil}) answers {@code OK} or {@code FAIL}.
 *
 * <p>With {@code --durable true} every change is appended to a log file and forced to disk before
 * it is acknowledged, and the log is replayed at start, so a {@code kill -9} loses nothing; with
 * {@code false} a killed node comes back empty, which the harness's checks catch.
 *
 * <p>Usage: {@code RegisterServer --host H --port P --log FILE --durable true|false}.
 */
public final class RegisterServer {

  private final Map<Long, Long> registers = new HashMap<>();
  private final FileChannel log;

  private RegisterServer(FileChannel log) {
    this.log = log;
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i], args[i + 1]);
    }
    String host = Objects.requireNonNull(o.get("--host"), "--host");
    int port = Integer.parseInt(Objects.requireNonNull(o.get("--port"), "--port"));
    Path logFile = Path.of(Objects.requireNonNull(o.get("--log"), "--log"));
    boolean durable = Boolean.parseBoolean(o.getOrDefault("--durable", "true"));
    Files.createDirectories(logFile.toAbsolutePath().getParent());
    RegisterServer server = new RegisterServer(durable
        ? FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)
        : null);
    if (durable) {
      for (String line : Files.readAllLines(logFile, UTF_8)) {
        String[] kv = line.split(" ");
        if (kv.length == 2) { // a torn last line was never acknowledged
          server.registers.put(Long.parseLong(kv[0]), Long.parseLong(kv[1]));
        }
      }
    }
    try (ServerSocket listener = new ServerSocket(port, 50, InetAddress.getByName(host))) {
      System.out.println("REGISTER READY " + port);
      System.out.flush();
      while (true) {
        Socket s = listener.accept();
        Thread t = new Thread(() -> server.serve(s), "client");
        t.setDaemon(true);
        t.start();
      }
    }
  }

  private void serve(Socket socket) {
    try (socket;
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
            UTF_8));
        PrintWriter out = new PrintWriter(socket.getOutputStream(), true, UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.println(answer(line.split(" ")));
      }
    } catch (IOException | RuntimeException e) {
      // the client went away (or sent garbage): it retries on a new connection
    }
  }

  private synchronized String answer(String[] r) throws IOException {
    long key = Long.parseLong(r[1]);
    switch (r[0]) {
      case "GET" -> {
        Long v = registers.get(key);
        return "VALUE " + (v == null ? "nil" : v);
      }
      case "PUT" -> {
        set(key, Long.parseLong(r[2]));
        return "OK";
      }
      case "CAS" -> {
        Long expected = r[2].equals("nil") ? null : Long.valueOf(r[2]);
        if (!Objects.equals(registers.get(key), expected)) {
          return "FAIL";
        }
        set(key, Long.parseLong(r[3]));
        return "OK";
      }
      default -> throw new IllegalArgumentException("unknown request " + r[0]);
    }
  }

  private void set(long key, long value) throws IOException {
    if (log != null) {
      log.write(ByteBuffer.wrap((key + " " + value + "\n").getBytes(UTF_8)));
      log.force(false); // on disk before the answer: a kill -9 cannot lose it
    }
    registers.put(key, value);
  }
}
