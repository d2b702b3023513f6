(ns partkit.knossos
  "Runs a Knossos model (knossos.model/Model) on partkit's checker and shapes the result as
  Knossos does. Used by knossos.competition, knossos.linear and knossos.wgl.

  Two parts:
  - the verdict comes from partkit's search (Linearizability/check). It never sees the op values:
    a Knossos model must get the operation maps Knossos would give it (keywords stay keywords,
    any value type is allowed), while partkit's history normalises values. So the checker gets
    each op's :process, :type, :f and its position as :index, and the model adapter looks the
    real operation up by that position;
  - the evidence Knossos reports (:configs, :final-paths, and a valid result's every final model
    in knossos.linear) describes Knossos' configuration sets: after each :ok, every (model,
    pending calls) reachable with all earlier :ok operations linearized. Those come from a
    forward pass over the history (Lowe's just-in-time linearization, the algorithm of Knossos'
    linear.clj, written here from the paper) run only once the verdict is known, within
    *configuration-budget* model steps: a history too large for it gets the evidence of partkit's
    longest linearized prefixes instead (same keys, fewer configurations)."
  (:require [knossos.model :as model])
  (:import (io.partkit.verification.model Model Step)
           (io.partkit.verification.checker Linearizability CheckOptions Verdict Analysis KeyResult
                                            Evidence Prefix)
           (io.partkit.verification.history Histories HistoryParseException InvalidHistoryException Op)
           (java.time Duration)
           (java.util LinkedHashMap HashSet)))

(def ^:dynamic *configuration-budget*
  "How many model steps the configuration pass (evidence, and knossos.linear's final models) may
  take before it gives up and the result is built from partkit's search alone. Each step costs
  a few microseconds with the configurations built and hashed around it: the time a pass that
  reaches the budget takes is in docs/checker.md (Knossos' memstress histories)."
  200000)

(def ^:dynamic *final-paths-limit*
  "At most this many :final-paths (Knossos enumerates every order of the pending operations, which
  grows as n!; Jepsen keeps the first 10)."
  1000)

;; ---------------------------------------------------------------------------------------------
;; The history, prepared once

(defn- client-process
  "The process as the checker should see it: integers as they are; any other process that
  invokes operations gets a negative integer of its own (Knossos checks every process), and
  the rest (e.g. :nemesis with only :info ops) stays a name, which the checker skips."
  [invoking p]
  (cond (integer? p) p
        (contains? invoking p) (get invoking p)
        :else (str p)))

(defn- plain
  "The operation as Knossos returns one: a plain map (records such as Jepsen's history ops
  become maps) with :value present."
  [o]
  (assoc (into {} o) :value (:value o)))

(defn prepare
  "Walks the history once. Returns
    :ops      the operations as given,
    :ext      per position, the :index results report: the op's own integer :index, else its
              position,
    :steps    per position of an invocation or its :ok completion, the op the model steps with:
              the invocation, its :value the :ok completion's (as Knossos' history/complete does),
    :done     per invocation position, the position of its :ok, :info or :fail completion (or nil),
    :events   the pass's events in order: [:invoke inv-pos pid] for invocations that did not
              fail, [:ok ok-pos pid inv-pos],
    :checked  what partkit's checker gets: {:process :type :f :index position}, without the
              :info completions that close no invocation (Knossos skips them too)."
  [history]
  (let [ops (vec history)
        n (count ops)
        ext (mapv (fn [i o] (let [x (:index o)] (if (integer? x) x i))) (range) ops)
        invoking (->> ops (filter #(= :invoke (:type %))) (map :process) (remove integer?) distinct
                      (map-indexed (fn [i p] [p (- -1000000 i)])) (into {}))
        steps (object-array n)
        done (object-array n)]
    (loop [i 0, open {}, checked (transient []), events (transient [])]
      (if (= i n)
        {:ops ops :ext ext :steps steps :done done :checked (persistent! checked)
         :events (let [failed (into #{} (keep-indexed (fn [j d] (when (and d (= :fail (:type (nth ops d)))) j)))
                                    (vec done))]
                   (into [] (remove (fn [[t pos]] (and (= :invoke t) (failed pos)))) (persistent! events)))}
        (let [{:keys [process type f] :as o} (nth ops i)
              pid (client-process invoking process)
              c {:process pid :type type :f (if (or (keyword? f) (string? f)) f (pr-str f)) :index i}]
          (case type
            :invoke (do (aset steps i o)
                        (recur (inc i) (assoc open process i) (conj! checked c) (conj! events [:invoke i pid])))
            :ok (if-let [j (get open process)]
                  (let [filled (assoc (nth ops j) :value (:value o))]
                    (aset steps i filled)
                    (aset steps j filled)
                    (aset done j i)
                    (recur (inc i) (dissoc open process) (conj! checked c) (conj! events [:ok i pid j])))
                  (recur (inc i) open (conj! checked c) events))
            (:fail :info) (if-let [j (get open process)]
                            (do (aset done j i)
                                (recur (inc i) (dissoc open process) (conj! checked c) events))
                            (recur (inc i) open (if (= :fail type) (conj! checked c) checked) events))
            (recur (inc i) open (conj! checked c) events)))))))

