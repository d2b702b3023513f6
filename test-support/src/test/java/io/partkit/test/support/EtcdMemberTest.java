package io.partkit.test.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared member is up for the class's tests; an unregistered one says how to register it. */
class EtcdMemberTest {

  @RegisterExtension static final EtcdMember etcd = new EtcdMember();

  @Test
  void theMemberAcceptsConnectionsOnItsLoopbackEndpoint() throws Exception {
    assertThat(etcd.endpoints()).hasSize(1);
    URI endpoint = URI.create(etcd.endpoints().get(0));
    assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 10_000);
      assertThat(s.isConnected()).isTrue();
    }
  }

  @Test
  void aMemberThatWasNeverStartedSaysHowToRegisterIt() {
    assertThatThrownBy(() -> new EtcdMember().endpoints())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("@RegisterExtension");
  }
}
