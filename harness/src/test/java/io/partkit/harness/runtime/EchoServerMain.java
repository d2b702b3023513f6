package io.partkit.harness.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A tiny node for the runtime tests: {@code EchoServerMain <name> <host> <port>} listens on
 * host:port, prints {@code LISTENING} and answers every line it receives with its name. On stdin,
 * {@code connect <id> <host> <port> <timeoutMs>} makes it connect to another node and print
 * {@code RESULT <id> ok <reply>} or {@code RESULT <id> fail <why>} (ids keep answers apart, since
 * awaitLine finds the first matching line since the start).
 */
public final class EchoServerMain {

  public static void main(String[] args) throws IOException {
    String name = args[0];
    ServerSocket server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2])),
        50);
    Thread acceptor = new Thread(() -> {
      while (true) {
        try {
          Socket s = server.accept();
          Thread t = new Thread(() -> answer(s, name));
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    System.out.println("LISTENING " + name);
    System.out.flush();

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split(" ");
      if (w.length == 5 && w[0].equals("connect")) {
        System.out.println("RESULT " + w[1] + " " + ask(w[2], Integer.parseInt(w[3]),
            Integer.parseInt(w[4])));
        System.out.flush();
      }
    }
  }

  private static void answer(Socket s, String name) {
    try (s; BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(),
            StandardCharsets.UTF_8));
        PrintWriter w = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
      while (r.readLine() != null) {
        w.println(name);
      }
    } catch (IOException e) {
      // the peer went away
    }
  }

  /** "ok <reply>" or "fail <exception>", within timeoutMs for the connect and for the reply. */
  static String ask(String host, int port, int timeoutMs) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), timeoutMs);
      s.setSoTimeout(timeoutMs);
      PrintWriter w = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
      w.println("who");
      String reply = new BufferedReader(new InputStreamReader(s.getInputStream(),
          StandardCharsets.UTF_8)).readLine();
      return reply == null ? "fail closed" : "ok " + reply;
    } catch (IOException e) {
      return "fail " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }
}
