(ns knossos.jepsen-test
  "What Jepsen needs of the drop-in: every knossos namespace and var jepsen.checker uses, its
  Linearizable checker's calls on Jepsen's history records, and Knossos' result shapes."
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.java.io :as io]
            [knossos.model :as model]
            [knossos.op :as op]
            [knossos.competition :as competition]
            [knossos.linear :as linear]
            [knossos.wgl :as wgl]
            [knossos.linear.report :as report]
            [partkit.knossos :as pk])
  (:import (knossos.model Model)))

(def jepsen-requires
  "Namespaces jepsen.checker requires (jepsen-io/jepsen, jepsen/src/jepsen/checker.clj, version
  0.3.14-SNAPSHOT, commit c4c7473d, which depends on knossos 0.3.16)."
  '[knossos.model knossos.op knossos.competition knossos.linear knossos.wgl knossos.history
    knossos.linear.report])

(def jepsen-calls
  "Vars of those namespaces that jepsen.checker calls (Linearizable: competition, linear and wgl
  analysis, render-analysis!; queue: step, inconsistent?; linearizable's doc: cas-register) and
  jepsen.tests.linearizable-register (cas-register)."
  '[knossos.competition/analysis knossos.linear/analysis knossos.wgl/analysis
    knossos.linear.report/render-analysis! knossos.model/cas-register knossos.model/step
    knossos.model/inconsistent?])

(deftest every-namespace-and-var-jepsen-uses-resolves
  (doseq [ns jepsen-requires]
    (is (nil? (require ns)) (str ns))
    (is (find-ns ns) (str ns)))
  (doseq [v jepsen-calls]
    (is (some-> (resolve v) deref fn?) (str v " resolves to a function"))))

;; Jepsen's history operations are records with fields index, time, type, process, f, value
;; (jepsen.history.Op); a record of the same shape stands in for them.
(defrecord JepsenOp [index time type process f value])

(defn- jepsen-history [ops]
  (vec (map-indexed (fn [i [p t f v]] (->JepsenOp i (* 1000 i) t p f v)) ops)))

(deftest jepsen-records-with-index-and-time
  (let [h (jepsen-history [[0 :invoke :write 1] [0 :ok :write 1] [:nemesis :info :start nil]
                           [1 :invoke :read nil] [1 :ok :read 2]])]
    (doseq [analysis [competition/analysis linear/analysis wgl/analysis]]
      (let [a (analysis (model/cas-register 0) h)]
        (is (false? (:valid? a)))
        (is (= {:index 4 :time 4000 :type :ok :process 1 :f :read :value 2} (:op a))
            "ops come back as plain maps, with Jepsen's :index and :time")
        (is (map? (:op a)))
        (is (not (record? (:op a))))
        (is (= 1 (:index (:previous-ok a))))
        (is (= #{[{:op {:index 1 :time 1000 :type :ok :process 0 :f :write :value 1}
                   :model (model/cas-register 1)}
                  {:op {:index 4 :time 4000 :type :ok :process 1 :f :read :value 2}
                   :model (model/inconsistent "can't read 2 from register 1")}]}
               (:final-paths a)))))))