(defn- render
  "The op at position `pos` as results show it: a plain map with its external :index, stepping
  value filled in for an invocation (`invocation?`)."
  [{:keys [ops ext ^objects steps]} pos invocation?]
  (assoc (plain (if invocation? (or (aget steps (int pos)) (nth ops pos)) (nth ops pos)))
         :index (nth ext pos)))

(defn- render-completion
  "The completion of the invocation at `inv` (as Knossos' wgl shows a linearized op): its :ok or
  :info, or, for an invocation never completed, the invocation as :info (Knossos adds such a
  completion at the end of the history)."
  [{:keys [^objects done] :as prepared} inv]
  (if-let [d (aget done (int inv))]
    (render prepared d false)
    (assoc (render prepared inv true) :type :info)))

;; ---------------------------------------------------------------------------------------------
;; A Knossos model as a partkit model

(defn- read-only?
  "Reads of the built-in register and set models never change them: telling the checker lets it
  take a legal read at once. Custom models get the safe answer, false."
  [m op]
  (and (= :read (:f op))
       (or (instance? knossos.model.Register m) (instance? knossos.model.CASRegister m)
           (instance? knossos.model.Set m))))

(defn adapter
  "A partkit model whose states are Knossos models, starting at `m`; `steps` maps a position to
  the op the Knossos model steps with."
  ^Model [m ^objects steps]
  (let [step-op (fn [^Op op] (aget steps (int (.index op))))]
    (reify Model
      (name [_] (.getSimpleName (class m)))
      (initialState [_] m)
      (step [_ state op]
        (let [s (model/step state (step-op op))]
          (if (model/inconsistent? s)
            (Step/inconsistent ^String (str (:msg s)))
            (Step/next s))))
      (isReadOnly [_ op] (read-only? m (step-op op))))))

;; ---------------------------------------------------------------------------------------------
;; Knossos' configuration sets: a configuration is a model, the pending calls ([process
;; invocation-position] -> invocation position, sorted by process as Knossos lists them) and the
;; invocation positions of calls linearized but not yet returned; `last` (which op was linearized
;; last, and how) rides along without being part of its identity, as in Knossos. Calls are keyed
;; by their invocation, not only their process: a process whose call crashed may invoke again
;; (an :info closes the invocation), and its crashed call stays pending beside the new one.

(defn- budget-stepper
  "A model step that counts against the budget and the deadline: throws ::over when either is
  spent."
  [^objects steps deadline]
  (let [left (volatile! *configuration-budget*)]
    (fn [m pos]
      (when (neg? (vswap! left dec))
        (throw (ex-info "configuration budget spent" {::over :budget})))
      (when (and deadline (zero? (bit-and @left 1023)) (> (System/nanoTime) deadline))
        (throw (ex-info "time limit" {::over :timeout})))
      (model/step m (aget steps (int pos))))))

