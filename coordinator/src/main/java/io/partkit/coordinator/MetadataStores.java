package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * Factories for the built-in {@link MetadataStore}; the etcd store lives in
 * {@code partkit-coordinator-etcd}.
 */
public final class MetadataStores {

  private MetadataStores() {}

  /**
   * An in-process store that lives as long as the JVM: for tests and single-process use. It is
   * also a {@link VersionedValues}.
   */
  public static MetadataStore embedded() {
    return EmbeddedMetadataStore.inMemory();
  }

  /**
   * An in-process store persisted to {@code file} (the table, pending migrations, members and
   * {@linkplain VersionedValues versioned values}, as JSON; written to a temporary file, fsynced
   * and renamed over the old one on every change), so a restarted process resumes where it
   * stopped. The file is read if it exists. It is also a {@link VersionedValues}.
   *
   * @throws MetadataStoreException if the file exists but cannot be read or parsed
   */
  public static MetadataStore embedded(Path file) {
    return EmbeddedMetadataStore.persistent(requireNonNull(file, "file"));
  }
}