(deftest the-linearizable-checker-calls-on-an-invalid-history
  ;; what jepsen.checker's Linearizable does: analyse, draw linear.svg when not valid, keep 10
  (let [h (jepsen-history [[0 :invoke :write 1] [0 :ok :write 1] [1 :invoke :read nil] [1 :ok :read 0]])
        file (io/file (System/getProperty "java.io.tmpdir") (str "partkit-knossos-" (System/nanoTime)) "linear.svg")]
    (try
      (doseq [analysis [competition/analysis linear/analysis wgl/analysis]]
        (let [a (analysis (model/cas-register) h)]
          (is (false? (:valid? a)))
          (report/render-analysis! h a (.getCanonicalPath file))
          (let [svg (slurp file)]
            (is (re-find #"^<\?xml" svg))
            (is (re-find #"<svg xmlns='http://www.w3.org/2000/svg'" svg))
            (is (= 1 (count (re-seq #"class='op bad'" svg))) "the read of 0 is drawn red")
            (is (re-find #"#1 :write 1" svg) "the last linearized op is numbered"))
          (is (<= (count (take 10 (:final-paths a))) 10))))
      (is (thrown? IllegalArgumentException
                   (report/render-analysis! h {:valid? :unknown :cause :timeout} (str file))))
      (finally
        (.delete file)
        (.delete (.getParentFile file))))))

(deftest a-crash-completed-as-another-function-leaves-the-invocation-pending
  ;; Knossos' generated histories complete a crashed operation as (info p :crash nil)
  (doseq [analysis [competition/analysis linear/analysis wgl/analysis]]
    (is (true? (:valid? (analysis (model/cas-register 0) [(op/invoke 0 :write 1) (op/info 0 :crash nil)]))))
    (is (true? (:valid? (analysis (model/cas-register 0) [(op/invoke 0 :write 1) (op/info 0 :crash nil)
                                                          (op/invoke 1 :read nil) (op/ok 1 :read 1)])))
        "the crashed write may have happened")
    (is (false? (:valid? (analysis (model/cas-register 0) [(op/invoke 0 :write 1) (op/info 0 :crash nil)
                                                           (op/invoke 1 :read nil) (op/ok 1 :read 2)]))))))

(deftest a-process-may-invoke-again-after-its-call-crashed
  ;; the :info closes the invocation; the crashed write stays pending beside the new call
  (doseq [analysis [competition/analysis linear/analysis wgl/analysis]]
    (is (true? (:valid? (analysis (model/register 0) [(op/invoke 0 :write 1) (op/info 0 :crash nil)
                                                      (op/invoke 0 :read nil) (op/ok 0 :read 1)]))))
    (let [a (analysis (model/register 0) [(op/invoke 0 :write 1) (op/info 0 :crash nil)
                                          (op/invoke 0 :read nil) (op/ok 0 :read 2)])]
      (is (false? (:valid? a)))
      (is (= #{"0≠2" "1≠2"} (set (map (comp :msg :model peek) (:final-paths a))))
          "the read fails whether the crashed write happened or not"))))

(deftest final-paths-start-at-the-last-linearized-op
  (testing "no leading step when nothing was linearized before the failing op"
    (doseq [analysis [linear/analysis wgl/analysis]]
      (is (= #{[{:op {:process 0 :type :ok :f :read :value 1 :index 1} :model (model/inconsistent "0≠1")}]}
             (:final-paths (analysis (model/register 0) [{:process 0 :type :invoke :f :read :value 1}
                                                         {:process 0 :type :ok :f :read :value 1}]))))))
  (testing "a crashed cas pending beside the failing read: both orders, cut at the inconsistency"
    (let [h [{:process 1 :type :invoke :f :write :value 2} {:process 1 :type :ok :f :write :value 2}
             {:process 77 :type :invoke :f :cas :value [1 1]} {:process 77 :type :info :f :cas :value [1 1]}
             {:process 70 :type :invoke :f :read :value nil} {:process 70 :type :ok :f :read :value 0}]
          write {:process 1 :type :ok :f :write :value 2 :index 1}
          read {:process 70 :type :ok :f :read :value 0 :index 5}
          paths (fn [cas] #{[{:op write :model (model/cas-register 2)}
                             {:op read :model (model/inconsistent "can't read 0 from register 2")}]
                            [{:op write :model (model/cas-register 2)}
                             {:op cas :model (model/inconsistent "can't CAS 2 from 1 to 1")}]})]
      (is (= (paths {:process 77 :type :invoke :f :cas :value [1 1] :index 2})
             (:final-paths (linear/analysis (model/cas-register 0) h)))
          "linear shows the pending invocation")
      (is (= (paths {:process 77 :type :info :f :cas :value [1 1] :index 3})
             (:final-paths (wgl/analysis (model/cas-register 0) h)))
          "wgl shows its completion")
      (is (= [{:model (model/cas-register 2) :last-op write
               :pending [{:process 70 :type :invoke :f :read :value 0 :index 4}
                         {:process 77 :type :invoke :f :cas :value [1 1] :index 2}]}]
             (:configs (linear/analysis (model/cas-register 0) h)))
          "pending calls in process order"))))

(deftest past-the-configuration-budget-the-evidence-comes-from-partkits-prefixes
  (let [h [{:process 1 :type :invoke :f :write :value 2} {:process 1 :type :ok :f :write :value 2}
           {:process 77 :type :invoke :f :cas :value [1 1]} {:process 77 :type :info :f :cas :value [1 1]}
           {:process 70 :type :invoke :f :read :value nil} {:process 70 :type :ok :f :read :value 0}]
        full (linear/analysis (model/cas-register 0) h)]
    (binding [pk/*configuration-budget* 1]
      (doseq [analysis [linear/analysis wgl/analysis competition/analysis]]
        (let [a (analysis (model/cas-register 0) h)]
          (is (false? (:valid? a)))
          (is (= (:op full) (:op a)))
          (is (= (:previous-ok full) (:previous-ok a)))
          (is (seq (:final-paths a)))
          (doseq [path (:final-paths a)]
            (is (= {:process 1 :type :ok :f :write :value 2 :index 1} (:op (first path))))
            (is (model/inconsistent? (:model (peek path))))))))
    (binding [pk/*configuration-budget* 1]
      (is (= (:configs full) (:configs (linear/analysis (model/cas-register 0) h)))
          "here the longest prefix is the one configuration"))))

(deftest result-keys-are-knossos
  (let [bad [{:process 0 :type :invoke :f :read :value 1} {:process 0 :type :ok :f :read :value 1}]
        good [{:process 0 :type :invoke :f :write :value 1} {:process 0 :type :ok :f :write :value 1}]]
    (is (= #{:valid? :op :previous-ok :final-paths :analyzer} (set (keys (wgl/analysis (model/register 0) bad)))))
    (is (= #{:valid? :op :previous-ok :last-op :configs :final-paths :analyzer}
           (set (keys (linear/analysis (model/register 0) bad)))))
    (is (= #{:valid? :op :previous-ok :last-op :configs :final-paths}
           (set (keys (competition/analysis (model/register 0) bad)))))
    (is (= {:valid? true :model (model/register 1) :analyzer :wgl} (wgl/analysis (model/register 0) good)))
    (is (= {:valid? true :model (model/register 1)} (competition/analysis (model/register 0) good)))
    (is (= {:valid? true :analyzer :linear
            :configs [{:model (model/register 1) :pending []
                       :last-op {:process 0 :type :ok :f :write :value 1 :index 1}}]}
           (linear/analysis (model/register 0) good)))))

(deftest linear-gives-every-final-model
  (let [h [{:process 0 :type :invoke :f :write :value 1} {:process 1 :type :invoke :f :write :value 2}
           {:process 0 :type :ok :f :write :value 1} {:process 1 :type :ok :f :write :value 2}]]
    (is (= #{(model/register 1) (model/register 2)}
           (set (map :model (:configs (linear/analysis (model/register 0) h))))))
    (testing "past the configuration budget, the model partkit's linearization ends in"
      (binding [pk/*configuration-budget* 1]
        (let [a (linear/analysis (model/register 0) h)]
          (is (true? (:valid? a)))
          (is (= 1 (count (:configs a))))
          (is (contains? #{(model/register 1) (model/register 2)} (:model (first (:configs a))))))))))

(defrecord Slow [n]
  Model
  (step [this op] (Thread/sleep 5) (->Slow (inc n))))

(deftest time-limits
  (let [h [{:process 0 :type :invoke :f :inc :value nil} {:process 0 :type :ok :f :inc :value nil}
           {:process 0 :type :invoke :f :inc :value nil} {:process 0 :type :ok :f :inc :value nil}]]
    (testing "no answer within the limit is Knossos' timeout: the slow model's steps take 5 ms each"
      (is (= {:valid? :unknown :cause :timeout :analyzer :wgl} (wgl/analysis (->Slow 0) h {:time-limit 1})))
      (is (= {:valid? :unknown :cause :timeout :analyzer :linear} (linear/analysis (->Slow 0) h {:time-limit 1})))
      (is (= {:valid? :unknown :cause :timeout} (competition/analysis (->Slow 0) h {:time-limit 1}))))
    (testing "a limit too long for nanoseconds, or none, is no limit"
      (doseq [opts [{:time-limit 999999999999999} {:time-limit Long/MAX_VALUE} {:time-limit nil} {}]]
        (is (= {:valid? true :model (->Slow 2) :analyzer :wgl} (wgl/analysis (->Slow 0) h opts)) (pr-str opts))))))

(deftest inconsistency-messages-are-knossos
  (is (= "0≠1" (str (model/step (model/register 0) {:f :read :value 1}))))
  (is (= "can't read 3 from register 0" (str (model/step (model/cas-register 0) {:f :read :value 3}))))
  (is (= "can't CAS 2 from 1 to 1" (str (model/step (model/cas-register 2) {:f :cas :value [1 1]}))))
  (is (= "0≠1" (str (model/step (model/multi-register {:x 0}) {:f :txn :value [[:read :x 1]]}))))
  (is (= 2 (:x (model/step (model/multi-register {:x 0}) {:f :txn :value [[:write :x 2]]})))
      "a multi-register's registers are its own keys"))
