(ns knossos.model
  "Knossos' models, for Jepsen tests that swap the knossos jar for partkit-knossos.

  A model is a value that is its own state: (step model op) returns the next model, or
  (inconsistent msg) when op cannot happen in that state. Names, arities and semantics follow
  Knossos' documented API (https://github.com/jepsen-io/knossos, src/knossos/model.clj); the
  code is partkit's. As in Knossos, an operation whose :value is nil reads nothing in the
  register models: a read of nil is legal in any state (the value was not known).

  Custom models implement the interface knossos.model.Model in a defrecord:

    (defrecord Counter [n]
      Model
      (step [this op]
        (case (:f op)
          :inc  (Counter. (inc n))
          :read (if (= n (:value op)) this (inconsistent (str \"read \" (:value op) \", counter \" n))))))

  States are compared with = and hashed by the checker's cache, so models should be values
  (records of immutable data)."
  (:refer-clojure :exclude [set])
  (:import (knossos.model Model)
           (clojure.lang PersistentQueue)))

(defn step
  "The model after `op`: the next model, or an inconsistent one."
  [^Model model op]
  (.step model op))

(defrecord Inconsistent [msg]
  Model
  (step [this _] this)
  Object
  (toString [_] (str msg)))

(defn inconsistent
  "What a model's step returns for an operation that cannot happen; `msg` says why."
  [msg]
  (->Inconsistent msg))

(defn inconsistent?
  "True when `model` is the result of `inconsistent`."
  [model]
  (instance? Inconsistent model))

(defn- unknown-f
  "Operations a model does not know are impossible (Knossos throws; an inconsistency lets the
  checker report where the history went wrong instead of failing)."
  [model op]
  (inconsistent (str "model " (.getSimpleName (class model)) " has no operation " (pr-str (:f op)))))

(defrecord NoOp []
  Model
  (step [this _] this))

(def noop "A model every operation leaves unchanged." (->NoOp))

(defn- read-value
  "A read of `v` from a register holding `value`: legal when v is nil (unknown) or equal; else
  the inconsistency `why` gives."
  [model value v why]
  (if (or (nil? v) (= value v))
    model
    (inconsistent (why value v))))

(defrecord Register [value]
  Model
  (step [this op]
    (case (:f op)
      :write (->Register (:value op))
      :read (read-value this value (:value op) #(str (pr-str %1) "≠" (pr-str %2)))
      (unknown-f this op)))
  Object
  (toString [_] (pr-str value)))

(defn register
  "A read/write register (:read, :write v), initially `value` (nil)."
  ([] (register nil))
  ([value] (->Register value)))

(defrecord CASRegister [value]
  Model
  (step [this op]
    (case (:f op)
      :write (->CASRegister (:value op))
      :cas (let [[old new] (:value op)]
             (if (= old value)
               (->CASRegister new)
               (inconsistent (str "can't CAS " value " from " old " to " new))))
      :read (read-value this value (:value op) #(str "can't read " %2 " from register " %1))
      (unknown-f this op)))
  Object
  (toString [_] (pr-str value)))

(defn cas-register
  "A register with :read, :write v and :cas [old new], initially `value` (nil)."
  ([] (cas-register nil))
  ([value] (->CASRegister value)))

(defrecord Mutex [locked?]
  Model
  (step [this op]
    (case (:f op)
      :acquire (if locked? (inconsistent "already held") (->Mutex true))
      :release (if locked? (->Mutex false) (inconsistent "not held"))
      (unknown-f this op)))
  Object
  (toString [_] (if locked? "locked" "free")))

(defn mutex "A lock answering :acquire and :release, initially free." [] (->Mutex false))

(defn- txn-step
  "Applies one [f k v] of a transaction to the registers (the record's own keys), or gives an
  inconsistency."
  [registers [f k v]]
  (case f
    :write (assoc registers k v)
    :read (if (or (nil? v) (= v (get registers k)))
            registers
            (reduced (inconsistent (str (pr-str (get registers k)) "≠" (pr-str v)))))
    (reduced (inconsistent (str "unknown transaction step " (pr-str f))))))

(defrecord MultiRegister []
  Model
  (step [this op]
    (if (= :txn (:f op))
      (reduce txn-step this (:value op))
      (unknown-f this op))))

(defn multi-register
  "Registers by key, changed by :txn ops whose value is [[:read k v] [:write k v] ...], applied in
  order; `values` maps keys to initial values (others start nil). A read of nil is always legal.
  As in Knossos, the registers are the record's own keys: (:x (multi-register {:x 1})) is 1."
  ([] (multi-register {}))
  ([values] (map->MultiRegister values)))

(defrecord Set [s]
  Model
  (step [this op]
    (case (:f op)
      :add (->Set (conj s (:value op)))
      :read (if (= s (:value op))
              this
              (inconsistent (str "can't read " (pr-str (:value op)) " from " (pr-str s))))
      (unknown-f this op))))

(defn set "A set answering :add x and :read (the whole set, compared with =), initially empty." [] (->Set #{}))

(defrecord UnorderedQueue [pending]
  Model
  (step [this op]
    (case (:f op)
      :enqueue (->UnorderedQueue (update pending (:value op) (fnil inc 0)))
      :dequeue (let [v (:value op), c (get pending v 0)]
                 (cond (zero? c) (inconsistent (str "can't dequeue " v))
                       (= 1 c) (->UnorderedQueue (dissoc pending v))
                       :else (->UnorderedQueue (assoc pending v (dec c)))))
      (unknown-f this op))))

(defn unordered-queue
  "A queue whose :dequeue may return any pending element; pending elements are a multiset (a
  map from element to count)."
  []
  (->UnorderedQueue {}))

(defrecord FIFOQueue [pending]
  Model
  (step [this op]
    (case (:f op)
      :enqueue (->FIFOQueue (conj pending (:value op)))
      :dequeue (cond (empty? pending) (inconsistent (str "can't dequeue " (:value op) " from empty queue"))
                     (= (:value op) (peek pending)) (->FIFOQueue (pop pending))
                     :else (inconsistent (str "can't dequeue " (:value op))))
      (unknown-f this op))))

(defn fifo-queue "A first-in first-out queue: :enqueue x, :dequeue returning the head." [] (->FIFOQueue PersistentQueue/EMPTY))
