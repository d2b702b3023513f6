(ns knossos.history
  "Functions on histories (sequences of operations), named as in Knossos' knossos.history, for
  code and tests written against it: pairing invocations with their completions, completing
  invocations with the values their :ok completions report, indexing. The checker does not use
  them: partkit.knossos prepares a history in one pass of its own."
  (:refer-clojure :exclude [indexed?])
  (:require [knossos.op :as op]))

(defn index
  "The history as a vector, each operation's :index its position."
  [history]
  (into [] (map-indexed (fn [i o] (assoc o :index i))) history))

(defn indexed?
  "Does the history carry indices (judged by its first operation, as Knossos does)? An empty
  history counts as indexed."
  [history]
  (or (empty? history) (integer? (:index (first history)))))

(defn ensure-indexed
  "The history, indexed by position unless it already carries indices."
  [history]
  (if (indexed? history) history (index history)))

(defn kindex
  "[history' mapping]: history' indexed by position, mapping from those positions to the
  operations' own :index. Throws IllegalArgumentException when the own indices are not unique
  (all nil, or all -1 as Knossos' op constructors leave them, are allowed)."
  [history]
  (let [own (mapv :index history)]
    (when-not (or (every? nil? own) (every? #(= -1 %) own) (< (count own) 2)
                  (apply distinct? own))
      (throw (IllegalArgumentException.
               (str "History starting with " (pr-str (first history))
                    " has operations with the same :index"))))
    [(index history) (zipmap (range) own)]))

(defn convert-op-index
  "The operation with its :index mapped through `mapping` (from kindex); nil for an operation
  without an :index."
  [mapping op]
  (when (some? (:index op))
    (assoc op :index (get mapping (:index op)))))

(defn convert-op-indices
  "convert-op-index over operations."
  [mapping ops]
  (map #(convert-op-index mapping %) ops))

(defn processes
  "The set of processes in a history."
  [history]
  (into #{} (map :process) history))

(defn sort-processes
  "Processes sorted: names (e.g. :nemesis) first, then numbers in order."
  [ps]
  (sort (fn [a b]
          (cond (and (number? a) (number? b)) (compare a b)
                (number? a) 1
                (number? b) -1
                :else (compare a b)))
        ps))

(defn- open-at-end
  "Invocations left open at the end of the history; an :info completion closes its invocation
  when `info-closes?`."
  [history info-closes?]
  (->> history
       (reduce (fn [open o]
                 (case (:type o)
                   :invoke (assoc open (:process o) o)
                   (:ok :fail) (dissoc open (:process o))
                   :info (if info-closes? (dissoc open (:process o)) open)
                   (throw (IllegalArgumentException.
                            (str "Unknown op type " (pr-str (:type o)) " in " (pr-str o))))))
               {})
       vals))

(defn unmatched-invokes "Invocations without any completion." [history] (open-at-end history true))
(defn crashed-invokes "Invocations without an :ok or :fail completion." [history] (open-at-end history false))

(defn pairs+
  "The history's operations paired per process, lazily: [invocation completion] for every
  completed invocation (:ok, :fail or :info), [info] for an :info that closes nothing; open
  invocations are left out. Throws ex-info when a process invokes while its previous invocation
  is open, or completes without one."
  ([history] (pairs+ {} history))
  ([open history]
   (lazy-seq
     (when-let [[o & more] (seq history)]
       (let [p (:process o)]
         (case (:type o)
           :invoke (if (contains? open p)
                     (throw (ex-info (str "Process " p " invokes " (pr-str o) " while "
                                          (pr-str (get open p)) " is still open")
                                     {:process p :op o :running-op (get open p)}))
                     (pairs+ (assoc open p o) more))
           :info (if (contains? open p)
                   (cons [(get open p) o] (pairs+ (dissoc open p) more))
                   (cons [o] (pairs+ open more)))
           (:ok :fail) (if (contains? open p)
                         (cons [(get open p) o] (pairs+ (dissoc open p) more))
                         (throw (ex-info (str "Process " p " completes " (pr-str o)
                                              " without an open invocation")
                                         {:process p :op o})))))))))

(defn pairs
  "As pairs+, except that an :info never completes an invocation: it is paired alone."
  [history]
  (pairs+ (remove op/info? history)))

(defn- pair-map
  [pairs]
  (reduce (fn [m [a b]]
            (cond-> (assoc m a b)
              b (assoc b a)))
          {}
          pairs))

(defn pair-index+
  "A map from each invocation to its completion (:ok, :fail or :info) and back; an :info that
  closes nothing maps to nil."
  [history]
  (pair-map (pairs+ history)))

(defn pair-index
  "As pair-index+, but :info operations map to nil and close no invocation."
  [history]
  (merge (pair-map (pairs history))
         (into {} (comp (filter op/info?) (map (fn [o] [o nil]))) history)))

(defn invocation
  "The invocation of `op`, looked up in a pair index unless `op` is one."
  [pair-index op]
  (if (op/invoke? op) op (get pair-index op)))

(defn completion
  "The completion of `op`, looked up in a pair index when `op` is an invocation."
  [pair-index op]
  (if (op/invoke? op) (get pair-index op) op))

(defn complete
  "The history with each invocation's :value replaced by what its completion reports: an :ok's
  value, and for a :fail its value plus :fails? true on the invocation (so that checkers can
  skip it). :info operations change nothing. Throws a RuntimeException when a process invokes
  while its previous invocation is open, and an AssertionError for an :ok or :fail without an
  open invocation."
  [history]
  (loop [[o & more :as h] (seq history), out (transient []), open {}]
    (if-not h
      (persistent! out)
      (let [p (:process o)]
        (case (:type o)
          :invoke (do (when (contains? open p)
                        (throw (RuntimeException.
                                 (str "Process " p " already running " (pr-str (nth out (get open p)))
                                      ", yet attempted to invoke " (pr-str o) " concurrently"))))
                      (let [i (count out)] (recur more (conj! out o) (assoc open p i))))
          (:ok :fail) (let [i (get open p)]
                        (when-not i
                          (throw (AssertionError.
                                   (str "Process completed an operation without a prior invocation: "
                                        (pr-str o)))))
                        (let [inv (cond-> (assoc (nth out i) :value (:value o))
                                    (op/fail? o) (assoc :fails? true))]
                          (recur more (conj! (assoc! out i inv) o) (dissoc open p))))
          (recur more (conj! out o) open))))))

(defn without-failures
  "A completed history without its failed operations (invocations and completions)."
  [history]
  (into [] (remove #(or (op/fail? %) (:fails? %))) history))