(defn- jit-configs
  "Every configuration reachable from `config` by linearizing pending calls other than `call`
  (the [process invocation] completing), each once; `seen` prunes configurations already
  explored in this step."
  [step ^HashSet seen [m calls rets :as config] last call acc]
  (if-not (.add seen config)
    acc
    (reduce-kv (fn [acc q pos]
                 (if (= q call)
                   acc
                   (let [m' (step m pos)]
                     (if (model/inconsistent? m')
                       acc
                       (jit-configs step seen [m' (dissoc calls q) (conj rets pos)] [:invoke pos] call acc)))))
               (conj acc [config last])
               calls)))

(defn- step-ok
  "The configurations after the :ok of process `p` (invocation at `inv`, completion at `pos`)."
  [step configs p inv pos]
  (let [seen (HashSet.)
        out (LinkedHashMap.)]
    (doseq [[[m calls rets :as config] last] configs]
      (cond
        (contains? rets inv) (.putIfAbsent out [m calls (disj rets inv)] last)
        (contains? calls [p inv])
        (doseq [[[m calls rets] _] (jit-configs step seen config last [p inv] [])]
          (let [m' (step m inv)]
            (when-not (model/inconsistent? m')
              (.putIfAbsent out [m' (dissoc calls [p inv]) rets] [:ok pos]))))))
    (vec out)))

(defn configurations
  "Runs the configuration pass over a prepared history from model `m`. Returns {:configs [[config
  last] ...]} after the whole history, or {:failed [ok-pos pid inv-pos] :configs ...} with the
  configurations just before the first :ok no configuration could linearize; nil when the budget
  ran out. Throws ex-info with ::over :timeout past `deadline` (System/nanoTime, or nil)."
  [{:keys [events ^objects steps]} m deadline]
  (let [step (budget-stepper steps deadline)]
    (try
      (loop [configs [[[m (sorted-map) #{}] nil]], [e & more :as es] (seq events)]
        (if-not es
          {:configs configs}
          (let [[t pos pid inv] e]
            (if (= :invoke t)
              (recur (mapv (fn [[[m calls rets] last]] [[m (assoc calls [pid pos] pos) rets] last]) configs) more)
              (let [configs' (step-ok step configs pid inv pos)]
                (if (empty? configs')
                  {:failed [pos pid inv] :configs configs}
                  (recur configs' more)))))))
      (catch clojure.lang.ExceptionInfo e
        (if (= :budget (::over (ex-data e))) nil (throw e))))))

(defn- render-last
  "A configuration's last linearized op, `how` it was linearized: at its own :ok (pos is the
  :ok's position), or before another op's :ok (pos is its invocation's). Knossos' linear shows
  the op it linearized (that :ok, or the invocation), its wgl the op's completion."
  [prepared analyzer [how pos]]
  (when pos
    (cond (= :ok how) (render prepared pos false)
          (= :wgl analyzer) (render-completion prepared pos)
          :else (render prepared pos true))))

(defn- config-map
  "A configuration as Knossos' :configs show it."
  [prepared [[m calls _] last]]
  {:model m
   :last-op (render-last prepared :linear last)
   :pending (mapv #(render prepared % true) (vals calls))})

(defn- final-paths
  "Knossos' :final-paths from configurations `configs` for the failing :ok [ok-pos pid inv-pos]:
  from each configuration, every order of its pending calls (other than the failing process's)
  followed by the failing op, each path cut at its first inconsistent model. Enumerated as a tree
  (a path ends where its model becomes inconsistent, so orders sharing a cut prefix are one path;
  every node adds a path, so the walk stops with the paths); at most *final-paths-limit* paths."
  [{:keys [^objects steps] :as prepared} analyzer configs [ok-pos pid inv-pos]]
  (let [step (fn [m pos] (model/step m (aget steps (int pos))))
        paths (volatile! #{})
        full? #(>= (count @paths) *final-paths-limit*)
        shown (fn [pos] (if (= :wgl analyzer) (render-completion prepared pos) (render prepared pos true)))
        final (render prepared ok-pos false)
        emit! (fn [path] (when-not (full?) (vswap! paths conj path)))]
    (doseq [[[m calls _] last] configs
            :let [start (if-let [o (render-last prepared analyzer last)] [{:op o :model m}] [])]]
      (letfn [(walk [m path pending]
                (when-not (full?)
                  (emit! (conj path {:op final :model (step m inv-pos)}))
                  (doseq [[q pos] pending]
                    (let [m' (step m pos)
                          path' (conj path {:op (shown pos) :model m'})]
                      (if (model/inconsistent? m')
                        (emit! path')
                        (walk m' path' (dissoc pending q)))))))]
        (walk m start (dissoc calls [pid inv-pos]))))
    @paths))

;; ---------------------------------------------------------------------------------------------
;; Results in Knossos' shape

(defn- previous-ok
  "The last :ok before position `end`."
  [{:keys [ops] :as prepared} end]
  (some->> (range (dec end) -1 -1) (filter #(= :ok (:type (nth ops %)))) first (#(render prepared % false))))

(defn- invalid-shape
  "The invalid result's keys for `analyzer` from configurations at the failing :ok `failed`."
  [prepared analyzer configs failed]
  (let [[ok-pos] failed
        paths (final-paths prepared analyzer configs failed)
        base {:valid? false
              :op (render prepared ok-pos false)
              :previous-ok (previous-ok prepared ok-pos)
              :final-paths paths}]
    (if (= :wgl analyzer)
      base
      (assoc base
             :configs (mapv #(config-map prepared %) configs)
             ;; Knossos: the latest of the configurations' last ops
             :last-op (some->> configs (keep second) seq (apply max-key second)
                               (render-last prepared :linear))))))

(defn- prefix-configs
  "Configurations standing in for Knossos' at the failing op of partkit's evidence, when the
  configuration pass ran out of budget: per longest prefix, its state, its last op, and the
  operations open at the failing :ok that it did not linearize."
  [{:keys [events] :as prepared} ^Evidence e]
  (let [ok-pos (.index (.op e))
        open (reduce (fn [open [t pos pid inv]]
                       (cond (> pos ok-pos) (reduced open)
                             (= :invoke t) (assoc open [pid pos] pos)
                             (= pos ok-pos) open
                             :else (dissoc open [pid inv])))
                     (sorted-map) events)
        failing (some (fn [[t pos pid inv]] (when (and (= :ok t) (= pos ok-pos)) [ok-pos pid inv])) events)]
    {:failed failing
     :configs (vec (for [^Prefix p (.longestPrefixes e)
                         :let [lin (into #{} (map #(.index ^Op %)) (.ops p))
                               lin (into lin (keep (fn [[t pos _ inv]] (when (and (= :ok t) (lin pos)) inv))) events)
                               last (some-> (.ops p) seq last (#(.index ^Op %)))]]
                     [[(.state p) (into (sorted-map) (remove (fn [[_ pos]] (lin pos))) open) #{}]
                      (when last [(if (= :ok (:type (nth (:ops prepared) last))) :ok :invoke) last])]))}))

(defn- invalid-result
  "The invalid result from the configuration pass, or from partkit's evidence when the pass ran
  out of budget."
  [prepared analyzer m ^KeyResult k deadline]
  (let [pass (configurations prepared m deadline)
        {:keys [failed configs]} (if (:failed pass) pass (prefix-configs prepared (.evidence k)))]
    (invalid-shape prepared analyzer configs failed)))

(defn- final-model
  "The model after partkit's linearization."
  [{:keys [^objects steps]} m ^KeyResult k]
  (reduce (fn [s ^Op op] (model/step s (aget steps (int (.index op))))) m (.linearization k)))

(defn- linear-valid-configs
  "knossos.linear's valid :configs: every final configuration, or when the pass runs out of
  budget, the one partkit's linearization ends in."
  [prepared m ^KeyResult k deadline]
  (if-let [{:keys [configs]} (configurations prepared m deadline)]
    (mapv #(config-map prepared %) configs)
    (let [{:keys [^objects done ops]} prepared
          lin (.linearization k)
          final (final-model prepared m k)
          taken (into #{} (map #(.index ^Op %)) lin)
          crashed (->> (range (count ops))
                       (filter #(and (= :invoke (:type (nth ops %))) (not (taken %))
                                     (let [d (aget done (int %))] (or (nil? d) (= :info (:type (nth ops d))))))))]
      [{:model final
        :last-op (some->> lin seq last (#(.index ^Op %)) (#(render prepared % false)))
        :pending (mapv #(render prepared % true) (sort-by #(:process (nth ops %)) crashed))}])))

(def nil-history-cause
  "Why a nil history gets no verdict: it is no history at all, which the command line rejects as
  bad input (exit 3) for a file holding none, and partkit.checker answers the same way. An empty
  history is valid, as in Knossos: nothing happened, so nothing was wrong."
  "malformed history: no history (nil)")

(def ^:private timeout {:valid? :unknown :cause :timeout})

(defn- unknown-result
  "Knossos names the causes :timeout and :out-of-memory; partkit's own words are kept as
  :message."
  [^Analysis a]
  (let [cause (str (.cause a))]
    {:valid? :unknown
     :cause (cond (re-find #"time limit" cause) :timeout
                  (re-find #"memory" cause) :out-of-memory
                  :else cause)
     :message cause}))

(defn- result
  "The result for `analyzer`: :linear and :wgl as Knossos' linear and wgl analyses shape theirs,
  :competition as Knossos' competition returns them (wgl's shape when valid, linear's when
  invalid: either analysis may win Knossos' race)."
  [analyzer m history deadline]
  (let [prepared (prepare history)
        h (Histories/fromMaps "history" (:checked prepared))
        remaining (when deadline (- deadline (System/nanoTime)))
        o (cond-> (CheckOptions/defaults)
            remaining (.withTimeLimit (Duration/ofNanos (max 1 remaining))))]
    (if (and remaining (<= remaining 0))
      timeout
      (let [^Analysis a (Linearizability/check (adapter m (:steps prepared)) h o)
            ^KeyResult k (first (.keys a))
            verdict (.verdict a)]
        (cond
          (= verdict Verdict/VALID)
          (cond (nil? k) (if (= :linear analyzer)
                           {:valid? true :configs [{:model m :last-op nil :pending []}]}
                           {:valid? true :model m})
                (= :linear analyzer) {:valid? true :configs (linear-valid-configs prepared m k deadline)}
                :else {:valid? true :model (final-model prepared m k)})
          (= verdict Verdict/INVALID)
          (invalid-result prepared (if (= :wgl analyzer) :wgl :linear) m k deadline)
          :else (unknown-result a))))))

(defn analysis
  "Checks `history` against the Knossos model `m` with partkit's search, the result shaped as
  Knossos' `analyzer` (:linear, :wgl or :competition) shapes it. Options: {:time-limit ms}: no
  answer within that time (the preparation and the evidence included) is {:valid? :unknown
  :cause :timeout}, as in Knossos; nil means no limit."
  [analyzer m history opts]
  (let [limit (:time-limit opts)
        start (System/nanoTime)
        ;; nil: no limit, also for one too long to express in nanoseconds (Knossos' tests pass
        ;; 999999999999999 ms); primitive longs, so that the long overloads are called
        deadline (when limit
                   (try (Math/addExact (long start) (Math/multiplyExact (long limit) 1000000))
                        (catch ArithmeticException _ nil)))
        tag (fn [r] (if (= :competition analyzer) r (assoc r :analyzer analyzer)))]
    (tag
      (cond
        (nil? history) {:valid? :unknown :cause nil-history-cause}
        (empty? history) (if (= :linear analyzer) {:valid? true :configs []} {:valid? true :model m})
        :else
        (try
          (let [r (result analyzer m history deadline)]
            (if (and deadline (> (System/nanoTime) deadline)) timeout r))
          (catch clojure.lang.ExceptionInfo e
            (if (= :timeout (::over (ex-data e))) timeout (throw e)))
          (catch HistoryParseException e
            {:valid? :unknown :cause (str "malformed history: " (.getMessage e))})
          (catch InvalidHistoryException e
            {:valid? :unknown :cause (.getMessage e) :problems (vec (.problems e))}))))))
