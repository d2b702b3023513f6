package knossos.model;

/**
 * Knossos' model interface, {@code knossos.model.Model}, as a compiled Java interface.
 *
 * <p>Knossos declares it with potemkin's {@code definterface+}, so Jepsen tests implement it in a
 * {@code defrecord} after {@code (:import (knossos.model Model))}. Declaring it in Java keeps
 * that import working whatever order a test's {@code ns} form loads things in.
 *
 * <p>A model is its own state: {@code step} returns the model after {@code op} (an operation
 * map), or {@code (knossos.model/inconsistent msg)} when {@code op} cannot happen in this state.
 */
public interface Model {

  /** The model after {@code op}, or an inconsistent model. */
  Object step(Object op);
}
