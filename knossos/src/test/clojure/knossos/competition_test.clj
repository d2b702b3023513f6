(ns knossos.competition-test
  "Knossos-style tests of the drop-in: histories as vectors of op maps, as a Jepsen test passes
  them, checked with the built-in models."
  (:require [clojure.test :refer [deftest is testing]]
            [knossos.model :as model]
            [knossos.competition :as competition]
            [knossos.linear :as linear]
            [knossos.wgl :as wgl]))

(def rethink-fail-minimal
  "Knossos README's minimal failing case: a read of a value no write wrote."
  [{:type :invoke, :f :write, :value 0, :process 0}
   {:type :ok, :f :write, :value 0, :process 0}
   {:type :invoke, :f :read, :value nil, :process 1}
   {:type :invoke, :f :write, :value 4, :process 2}
   {:type :ok, :f :read, :value 3, :process 1}
   {:type :ok, :f :write, :value 4, :process 2}
   {:type :invoke, :f :read, :value nil, :process 3}
   {:type :ok, :f :read, :value 4, :process 3}])

(deftest crashed-write-linearized-before-a-read
  (let [h [{:process 0, :type :invoke, :f :read, :value nil}
           {:process 1, :type :invoke, :f :write, :value 3}
           {:process 1, :type :info, :f :write, :value 3}
           {:process 0, :type :ok, :f :read, :value 3}]
        a (competition/analysis (model/cas-register 0) h)]
    (is (true? (:valid? a)))
    (is (= (model/cas-register 3) (:model a)) "the final state is the model after the linearization")
    (is (not (contains? a :analyzer)) "Knossos' competition names no analyzer")))

