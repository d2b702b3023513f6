(ns partkit.checker
  "A linearizability checker callable the way Jepsen tests call Knossos:

     (require '[partkit.checker :as pc])
     (pc/analysis (pc/cas-register 0) history)
     ;; => {:valid? false, :op {...}, :previous-ok {...}, :final-paths [...], ...}

  Models are built by the constructors below (register, cas-register, multi-register, mutex,
  set, fifo-queue, unordered-queue, kv) or by `model` from a step function. Histories are
  sequences of Jepsen operation maps ({:process 0 :type :invoke :f :read :value nil}).
  The search is partkit's Java checker (io.partkit.verification.checker.Linearizability)."
  (:refer-clojure :exclude [set])
  (:import (io.partkit.verification.model Model Models NilReads Step Step$Next Step$Inconsistent)
           (io.partkit.verification.checker Linearizability CheckOptions Verdict Analysis KeyResult
                                            Evidence Prefix)
           (io.partkit.verification.history Histories HistoryParseException Independent Independent$Mode
                                            InvalidHistoryException Op
                                            OpType Values)
           (java.time Duration)
           (java.util List Map Set)))

;; ---------------------------------------------------------------------------------------------
;; Values between Clojure and the checker. The checker's values are plain Java (keywords become
;; strings), so results are turned back into Clojure data here.

(defn- ->clj [v]
  (cond (instance? Map v) (into {} (map (fn [[k x]] [(->clj k) (->clj x)])) v)
        (instance? Set v) (into #{} (map ->clj) v)
        (instance? List v) (mapv ->clj v)
        :else v))

(defn- op->map [^Op op]
  (cond-> {:process (let [p (.process op)] (if (string? p) (keyword p) p))
           :type    (keyword (.jepsenName (.type op)))
           :f       (keyword (.f op))
           :value   (->clj (.value op))
           :index   (.index op)}
    (some? (.key op)) (assoc :key (->clj (.key op)))))

;; ---------------------------------------------------------------------------------------------
;; Models

(defn- nil-reads
  "The reading of an :ok read of nil from the option :nil-reads: :knossos (the default: a
  wildcard, as in knossos.model) or :strict (the register held nil)."
  ^NilReads [opts]
  (case (:nil-reads opts :knossos)
    :knossos NilReads/KNOSSOS
    :strict NilReads/STRICT
    (throw (IllegalArgumentException.
             (str "option :nil-reads must be :knossos or :strict, got " (pr-str (:nil-reads opts)))))))

(defn register
  "A read/write register (:read, :write), initially `init` (nil by default). As in Knossos, an
  :ok read of nil constrains nothing; option `:nil-reads :strict` makes it mean the register
  held nil: (register 0 :nil-reads :strict)."
  ([] (register nil))
  ([init & {:as opts}] (Models/register (Values/normalize init) (nil-reads opts))))

(defn cas-register
  "A register with :read, :write and :cas [old new], initially `init` (nil by default). Reads of
  nil as in `register` (option :nil-reads :knossos, the default, or :strict)."
  ([] (cas-register nil))
  ([init & {:as opts}] (Models/casRegister (Values/normalize init) (nil-reads opts))))

