(ns knossos.model-test
  "The models step as Knossos' do, and a custom defrecord model runs on the checker."
  (:require [clojure.test :refer [deftest is testing]]
            [knossos.model :as model :refer [inconsistent]]
            [knossos.competition :as competition])
  (:import (knossos.model Model)))

(deftest built-in-steps
  (is (= (model/register 2) (model/step (model/register 1) {:f :write :value 2})))
  (is (model/inconsistent? (model/step (model/register 1) {:f :read :value 2})))
  (is (= (model/register 1) (model/step (model/register 1) {:f :read :value nil})))
  (is (= (model/cas-register 3) (model/step (model/cas-register 2) {:f :cas :value [2 3]})))
  (is (model/inconsistent? (model/step (model/cas-register 2) {:f :cas :value [1 3]})))
  (is (model/inconsistent? (model/step (model/mutex) {:f :release})))
  (is (model/inconsistent? (model/step (model/fifo-queue) {:f :dequeue :value nil}))
      "Knossos: a dequeue from an empty queue is inconsistent")
  (is (= (model/multi-register {:x 1 :y 2})
         (model/step (model/multi-register {:x 0}) {:f :txn :value [[:write :x 1] [:read :x 1] [:write :y 2]]})))
  (is (model/inconsistent? (model/step (model/multi-register {:x 0}) {:f :txn :value [[:read :x 1]]})))
  (is (= model/noop (model/step model/noop {:f :anything})))
  (is (model/inconsistent? (model/step (model/inconsistent "x") {:f :write :value 1}))
      "an inconsistent model stays inconsistent")
  (is (= "x" (str (model/inconsistent "x")))))

(defrecord Counter [n]
  Model
  (step [this op]
    (case (:f op)
      :inc (Counter. (inc n))
      :read (if (= n (:value op))
              this
              (inconsistent (str "read " (pr-str (:value op)) " but counter is " n))))))

(deftest custom-models
  (let [ok (competition/analysis (->Counter 0)
                                 [{:process 0 :type :invoke :f :inc :value nil}
                                  {:process 1 :type :invoke :f :read :value nil}
                                  {:process 1 :type :ok :f :read :value 1}
                                  {:process 0 :type :ok :f :inc :value nil}])]
    (is (true? (:valid? ok)))
    (is (= (->Counter 1) (:model ok)))
    (is (re-find #"Counter" (pr-str (:model ok))) "the result shows the custom model's name"))
  (let [bad (competition/analysis (->Counter 0)
                                  [{:process 0 :type :invoke :f :inc :value nil}
                                   {:process 0 :type :ok :f :inc :value nil}
                                   {:process 1 :type :invoke :f :read :value nil}
                                   {:process 1 :type :ok :f :read :value 0}])]
    (is (false? (:valid? bad)))
    (is (= {:process 1 :type :ok :f :read :value 0 :index 3} (:op bad)))
    (is (= :inc (:f (:previous-ok bad))))
    (is (= #{[{:op {:process 0 :type :ok :f :inc :value nil :index 1} :model (->Counter 1)}
              {:op {:process 1 :type :ok :f :read :value 0 :index 3} :model (inconsistent "read 0 but counter is 1")}]}
           (:final-paths bad)))))

(defrecord Tagged [tags]
  Model
  (step [this op]
    (if (keyword? (:value op))
      (Tagged. (conj tags (:value op)))
      (inconsistent (str "not a keyword: " (pr-str (:value op)))))))

(deftest custom-models-see-the-ops-knossos-gives-them
  (testing "the model steps with the invocation, :type :invoke, its :value filled in from the :ok"
    (let [seen (atom [])
          m (reify Model (step [this op] (swap! seen conj op) this))]
      (is (true? (:valid? (competition/analysis m [{:process 0 :type :invoke :f :read :value nil :extra :kept}
                                                   {:process 0 :type :ok :f :read :value :v}]))))
      (is (some #(= {:process 0 :type :invoke :f :read :value :v :extra :kept} %) @seen))))
  (testing "values are not normalised: keywords stay keywords, any type is allowed"
    (is (true? (:valid? (competition/analysis (->Tagged #{})
                                              [{:process 0 :type :invoke :f :tag :value :x}
                                               {:process 0 :type :ok :f :tag :value :x}
                                               {:process 0 :type :invoke :f :note :value nil}
                                               {:process 0 :type :info :f :note :value (java.util.Date.)}]))))))
