package io.partkit.replica;

/** What a node is for one partition, as far as it knows. */
public enum Role {
  /** Not a member of the partition's configuration (or it knows none). */
  ABSENT,
  /** The member that orders, replicates and answers requests. */
  PRIMARY,
  /** A member that holds every write the primary acknowledges. */
  BACKUP
}
