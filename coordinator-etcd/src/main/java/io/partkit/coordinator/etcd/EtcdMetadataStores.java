package io.partkit.coordinator.etcd;

import static java.util.Objects.requireNonNull;

import io.partkit.coordinator.MetadataStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@link MetadataStore}s on etcd.
 *
 * <pre>{@code
 * MetadataStore store = EtcdMetadataStores.builder()
 *     .endpoints("http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379")
 *     .prefix("/partkit/orders")
 *     .build();
 * }</pre>
 *
 * <h2>Keys under the prefix</h2>
 * <ul>
 *   <li>{@code <prefix>/table}: the table as {@link io.partkit.coordinator.MetadataCodec} JSON;
 *       replaced in a transaction guarded by its mod revision.
 *   <li>{@code <prefix>/migrations}: the pending wave as a JSON array, absent when none; written
 *       and deleted in transactions guarded by the table's mod revision.
 *   <li>{@code <prefix>/members/<id>}: one member as JSON, attached to a lease whose keep-alive
 *       is the heartbeat.
 *   <li>{@code <prefix>/leader}: the leader's candidate name, attached to the leader's lease.
 *   <li>{@code <prefix>/values/<name>}: a {@link io.partkit.coordinator.VersionedValues} value's
 *       bytes as given; its version is the key's mod revision, and it is replaced in a
 *       transaction guarded by that mod revision (by its create revision being 0 when absent).
 * </ul>
 *
 * <p>The store built is also a {@link io.partkit.coordinator.VersionedValues}.
 */
public final class EtcdMetadataStores {

  private EtcdMetadataStores() {}

  /** A builder; {@link Builder#endpoints} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings of one etcd store. */
  public static final class Builder {
    final List<String> endpoints = new ArrayList<>();
    String prefix = "/partkit";
    Duration connectTimeout = Duration.ofSeconds(5);
    Duration requestTimeout = Duration.ofSeconds(10);
    Duration leaderTtl = Duration.ofSeconds(5);

    private Builder() {}

    /**
     * The etcd client URLs, e.g. {@code http://127.0.0.1:2379}; all members of the cluster, so
     * that the client fails over when one dies.
     *
     * @throws IllegalArgumentException if none is given or one is not an http(s) URL
     */
    public Builder endpoints(String... urls) {
      return endpoints(List.of(urls));
    }

    /** @see #endpoints(String...) */
    public Builder endpoints(List<String> urls) {
      requireNonNull(urls, "urls");
      if (urls.isEmpty()) {
        throw new IllegalArgumentException("at least one etcd endpoint is needed");
      }
      for (String u : urls) {
        if (u == null || !(u.startsWith("http://") || u.startsWith("https://"))) {
          throw new IllegalArgumentException(
              "etcd endpoint must be an http:// or https:// URL: " + u);
        }
      }
      endpoints.clear();
      endpoints.addAll(urls);
      return this;
    }

    /**
     * The key prefix all of this store's keys live under; one prefix per cluster. Default
     * {@code /partkit}.
     *
     * @throws IllegalArgumentException if it does not start with '/' or ends with '/'
     */
    public Builder prefix(String prefix) {
      requireNonNull(prefix, "prefix");
      if (!prefix.startsWith("/") || prefix.endsWith("/") || prefix.length() < 2) {
        throw new IllegalArgumentException(
            "prefix must start with '/' and not end with '/': '" + prefix + "'");
      }
      this.prefix = prefix;
      return this;
    }

    /** How long {@link #build()} waits for etcd to answer. Default 5 s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /** How long one request may take, retries included, before it fails. Default 10 s. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /**
     * TTL of the leader's lease: a leader that dies is replaced after at most this long. Default
     * 5 s; whole seconds (etcd's unit), at least 1.
     */
    public Builder leaderTtl(Duration ttl) {
      positive(ttl, "leaderTtl");
      if (ttl.toSeconds() < 1) {
        throw new IllegalArgumentException("leaderTtl must be at least 1 s (etcd's unit): " + ttl);
      }
      this.leaderTtl = ttl;
      return this;
    }

    private static Duration positive(Duration d, String what) {
      requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive: " + d);
      }
      return d;
    }

    /**
     * Connects and checks that etcd answers.
     *
     * @throws IllegalStateException if no endpoint was given
     * @throws io.partkit.coordinator.MetadataStoreException "cannot reach etcd at ... within 5s"
     *     when etcd does not answer in the connect timeout
     */
    public MetadataStore build() {
      if (endpoints.isEmpty()) {
        throw new IllegalStateException("no etcd endpoints: call endpoints(...)");
      }
      return EtcdMetadataStore.connect(this);
    }
  }
}
