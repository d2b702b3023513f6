;; Runs clojure.test namespaces with a Leiningen-style selector and prints one row per namespace.
;; Usage (from a Knossos checkout, with partkit-knossos and the checkout's test/ and data/ on the
;; class path): java -cp ... clojure.main run_suite.clj SELECTOR NS...
;; SELECTOR: default (tests without ^:perf, as Knossos' project.clj's :default), perf, or all.
;; Tests taking 5 s or more are named on stderr ("slow: ...").
;; Exit status 0 when every namespace loaded and every selected test passed, else 1.
(require 'clojure.test)

(defn selected? [selector v]
  (case selector
    "default" (not (:perf (meta v)))
    "perf" (boolean (:perf (meta v)))
    "all" true))

(defn run-ns [selector ns-name]
  (let [start (System/nanoTime)
        row (fn [m] (assoc m :ns ns-name :seconds (/ (- (System/nanoTime) start) 1e9)))]
    (try
      (require (symbol ns-name))
      (let [vars (->> (ns-interns (symbol ns-name)) vals
                      (filter #(:test (meta %)))
                      (filter #(selected? selector %))
                      (sort-by #(:line (meta %))))
            counters (ref clojure.test/*initial-report-counters*)]
        (binding [clojure.test/*report-counters* counters]
          (doseq [v vars] ; one at a time, to report the slow ones
            (let [t0 (System/nanoTime)]
              (clojure.test/test-vars [v])
              (let [s (/ (- (System/nanoTime) t0) 1e9)]
                (when (>= s 5) (binding [*out* *err*] (println (format "slow: %s %.1f s" v s))))))))
        (row (assoc @counters :tests (count vars) :status :ran)))
      (catch Throwable t
        (row {:status :load-error :error (str (.getName (class t)) ": " (.getMessage t))})))))

(let [[selector & nss] *command-line-args*
      rows (mapv #(run-ns selector %) nss)
      ok? (every? #(and (= :ran (:status %)) (zero? (:fail % 0)) (zero? (:error % 0))) rows)]
  (println)
  (println (format "selector: %s" selector))
  (println "| namespace | loads | tests | assertions | failures | errors | seconds |")
  (println "|---|---|---|---|---|---|---|")
  (doseq [{:keys [ns status tests pass fail error seconds] :as r} rows]
    (println (format "| %s | %s | %s | %s | %s | %s | %.1f |" ns
                     (if (= :ran status) "yes" (str "no: " (:error r)))
                     (or tests "-") (if pass (+ pass fail error) "-") (or fail "-") (or error "-")
                     (double seconds))))
  (shutdown-agents)
  (System/exit (if ok? 0 1)))