(defn multi-register
  "Registers changed by :txn ops whose value is [[:read k v] [:write k v] ...]; `init` is a map
  like {:x 0 :y 0} (keys are compared by name, so :x and \"x\" are one register). As in Knossos,
  [:read k nil] constrains nothing; option :nil-reads :strict makes it mean k held nil."
  ([] (multi-register {}))
  ([init & {:as opts}] (Models/multiRegister (Values/normalize init) (nil-reads opts))))

(defn mutex "A lock: :acquire, :release." [] (Models/mutex))
(defn set "A set: :add x, :read returning the set." [] (Models/set))
(defn fifo-queue "A FIFO queue: :enqueue x, :dequeue returning the head (nil when empty)." [] (Models/fifoQueue))
(defn unordered-queue "A queue that dequeues any element." [] (Models/unorderedQueue))
(defn kv "Strings per :key with :get, :put, :append; every key starts as `init` (\"\")." ([] (kv "")) ([init] (Models/kv init)))

(defn named
  "A built-in model by name (\"cas-register\", ...) with an initial state; option :nil-reads
  (:knossos, the default, or :strict) as in `register`."
  ([name] (named name nil))
  ([name init & {:as opts}] (Models/named (clojure.core/name name) (Values/normalize init) (nil-reads opts))))

(defn inconsistent
  "What a custom model's step function returns for an illegal operation."
  [msg]
  (Step/inconsistent (str msg)))

(defn model
  "A custom model from an initial state and a pure (fn [state op] ...) returning the next state or
  (inconsistent msg). States must be values (equality and hashing are used to cache them). The op
  is a map {:process :type :f :value :key}; its :type is :ok, or :info when the result is unknown
  (then the step must accept any result). Keywords inside values arrive as strings.
  Option :read-only? (fn [op] ...) marks operations that never change the state (reads): the
  search gets faster, and a wrong answer makes verdicts wrong."
  [model-name init step & {:keys [read-only?]}]
  (reify Model
    (name [_] (clojure.core/name model-name))
    (initialState [_] init)
    (step [_ state op]
      (let [r (step state (op->map op))]
        (if (instance? Step r) r (Step/next r))))
    (isReadOnly [_ op]
      (boolean (and read-only? (read-only? (op->map op)))))
    Object
    ;; The result's :model shows this name, as it shows a built-in model's.
    (toString [_] (clojure.core/name model-name))))

;; ---------------------------------------------------------------------------------------------
;; Analysis

(defn- replay-path
  "Knossos-style path: each op of a prefix with the model state after it."
  [^Model m ops]
  (loop [state (.initialState m), ops ops, out []]
    (if-let [^Op op (first ops)]
      (let [r (.step m state op)
            s (if (instance? Step$Next r) (.state ^Step$Next r) state)]
        (recur s (rest ops) (conj out {:op (op->map op) :model (->clj s)})))
      out)))

(defn- key-result [^Model m ^KeyResult k]
  (let [verdict (.verdict k)]
    (cond-> {:valid? (condp = verdict Verdict/VALID true Verdict/INVALID false :unknown)
             :operations (.operations k)
             :steps (.steps k)}
      (some? (.key k)) (assoc :key (->clj (.key k)))
      (.cause k) (assoc :cause (.cause k))
      (= verdict Verdict/VALID) (assoc :linearization (mapv op->map (.linearization k)))
      (.evidence k)
      (merge (let [^Evidence e (.evidence k)
                   prefixes (.longestPrefixes e)
                   ^Prefix first-prefix (first prefixes)]
               {:op (op->map (.op e))
                :message (.message e)
                :previous-ok (some-> first-prefix .ops seq last op->map)
                :final-paths (mapv #(replay-path m (.ops ^Prefix %)) prefixes)
                :configs (mapv (fn [^Prefix p] {:model (->clj (.state p))
                                                :linearized (mapv op->map (.ops p))})
                               prefixes)})))))

(defn analysis
  "Checks `history` (a sequence of Jepsen op maps) against `model`. Returns a map with :valid?
  true, false or :unknown. When false: :op (the operation that could not be linearized),
  :message, :previous-ok, :final-paths and :configs (the longest linearized prefixes and the
  model states they reached), and :key for keyed histories. When :unknown: :cause.
  Options: :time-limit (milliseconds), :parallelism (threads), :memory-fraction, :independent
  (:auto, the default, splits a Jepsen independent history whose client values are all [k v]
  per key; true always splits; false never).
  An empty history is valid; a nil history is bad input: {:valid? :unknown, :cause \"malformed
  history: ... no history (nil) ...\"}, as the command line exits 3 for a file without a history."
  ([model history] (analysis model history {}))
  ([^Model model history opts]
   (try
     (let [h (Independent/apply (Histories/fromMaps "history" (when (some? history) (vec history)))
                                (case (:independent opts :auto)
                                  :auto Independent$Mode/AUTO
                                  true Independent$Mode/YES
                                  false Independent$Mode/NO))
           o (cond-> (CheckOptions/defaults)
               (:time-limit opts) (.withTimeLimit (Duration/ofMillis (long (:time-limit opts))))
               (:parallelism opts) (.withParallelism (int (:parallelism opts)))
               (:memory-fraction opts) (.withMemoryFraction (double (:memory-fraction opts))))
           ^Analysis a (Linearizability/check model h o)
           keys (mapv #(key-result model %) (.keys a))
           verdict (.verdict a)
           keyed? (.hasKeys h)
           failure (first (filter #(false? (:valid? %)) keys))]
       (cond-> {:valid? (condp = verdict Verdict/VALID true Verdict/INVALID false :unknown)
                :analyzer :partkit-wgl
                :model (str model)
                :time-ms (/ (.nanos a) 1e6)}
         (.cause a) (assoc :cause (.cause a))
         failure (merge (dissoc failure :valid? :operations :steps))
         (and (not keyed?) (= verdict Verdict/VALID)) (assoc :linearization (:linearization (first keys)))
         keyed? (assoc :keys (into (sorted-map-by #(compare (str %1) (str %2)))
                                   (map (fn [k] [(:key k) (dissoc k :key)])) keys))))
     (catch HistoryParseException e
       {:valid? :unknown :cause (str "malformed history: " (.getMessage e))})
     (catch InvalidHistoryException e
       {:valid? :unknown :cause (.getMessage e) :problems (vec (.problems e))}))))

(defn check
  "Same as `analysis`; reads like a Jepsen checker call."
  ([model history] (analysis model history {}))
  ([model history opts] (analysis model history opts)))
