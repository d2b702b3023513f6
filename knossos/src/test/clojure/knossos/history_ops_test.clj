(ns knossos.history-ops-test
  "knossos.op, knossos.history and knossos.core as Knossos' API has them."
  (:require [clojure.test :refer [deftest is testing]]
            [knossos.op :as op]
            [knossos.history :as history]
            [knossos.core :as core]
            [knossos.model :as model]))

(deftest ops
  (is (= -1 (:index (op/op 0 :invoke :read nil))))
  (is (= [:invoke :ok :fail :info] (map :type [(op/invoke 0 :f 1) (op/ok 0 :f 1) (op/fail 0 :f 1) (op/info 0 :f 1)])))
  (is (instance? knossos.op.Op (op/invoke 0 :read nil)))
  (is (= {:process 0 :type :ok :f :read :value 1 :index -1} (op/Op->map (op/ok 0 :read 1))))
  (is (not (record? (op/Op->map (op/ok 0 :read 1)))))
  (is (nil? (op/Op->map nil)))
  (is (op/same-process? (op/invoke 3 :read nil) {:process 3}))
  (is (not (op/same-process? (op/invoke 3 :read nil) (op/invoke :nemesis :start nil))))
  (is (every? true? [(op/invoke? (op/invoke 0 :f 1)) (op/ok? (op/ok 0 :f 1)) (op/fail? (op/fail 0 :f 1))
                     (op/info? (op/info 0 :f 1))])))

(deftest complete
  (is (= [] (history/complete [])))
  (is (= [(op/invoke 0 :read 2) (op/ok 0 :read 2)] (history/complete [(op/invoke 0 :read nil) (op/ok 0 :read 2)])))
  (is (= [(assoc (op/invoke 0 :write 1) :fails? true) (op/fail 0 :write 1)]
         (history/complete [(op/invoke 0 :write 1) (op/fail 0 :write 1)])))
  (is (= [(op/invoke 0 :write 1) (op/info 0 :write 1)] (history/complete [(op/invoke 0 :write 1) (op/info 0 :write 1)])))
  (is (thrown? RuntimeException (history/complete [(op/invoke 0 :read nil) (op/invoke 0 :read nil)])))
  (is (thrown? AssertionError (history/complete [(op/ok 0 :read 1)]))))

(deftest indices
  (let [h [{:process 0 :type :invoke :index 5} {:process 0 :type :ok :index 9}]
        [h' m] (history/kindex h)]
    (is (= [0 1] (map :index h')))
    (is (= 9 (:index (history/convert-op-index m (second h')))))
    (is (nil? (history/convert-op-index m {:process 0}))))
  (is (thrown? IllegalArgumentException (history/kindex [{:index 1} {:index 1}])))
  (is (= 2 (count (first (history/kindex [(op/invoke 0 :read nil) (op/ok 0 :read 1)]))))
      "Knossos' constructed ops all carry -1, which is allowed")
  (is (history/indexed? [(op/invoke 0 :read nil)]))
  (is (not (history/indexed? [{:process 0}])))
  (is (= [0 1] (map :index (history/ensure-indexed [{:process 0} {:process 0}])))))

(deftest pairing
  (let [i1 (op/invoke 1 :write 1), i2 (op/invoke 2 :write 2), i3 (op/invoke 3 :write 3)
        c3 (op/fail 3 :write 3), c2 (op/info 2 :write 2), c1 (op/ok 1 :write 1)
        stray (op/info :nemesis :start nil)
        h [i1 i2 stray i3 c3 c2 c1]]
    (is (= {i1 c1, c1 i1, i2 c2, c2 i2, i3 c3, c3 i3, stray nil} (history/pair-index+ h)))
    (is (= {i1 c1, c1 i1, i3 c3, c3 i3, c2 nil, stray nil} (history/pair-index h))
        "without +, an :info completes nothing")
    (is (= c1 (history/completion (history/pair-index+ h) i1)))
    (is (= i1 (history/invocation (history/pair-index+ h) c1)))
    (is (= [i2] (history/crashed-invokes h)))
    (is (empty? (history/unmatched-invokes h)))
    (is (= [:nemesis 1 2 3] (history/sort-processes (history/processes h))))
    (is (thrown? clojure.lang.ExceptionInfo (doall (history/pairs+ [i1 i1]))))))

(deftest core-aliases
  (is (= (op/invoke 0 :read nil) (core/invoke-op 0 :read nil)))
  (is (true? (:valid? (core/analysis (model/register 0) [(core/invoke-op 0 :write 1) (core/ok-op 0 :write 1)])))))
