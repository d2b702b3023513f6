package io.partkit.replica.node.access;

import java.net.ConnectException;

/**
 * A login the node answered no to (a wrong or missing secret, its limit of connections) or could
 * not take part in (another handshake version): trying again gets the same answer until
 * something changes. A connection the node closes during the login without an answer (it made
 * room for newer connections) is a plain {@link ConnectException}, which a peer tries again.
 */
public final class LoginRefusedException extends ConnectException {

  private static final long serialVersionUID = 1L;

  LoginRefusedException(String message) {
    super(message);
  }
}
