package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.ScanPage;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** SCAN on one node: served by the same rules as GET, paged by the last key, bad input named. */
class ScanNodeTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int P = 3;

  @TempDir Path dir;
  @RegisterExtension final TestNodes nodes = new TestNodes(() -> dir);

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static List<String> keys(KvReply ok) throws IOException {
    assertThat(ok.status()).as(ok.toString()).isEqualTo(Status.OK);
    return ScanPage.of(ok).entries().stream().map(e -> new String(e.key(), UTF_8)).toList();
  }

  @Test
  void aScanIsServedOnlyByTheOwnerAtItsEpochAsAGetIs() throws IOException {
    try (TcpNodeClient c = TestNodes.client(nodes.start("n1"))) {
      assertThat(c.scan(P, 5, b(""), null, 10).status()).as("not held")
          .isEqualTo(Status.REDIRECT);
      c.admin(Wire.ASSIGN, P, 5);
      for (String k : List.of("b", "a", "c")) {
        assertThat(c.put(P, 5, b(k), b("v" + k)).isOk()).isTrue();
      }
      KvReply ok = c.scan(P, 5, b(""), null, 10);
      assertThat(keys(ok)).containsExactly("a", "b", "c");
      assertThat(ok.epoch()).isEqualTo(5);
      assertThat(ScanPage.of(ok).entries().get(0).value()).isEqualTo(b("va"));
      assertThat(keys(c.scan(P, 7, b(""), null, 10))).as("a newer epoch is served, as a get")
          .containsExactly("a", "b", "c");

      KvReply stale = c.scan(P, 4, b(""), null, 10);
      assertThat(stale.status()).isEqualTo(Status.REDIRECT);
      assertThat(stale.epoch()).as("the redirect carries the owner's epoch").isEqualTo(5);
      assertThat(stale.value()).as("no data with a refusal").isNull();

      assertThat(c.admin(Wire.FENCE, P, 6).status()).isEqualTo(Status.OK);
      KvReply moving = c.scan(P, 5, b(""), null, 10);
      assertThat(moving.status()).as("fenced for a move").isEqualTo(Status.MOVING);
      assertThat(moving.epoch()).isEqualTo(6);
      assertThat(c.get(P, 5, b("a")).status()).as("as a get is").isEqualTo(Status.MOVING);
      assertThat(c.admin(Wire.UNFENCE, P, 6).status()).isEqualTo(Status.OK);
      assertThat(keys(c.scan(P, 5, b("b"), null, 10))).containsExactly("b", "c");
      assertThat(c.scan(P + 1, 5, b(""), null, 10).status()).as("another partition")
          .isEqualTo(Status.REDIRECT);
    }
  }

  @Test
  void pagesFollowEachOtherByTheLastKeyAndStopAtTheEnd() throws IOException {
    try (TcpNodeClient c = TestNodes.client(nodes.start("n1"))) {
      c.admin(Wire.ASSIGN, P, 1);
      List<String> all = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        all.add("k" + i);
        c.put(P, 1, b("k" + i), b("v" + i));
      }
      List<String> paged = new ArrayList<>();
      byte[] from = b("");
      int pages = 0;
      while (true) {
        ScanPage page = ScanPage.of(c.scan(P, 1, from, b("k8"), 3));
        pages++;
        page.entries().forEach(e -> paged.add(new String(e.key(), UTF_8)));
        if (!page.more()) {
          break;
        }
        byte[] last = page.entries().get(page.entries().size() - 1).key();
        from = Arrays.copyOf(last, last.length + 1); // the first key after it
      }
      assertThat(paged).isEqualTo(all.subList(0, 8));
      assertThat(pages).as("3 + 3 + 2, the last page says nothing follows").isEqualTo(3);
      assertThat(keys(c.scan(P, 1, b("k3"), b("k3"), 5))).as("an empty range").isEmpty();
      assertThat(keys(c.scan(P, 1, b("x"), null, 5))).as("past every key").isEmpty();
    }
  }

  @Test
  void badScansAreAnsweredWithTheReasonOnAConnectionThatStaysUsable() throws IOException {
    try (TcpNodeClient c = TestNodes.client(nodes.start("n1"))) {
      c.admin(Wire.ASSIGN, P, 1);
      c.put(P, 1, b("a"), b("1"));
      KvReply zero = c.scan(P, 1, b(""), null, 0);
      assertThat(zero.status()).isEqualTo(Status.ERROR);
      assertThat(zero.message()).endsWith("limit must be >= 1: 0");
      KvReply backwards = c.scan(P, 1, b("b"), b("a"), 1);
      assertThat(backwards.status()).isEqualTo(Status.ERROR);
      assertThat(backwards.message())
          .endsWith("from must not be after to in unsigned byte order: from=0x62 to=0x61");
      KvReply noFrom = c.scan(P, 1, null, null, 1);
      assertThat(noFrom.message()).contains("from must not be null");
      assertThat(keys(c.scan(P, 1, b(""), null, 1))).containsExactly("a");
    }
  }

  @Test
  void aBackupRedirectsAndADeposedPrimaryCannotServeAScan() throws IOException {
    KvNode a = nodes.start("a");
    KvNode b = nodes.start("b");
    KvNode c = nodes.start("c");
    ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = TestNodes.client(a); TcpNodeClient cb = TestNodes.client(b)) {
      assertThat(ca.put(P, 1, b("k"), b("old")).isOk()).isTrue();
      assertThat(keys(ca.scan(P, 1, b(""), null, 5))).containsExactly("k");
      assertThat(cb.scan(P, 1, b(""), null, 5).status()).as("a backup serves no client")
          .isEqualTo(Status.REDIRECT);
      // a is cut off while the coordinator fails over to b: a stays up and must not answer
      admin.failOver(P, 2, b.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
      assertThat(cb.put(P, 2, b("k"), b("new")).isOk()).isTrue();
      KvReply deposed = ca.scan(P, 1, b(""), null, 5);
      assertThat(deposed.status()).as("a scan of the old values: " + deposed)
          .isEqualTo(Status.UNAVAILABLE);
      ScanPage fresh = ScanPage.of(cb.scan(P, 2, b(""), null, 5));
      assertThat(fresh.entries()).containsExactly(new KvEntry(b("k"), b("new")));
    }
  }
}
