package io.partkit.test.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;

/** When the etcd tests run, skip (and show as skipped), or fail because etcd is missing. */
class RequiresEtcdTest {

  @AfterEach
  void clearOverride() {
    System.clearProperty("partkit.etcd.binary");
  }

  @Test
  void aMissingEtcdSkipsOutsideCiWithTheInstallHint() {
    ConditionEvaluationResult r = RequiresEtcd.decide(false, false);
    assertThat(r.isDisabled()).isTrue();
    assertThat(r.getReason()).hasValue("etcd not found: apt-get install etcd-server");
  }

  @Test
  void underCiAMissingEtcdIsNotSkippedSoTheStartFails() {
    assertThat(RequiresEtcd.decide(false, true).isDisabled()).isFalse();
  }

  @Test
  void anInstalledEtcdRuns() {
    assertThat(RequiresEtcd.decide(true, false).isDisabled()).isFalse();
    assertThat(RequiresEtcd.decide(true, true).isDisabled()).isFalse();
  }

  @Test
  void theBinaryOverrideDecidesWhetherEtcdIsInstalled() {
    System.setProperty("partkit.etcd.binary", "/nonexistent/etcd");
    assertThat(EtcdCluster.installed()).isFalse();
    System.setProperty("partkit.etcd.binary", "/bin/sh"); // any executable file
    assertThat(EtcdCluster.installed()).isTrue();
  }
}
