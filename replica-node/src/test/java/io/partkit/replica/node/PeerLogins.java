package io.partkit.replica.node;

import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.access.LoginRefusedException;
import io.partkit.replica.node.access.SharedSecret;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/** Logins to a node as a peer makes them, from a chosen loopback address. */
final class PeerLogins {

  private PeerLogins() {}

  /** A connection to {@code node} from the address {@code from}, not logged in. */
  static Socket openFrom(String from, InetSocketAddress node, Duration deadline)
      throws IOException {
    Socket s = new Socket();
    try {
      s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
      s.connect(node, Math.toIntExact(deadline.toMillis()));
      return s;
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  /**
   * Logs in to {@code node} from {@code from} with {@code secret} (null: none), waiting at most
   * {@code deadline} for each answer; the connection, logged in.
   *
   * @throws LoginRefusedException when the node refused the login (a definite answer)
   * @throws IOException when the connection failed or was closed before an answer
   */
  static Socket login(String from, InetSocketAddress node, SharedSecret secret,
      Duration deadline) throws IOException {
    Socket s = openFrom(from, node, deadline);
    try {
      s.setSoTimeout(Math.toIntExact(deadline.toMillis()));
      LoginHandshake.answer(Frame.peerFrames(
          new DataInputStream(new BufferedInputStream(s.getInputStream())),
          new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))), secret, node);
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /**
   * A login as a patient peer makes it: a connection the node closes before it answered
   * (evicted while logging in, to make room, even as its proof arrived) is opened again after a
   * pause of 1 ms, doubling up to 50 ms, until {@code deadline} has passed since the first
   * attempt. Null once logged in; otherwise what the last attempt met.
   */
  static String loginAsAClientDoes(String from, InetSocketAddress node, SharedSecret secret,
      Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    long pause = 1;
    while (true) {
      try {
        login(from, node, secret, deadline).close();
        return null;
      } catch (LoginRefusedException e) {
        return e.getMessage(); // a definite refusal: the node answered no
      } catch (IOException e) {
        if (System.nanoTime() + pause * 1_000_000 >= end) {
          return e.toString(); // closed before an answer, for the whole deadline
        }
      }
      Thread.sleep(pause);
      pause = Math.min(50, pause * 2);
    }
  }
}
