package io.partkit.test.support;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real etcd member shared by the tests of a class, started before the first and stopped after
 * the last:
 *
 * <pre>{@code
 * @RegisterExtension static final EtcdMember etcd = new EtcdMember();
 * ... EtcdMetadataStores.builder().endpoints(etcd.endpoints()) ...
 * }</pre>
 *
 * <p>Without the etcd binary it decides as {@link RequiresEtcd} does: the tests show as skipped
 * with the install hint outside CI, and with {@code CI=true} they run and fail in
 * {@link EtcdCluster#start}. JUnit evaluates the condition before {@code beforeAll}, so a skipped
 * class never tries to start etcd. Tests that start their own clusters (several members, faults)
 * use {@link EtcdCluster} directly.
 */
public final class EtcdMember implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {

  private volatile EtcdCluster cluster;

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return RequiresEtcd.decide(EtcdCluster.installed(), "true".equals(System.getenv("CI")));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = EtcdCluster.start(1);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    EtcdCluster started = cluster;
    cluster = null;
    if (started != null) {
      started.close();
    }
  }

  /** The member's client URLs. */
  public List<String> endpoints() {
    return cluster().allEndpoints();
  }

  /** The running member, for tests that restart or pause it. */
  public EtcdCluster cluster() {
    EtcdCluster running = cluster;
    if (running == null) {
      throw new IllegalStateException(
          "no etcd member: register EtcdMember with @RegisterExtension on a static field");
    }
    return running;
  }
}
