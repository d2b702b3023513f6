(ns partkit.knossos
  "Runs a Knossos model (knossos.model/Model) on partkit's checker and shapes the result as
  Knossos does. Used by knossos.competition, knossos.linear and knossos.wgl.

  Why the checker never sees the op values: a Knossos model must get the operation maps Knossos
  would give it (keywords stay keywords, any value type is allowed), while partkit's history
  normalises values. So the checker gets each op's :process, :type, :f and its position as
  :index, and the model adapter looks the real operation up by that position."
  (:require [knossos.model :as model])
  (:import (io.partkit.verification.model Model Step)
           (io.partkit.verification.checker Linearizability CheckOptions Verdict Analysis KeyResult
                                            Evidence Prefix)
           (io.partkit.verification.history Histories HistoryParseException InvalidHistoryException Op)
           (java.time Duration)))

;; ---------------------------------------------------------------------------------------------
;; The history as Knossos sees it, and as the checker sees it

(defn- client-process
  "The process as the checker should see it: integers as they are; any other process that
  invokes operations gets a negative integer of its own (Knossos checks every process), and
  the rest (e.g. :nemesis with only :info ops) stays a name, which the checker skips."
  [invoking p]
  (cond (integer? p) p
        (contains? invoking p) (get invoking p)
        :else (str p)))

(defn prepare
  "Walks the history once. Returns
    :ops     the original ops, each with :index (its position) unless it had one,
    :steps   per position of an invocation or its :ok completion, the op the model steps with:
             the invocation, with the completion's :value filled in when it completed :ok (as
             Knossos' history/complete does),
    :checked what partkit's checker gets: {:process :type :f :index position}, without the
             :info completions that close no invocation (Knossos skips them too)."
  [history]
  (let [ops (mapv (fn [i op] (if (contains? op :index) op (assoc op :index i))) (range) history)
        invoking (->> ops (filter #(= :invoke (:type %))) (map :process) (remove integer?) distinct
                      (map-indexed (fn [i p] [p (- -1000000 i)])) (into {}))
        steps (object-array (count ops))]
    (loop [i 0, open {}, checked (transient [])]
      (if (= i (count ops))
        {:ops ops :steps steps :checked (persistent! checked)}
        (let [{:keys [process type f] :as op} (nth ops i)
              c {:process (client-process invoking process) :type type
                 :f (if (or (keyword? f) (string? f)) f (pr-str f)) :index i}]
          (case type
            :invoke (do (aset steps i op)
                        (recur (inc i) (assoc open process i) (conj! checked c)))
            :ok (if-let [j (get open process)]
                  (let [inv (nth ops j)
                        filled (assoc inv :value (if (some? (:value op)) (:value op) (:value inv)))]
                    (aset steps i filled)
                    (aset steps j filled)
                    (recur (inc i) (dissoc open process) (conj! checked c)))
                  (recur (inc i) open (conj! checked c)))
            (:fail :info) (if (contains? open process)
                            (recur (inc i) (dissoc open process) (conj! checked c))
                            (recur (inc i) open (if (= :fail type) (conj! checked c) checked)))
            (recur (inc i) open (conj! checked c))))))))

;; ---------------------------------------------------------------------------------------------
;; A Knossos model as a partkit model

(defn- read-only?
  "Reads of the built-in register and set models never change them: telling the checker lets it
  take a legal read at once. Custom models get the safe answer, false."
  [m op]
  (and (= :read (:f op))
       (or (instance? knossos.model.Register m) (instance? knossos.model.CASRegister m)
           (instance? knossos.model.Set m))))

(defn- model-name [m]
  (.getSimpleName (class m)))

(defn adapter
  "A partkit model whose states are Knossos models, starting at `m`; `steps` maps a position to
  the op the Knossos model steps with."
  ^Model [m ^objects steps]
  (let [step-op (fn [^Op op] (aget steps (int (.index op))))]
    (reify Model
      (name [_] (model-name m))
      (initialState [_] m)
      (step [_ state op]
        (let [s (model/step state (step-op op))]
          (if (model/inconsistent? s)
            (Step/inconsistent ^String (str (:msg s)))
            (Step/next s))))
      (isReadOnly [_ op] (read-only? m (step-op op))))))

;; ---------------------------------------------------------------------------------------------
;; Results in Knossos' shape

(defn- open-at
  "Positions of the invocations still open at position `end` (crashed ones stay open, as Knossos'
  concurrent-ops-at has them), the operation completing at `end` included."
  [ops end]
  (loop [i 0, open {}, crashed []]
    (if (> i end)
      (sort (concat (vals open) crashed))
      (let [{:keys [process type]} (nth ops i)]
        (case type
          :invoke (recur (inc i) (assoc open process i) crashed)
          :info (recur (inc i) (dissoc open process) (if-let [j (get open process)] (conj crashed j) crashed))
          (recur (inc i) (if (= i end) open (dissoc open process)) crashed))))))

