/**
 * Tests of the migration executor: the reconcile's plan without sockets, the split requests, and
 * moves, roll backs, splits and reconciles on in-process nodes, with the migration contract run
 * against the embedded and the etcd metadata stores.
 */
package io.partkit.kvstore.migration;
