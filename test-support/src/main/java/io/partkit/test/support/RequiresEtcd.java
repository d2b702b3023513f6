package io.partkit.test.support;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips each test of a class that needs etcd when the {@code etcd} binary is missing, outside CI.
 *
 * <p>Register it with {@code @ExtendWith(RequiresEtcd.class)} on a class that starts an
 * {@link EtcdCluster} in {@code @BeforeAll}. Why not just let {@link EtcdCluster#start} abort: an
 * assumption that fails in {@code @BeforeAll} aborts the class before any test is reported, so
 * Surefire counts zero tests and the etcd tests vanish from the totals. This condition disables the
 * tests one by one instead (they show as skipped, with the install hint), and the class itself so
 * that its {@code @BeforeAll} does not run. With {@code CI=true} it enables everything, so a
 * missing etcd fails the build in {@link EtcdCluster#start}.
 */
public final class RequiresEtcd implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return decide(EtcdCluster.installed(), "true".equals(System.getenv("CI")));
  }

  static ConditionEvaluationResult decide(boolean installed, boolean ci) {
    if (installed) {
      return ConditionEvaluationResult.enabled("etcd is installed");
    }
    if (ci) {
      return ConditionEvaluationResult.enabled(
          "CI=true: a missing etcd fails in EtcdCluster.start");
    }
    return ConditionEvaluationResult.disabled(EtcdCluster.MISSING);
  }
}