(defn- invalid-result [{:keys [ops ^objects steps]} ^Evidence e]
  (let [orig (fn [^Op op] (nth ops (.index op)))
        final (orig (.op e))
        final-step (aget steps (int (.index (.op e))))
        prefixes (vec (.longestPrefixes e))
        linearized (fn [^Prefix p] (into #{} (map #(aget steps (int (.index ^Op %)))) (.ops p)))
        open (open-at ops (.index (.op e)))
        config (fn [^Prefix p]
                 (let [done (linearized p)]
                   {:model (.state p)
                    :last-op (some-> (.ops p) seq last orig)
                    :pending (vec (remove done (map #(aget steps (int %)) open)))}))
        path (fn [^Prefix p]
               [{:op (some-> (.ops p) seq last orig) :model (.state p)}
                {:op final :model (let [s (model/step (.state p) final-step)]
                                    (if (model/inconsistent? s) s (model/inconsistent (.message e))))}])
        first-ops (some-> ^Prefix (first prefixes) .ops seq)
        end (.index (.op e))]
    {:valid? false
     :op final
     :previous-ok (some->> (range end) (filter #(and (= :ok (:type (nth ops %))) (aget steps (int %)))) last (nth ops))
     :last-op (some-> first-ops last orig)
     :final-paths (into #{} (map path) prefixes)
     :configs (mapv config prefixes)}))

(defn- valid-result [{:keys [ops ^objects steps]} m ^KeyResult k]
  (let [lin (.linearization k)
        final (reduce (fn [s ^Op op] (model/step s (aget steps (int (.index op))))) m lin)]
    {:valid? true
     :model final
     :configs [{:model final :last-op (some->> lin seq last (.index) (nth ops)) :pending []}]}))

(def nil-history-cause
  "Why a nil history gets no verdict: it is no history at all, which the command line rejects as
  bad input (exit 3) for a file holding none, and partkit.checker answers the same way. An empty
  history is valid, as in Knossos: nothing happened, so nothing was wrong."
  "malformed history: no history (nil)")

(defn analysis
  "Checks `history` against the Knossos model `m` with partkit's search; `analyzer` (:wgl or
  :linear) is reported as :analyzer. Options: {:time-limit ms}."
  [analyzer m history opts]
  (cond
    (nil? history) {:valid? :unknown :cause nil-history-cause :analyzer analyzer}
    (empty? history) {:valid? true :analyzer analyzer :model m :configs []}
    :else
    (try
      (let [prepared (prepare history)
            h (Histories/fromMaps "history" (:checked prepared))
            o (cond-> (CheckOptions/defaults)
                (:time-limit opts) (.withTimeLimit (Duration/ofMillis (long (:time-limit opts)))))
            ^Analysis a (Linearizability/check (adapter m (:steps prepared)) h o)
            ^KeyResult k (first (.keys a))
            verdict (.verdict a)]
        (assoc (cond (= verdict Verdict/VALID) (if k (valid-result prepared m k) {:valid? true :model m :configs []})
                     (= verdict Verdict/INVALID) (invalid-result prepared (.evidence k))
                     :else {:valid? :unknown :cause (.cause a)})
               :analyzer analyzer))
      (catch HistoryParseException e
        {:valid? :unknown :cause (str "malformed history: " (.getMessage e)) :analyzer analyzer})
      (catch InvalidHistoryException e
        {:valid? :unknown :cause (.getMessage e) :problems (vec (.problems e)) :analyzer analyzer}))))