(deftest invalid-read-names-the-op-and-the-previous-ok
  (doseq [analysis [competition/analysis linear/analysis wgl/analysis]]
    (let [a (analysis (model/cas-register) rethink-fail-minimal)]
      (is (false? (:valid? a)))
      (is (= {:type :ok, :f :read, :value 3, :process 1, :index 4} (:op a)))
      (is (= {:type :ok, :f :write, :value 0, :process 0, :index 1} (:previous-ok a)))
      (is (set? (:final-paths a)))
      (is (seq (:final-paths a)))
      (doseq [path (:final-paths a)]
        (is (= (:op a) (:op (peek path))) "every path ends with the op that could not be linearized")
        (is (model/inconsistent? (:model (peek path))))
        (is (re-find #"can't read 3" (str (:model (peek path))))))
      (is (= (= analysis wgl/analysis) (not (contains? a :configs))) "Knossos' wgl gives no :configs")
      (doseq [c (:configs a)]
        (is (contains? #{(model/cas-register 0) (model/cas-register 4)} (:model c)))
        (is (some #(= 1 (:process %)) (:pending c)) "the unlinearized read is pending")))))

(deftest analyzer-names-the-namespace
  (is (= :linear (:analyzer (linear/analysis (model/register 0) [{:process 0 :type :invoke :f :read :value nil}
                                                                 {:process 0 :type :ok :f :read :value 0}]))))
  (is (= :wgl (:analyzer (wgl/analysis (model/register 0) [{:process 0 :type :invoke :f :read :value nil}
                                                             {:process 0 :type :ok :f :read :value 0}])))))

(deftest nil-reads-are-wildcards
  (testing "Knossos: an :ok read of nil constrains nothing in register, cas-register and multi-register"
    (is (true? (:valid? (competition/analysis (model/register 5)
                                              [{:process 0 :type :invoke :f :read :value nil}
                                               {:process 0 :type :ok :f :read :value nil}]))))
    (is (true? (:valid? (competition/analysis (model/cas-register 1)
                                              [{:process 0 :type :invoke :f :write :value 2}
                                               {:process 0 :type :ok :f :write :value 2}
                                               {:process 1 :type :invoke :f :read :value nil}
                                               {:process 1 :type :ok :f :read :value nil}
                                               {:process 1 :type :invoke :f :cas :value [2 3]}
                                               {:process 1 :type :ok :f :cas :value [2 3]}]))))
    (is (true? (:valid? (competition/analysis (model/multi-register {:x 1})
                                              [{:process 0 :type :invoke :f :txn :value [[:read :x nil] [:read :y nil]]}
                                               {:process 0 :type :ok :f :txn :value [[:read :x nil] [:read :y nil]]}])))))
  (testing "a read of a value is still checked"
    (is (false? (:valid? (competition/analysis (model/register 5)
                                               [{:process 0 :type :invoke :f :read :value nil}
                                                {:process 0 :type :ok :f :read :value 4}]))))))

(deftest failed-ops-did-not-happen
  (is (false? (:valid? (competition/analysis (model/cas-register 0)
                                             [{:process 0 :type :invoke :f :write :value 1}
                                              {:process 0 :type :fail :f :write :value 1}
                                              {:process 1 :type :invoke :f :read :value nil}
                                              {:process 1 :type :ok :f :read :value 1}])))))

(deftest cas-register
  (let [m (model/cas-register 0)]
    (is (true? (:valid? (competition/analysis m [{:process 0 :type :invoke :f :cas :value [0 1]}
                                                 {:process 1 :type :invoke :f :cas :value [1 2]}
                                                 {:process 1 :type :ok :f :cas :value [1 2]}
                                                 {:process 0 :type :ok :f :cas :value [0 1]}]))))
    (is (false? (:valid? (competition/analysis m [{:process 0 :type :invoke :f :cas :value [1 2]}
                                                  {:process 0 :type :ok :f :cas :value [1 2]}]))))))

(deftest mutex
  (is (true? (:valid? (competition/analysis (model/mutex)
                                            [{:process 0 :type :invoke :f :acquire :value nil}
                                             {:process 0 :type :ok :f :acquire :value nil}
                                             {:process 1 :type :invoke :f :acquire :value nil}
                                             {:process 0 :type :invoke :f :release :value nil}
                                             {:process 0 :type :ok :f :release :value nil}
                                             {:process 1 :type :ok :f :acquire :value nil}]))))
  (let [a (competition/analysis (model/mutex)
                                [{:process 0 :type :invoke :f :acquire :value nil}
                                 {:process 0 :type :ok :f :acquire :value nil}
                                 {:process 1 :type :invoke :f :acquire :value nil}
                                 {:process 1 :type :ok :f :acquire :value nil}])]
    (is (false? (:valid? a)))
    (is (= 1 (:process (:op a))))))

(deftest set-and-queues
  (is (true? (:valid? (competition/analysis (model/set)
                                            [{:process 0 :type :invoke :f :add :value 1}
                                             {:process 0 :type :ok :f :add :value 1}
                                             {:process 1 :type :invoke :f :read :value nil}
                                             {:process 1 :type :ok :f :read :value #{1}}]))))
  (is (false? (:valid? (competition/analysis (model/set)
                                             [{:process 1 :type :invoke :f :read :value nil}
                                              {:process 1 :type :ok :f :read :value #{1}}]))))
  (is (true? (:valid? (competition/analysis (model/fifo-queue)
                                            [{:process 0 :type :invoke :f :enqueue :value 1}
                                             {:process 0 :type :ok :f :enqueue :value 1}
                                             {:process 0 :type :invoke :f :enqueue :value 2}
                                             {:process 0 :type :ok :f :enqueue :value 2}
                                             {:process 1 :type :invoke :f :dequeue :value nil}
                                             {:process 1 :type :ok :f :dequeue :value 1}]))))
  (is (false? (:valid? (competition/analysis (model/fifo-queue)
                                             [{:process 0 :type :invoke :f :enqueue :value 1}
                                              {:process 0 :type :ok :f :enqueue :value 1}
                                              {:process 0 :type :invoke :f :enqueue :value 2}
                                              {:process 0 :type :ok :f :enqueue :value 2}
                                              {:process 1 :type :invoke :f :dequeue :value nil}
                                              {:process 1 :type :ok :f :dequeue :value 2}]))))
  (is (true? (:valid? (competition/analysis (model/unordered-queue)
                                            [{:process 0 :type :invoke :f :enqueue :value 1}
                                             {:process 0 :type :ok :f :enqueue :value 1}
                                             {:process 0 :type :invoke :f :enqueue :value 2}
                                             {:process 0 :type :ok :f :enqueue :value 2}
                                             {:process 1 :type :invoke :f :dequeue :value nil}
                                             {:process 1 :type :ok :f :dequeue :value 2}]))))
  (is (false? (:valid? (competition/analysis (model/unordered-queue)
                                             [{:process 1 :type :invoke :f :dequeue :value nil}
                                              {:process 1 :type :ok :f :dequeue :value 2}])))))

(deftest keywords-stay-keywords
  (testing "values reach the model as written: :a is not \"a\""
    (is (true? (:valid? (competition/analysis (model/register :a)
                                              [{:process 0 :type :invoke :f :read :value nil}
                                               {:process 0 :type :ok :f :read :value :a}]))))
    (is (false? (:valid? (competition/analysis (model/register :a)
                                               [{:process 0 :type :invoke :f :read :value nil}
                                                {:process 0 :type :ok :f :read :value "a"}]))))))

(deftest nemesis-and-jepsen-indices
  (let [a (competition/analysis (model/register 0)
                                [{:index 10 :process :nemesis :type :info :f :start :value nil}
                                 {:index 11 :process 0 :type :invoke :f :write :value 1}
                                 {:index 12 :process :nemesis :type :info :f :start :value [:n1 :n2]}
                                 {:index 13 :process 0 :type :ok :f :write :value 1}
                                 {:index 14 :process 1 :type :invoke :f :read :value nil}
                                 {:index 15 :process 1 :type :ok :f :read :value 0}])]
    (is (false? (:valid? a)))
    (is (= 15 (:index (:op a))) "ops come back as they were given, with their own :index")
    (is (= 13 (:index (:previous-ok a))))))

(deftest time-limit-gives-unknown
  (let [writes (mapcat (fn [p] [{:process p :type :invoke :f :write :value p}]) (range 40))
        h (concat writes [{:process 100 :type :invoke :f :read :value nil}
                          {:process 100 :type :ok :f :read :value 99}])
        a (competition/analysis (model/register 0) h {:time-limit 1})]
    (is (contains? #{:unknown false} (:valid? a)))
    (when (= :unknown (:valid? a))
      (is (= {:valid? :unknown :cause :timeout} a)))))

(deftest an-empty-history-is-valid-and-a-nil-history-is-bad-input-as-on-the-command-line
  (doseq [h [[] '()]]
    (is (true? (:valid? (competition/analysis (model/cas-register) h)))))
  (let [a (competition/analysis (model/cas-register) nil)]
    (is (= :unknown (:valid? a)))
    (is (re-find #"no history \(nil\)" (:cause a)))))

(deftest malformed-histories-are-reported
  (let [a (competition/analysis (model/register) [{:process 0 :type :invoke :f :read :value nil}
                                                  {:process 0 :type :invoke :f :read :value nil}])]
    (is (= :unknown (:valid? a)))
    (is (string? (:cause a)))))

(deftest the-readme-example
  ;; README.md's "Swapping Knossos out of a Jepsen test" shows this call and these keys
  (let [a (competition/analysis (model/cas-register 0)
            [{:process 0 :type :invoke :f :write :value 0} {:process 0 :type :ok :f :write :value 0}
             {:process 1 :type :invoke :f :read :value nil} {:process 1 :type :ok :f :read :value 3}])]
    (is (false? (:valid? a)))
    (is (= {:process 1, :type :ok, :f :read, :value 3, :index 3} (:op a)))
    (is (= {:process 0, :type :ok, :f :write, :value 0, :index 1} (:previous-ok a)))
    (is (seq (:final-paths a)))
    (is (vector? (:configs a)))))
