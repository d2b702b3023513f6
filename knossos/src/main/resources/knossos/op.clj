(ns knossos.op
  "Operations, named as in Knossos' knossos.op: the Op record, its constructors and predicates.

  An operation has a :process, a :type (:invoke, :ok, :fail or :info), a function :f and its
  :value, and an :index (its position in a history, -1 until one is given); any other key rides
  along. The checker itself takes plain maps and Jepsen's history records as well: these are for
  code and tests written against Knossos' API.")

(defrecord Op [process type f value index])

(defn Op->map
  "The operation as a plain map (nil for nil)."
  [op]
  (when op (into {} op)))

(defn op
  "A new operation of `type`, not yet placed in a history (:index -1)."
  [process type f value]
  (->Op process type f value -1))

(defn invoke "An invocation of `f`." [process f value] (op process :invoke f value))
(defn ok "A completion: the operation took place." [process f value] (op process :ok f value))
(defn fail "A completion: the operation certainly did not take place." [process f value] (op process :fail f value))
(defn info "A completion whose outcome is unknown (e.g. a crash)." [process f value] (op process :info f value))

(defn invoke? "Is this an invocation?" [op] (= :invoke (:type op)))
(defn ok? "Did this operation take place?" [op] (= :ok (:type op)))
(defn fail? "Did this operation certainly not take place?" [op] (= :fail (:type op)))
(defn info? "Is the outcome of this operation unknown?" [op] (= :info (:type op)))

(defn same-process?
  "Do `a` and `b` come from one process?"
  [a b]
  (= (:process a) (:process b)))
