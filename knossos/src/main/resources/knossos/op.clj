(ns knossos.op
  "Predicates on operation maps, named as in Knossos' knossos.op, for tests that use them.")

(defn invoke? "Is this an invocation?" [op] (= :invoke (:type op)))
(defn ok? "Did this operation take place?" [op] (= :ok (:type op)))
(defn fail? "Did this operation certainly not take place?" [op] (= :fail (:type op)))
(defn info? "Is the outcome of this operation unknown?" [op] (= :info (:type op)))
