(ns partkit.checker-test
  (:require [clojure.test :refer [deftest is testing]]
            [partkit.checker :as pc]))

(defn- invoke [p f v] {:process p :type :invoke :f f :value v})
(defn- ok [p f v] {:process p :type :ok :f f :value v})
(defn- info [p f v] {:process p :type :info :f f :value v})

(deftest valid-cas-register-history
  (let [r (pc/analysis (pc/cas-register 0)
                       [(invoke 0 :write 1) (invoke 1 :read nil) (ok 1 :read 1) (ok 0 :write 1)
                        (invoke 0 :cas [1 2]) (ok 0 :cas [1 2]) (invoke 1 :read nil) (ok 1 :read 2)])]
    (is (true? (:valid? r)))
    (is (= [:write :read :cas :read] (mapv :f (:linearization r))))))

(deftest stale-read-is-invalid-with-knossos-style-evidence
  (let [r (pc/analysis (pc/register 0)
                       [(invoke 0 :write 1) (ok 0 :write 1) (invoke 1 :read nil) (ok 1 :read 0)])]
    (is (false? (:valid? r)))
    (is (= {:process 1 :type :ok :f :read :value 0 :index 3} (:op r)))
    (is (= :write (:f (:previous-ok r))))
    (is (= [[{:op {:process 0 :type :ok :f :write :value 1 :index 1} :model 1}]] (:final-paths r)))
    (is (re-find #"read 0 but the register holds 1" (:message r)))))

(deftest nil-read-is-a-wildcard-as-in-knossos
  (testing "by default an :ok read of nil constrains nothing"
    (is (true? (:valid? (pc/analysis (pc/register 5) [(invoke 0 :read nil) (ok 0 :read nil)]))))
    (is (true? (:valid? (pc/analysis (pc/cas-register 5) [(invoke 0 :read nil) (ok 0 :read nil)]))))
    (is (true? (:valid? (pc/analysis (pc/multi-register {:x 1})
                                     [(invoke 0 :txn [[:read :x nil]]) (ok 0 :txn [[:read :x nil]])])))))
  (testing "with :nil-reads :strict an :ok read of nil means the register held nil"
    (is (false? (:valid? (pc/analysis (pc/register 5 :nil-reads :strict) [(invoke 0 :read nil) (ok 0 :read nil)]))))
    (is (false? (:valid? (pc/analysis (pc/named :cas-register 5 :nil-reads :strict)
                                      [(invoke 0 :read nil) (ok 0 :read nil)]))))
    (is (false? (:valid? (pc/analysis (pc/multi-register {:x 1} :nil-reads :strict)
                                      [(invoke 0 :txn [[:read :x nil]]) (ok 0 :txn [[:read :x nil]])]))))
    (is (true? (:valid? (pc/analysis (pc/register nil :nil-reads :strict) [(invoke 0 :read nil) (ok 0 :read nil)]))))
    (is (thrown? IllegalArgumentException (pc/register 0 :nil-reads :lenient))))
  (testing "an :info read may have returned anything"
    (is (true? (:valid? (pc/analysis (pc/register 5) [(invoke 0 :read nil) (info 0 :read nil)]))))))

(deftest info-may-happen-later-or-never
  (is (true? (:valid? (pc/analysis (pc/register 0)
                                   [(invoke 0 :write 1) (info 0 :write 1)
                                    (invoke 1 :read nil) (ok 1 :read 0)
                                    (invoke 1 :read nil) (ok 1 :read 1)]))))
  (is (= :unknown (:valid? (pc/analysis (pc/register 0) [(invoke 0 :write 1) (invoke 0 :write 1)])))
      "two open invocations on one process: reported, not checked"))

(deftest nemesis-ops-are-ignored
  (is (true? (:valid? (pc/analysis (pc/mutex)
                                   [{:process :nemesis :type :info :f :start :value nil}
                                    (invoke 0 :acquire nil) (ok 0 :acquire nil)
                                    (invoke 1 :release nil) (ok 1 :release nil)])))))

(deftest multi-register-txns
  (let [m (pc/multi-register {:x 0 :y 0})]
    (is (true? (:valid? (pc/analysis m [(invoke 0 :txn [[:write :x 1] [:write :y 2]])
                                        (ok 0 :txn [[:write :x 1] [:write :y 2]])
                                        (invoke 1 :txn [[:read :x nil] [:read :y nil]])
                                        (ok 1 :txn [[:read :x 1] [:read :y 2]])]))))
    (is (false? (:valid? (pc/analysis m [(invoke 0 :txn [[:write :x 1] [:write :y 2]])
                                         (ok 0 :txn [[:write :x 1] [:write :y 2]])
                                         (invoke 1 :txn [[:read :x nil] [:read :y nil]])
                                         (ok 1 :txn [[:read :x 1] [:read :y 0]])]))))))

(deftest keyed-histories-are-checked-per-key
  (let [r (pc/analysis (pc/kv)
                       [{:process 0 :type :invoke :f :append :key "a" :value "x"}
                        {:process 0 :type :ok :f :append :key "a" :value "x"}
                        {:process 1 :type :invoke :f :get :key "b" :value nil}
                        {:process 1 :type :ok :f :get :key "b" :value "x"}])]
    (is (false? (:valid? r)))
    (is (= "b" (:key r)))
    (is (true? (get-in r [:keys "a" :valid?])))))

(deftest custom-models
  (let [counter (pc/model "counter" 0
                          (fn [state {:keys [f value type]}]
                            (case f
                              :inc (inc state)
                              :read (if (or (= type :info) (= value state))
                                       state
                                       (pc/inconsistent (str "read " value " but counter is " state))))))]
    (is (true? (:valid? (pc/analysis counter [(invoke 0 :inc nil) (invoke 1 :read nil)
                                              (ok 1 :read 1) (ok 0 :inc nil)]))))
    (is (false? (:valid? (pc/analysis counter [(invoke 0 :inc nil) (ok 0 :inc nil)
                                               (invoke 1 :read nil) (ok 1 :read 0)]))))
    (testing "marking reads read-only gives the same verdicts"
      (let [fast (pc/model "counter" 0 (fn [state {:keys [f value type]}]
                                         (case f
                                           :inc (inc state)
                                           :read (if (or (= type :info) (= value state))
                                                   state
                                                   (pc/inconsistent "stale"))))
                           :read-only? #(= :read (:f %)))]
        (is (.isReadOnly fast (io.partkit.verification.history.Op/of 0 0 io.partkit.verification.history.OpType/OK "read" nil)))
        (is (true? (:valid? (pc/analysis fast [(invoke 0 :inc nil) (invoke 1 :read nil)
                                               (ok 1 :read 1) (ok 0 :inc nil)]))))
        (is (false? (:valid? (pc/analysis fast [(invoke 0 :inc nil) (ok 0 :inc nil)
                                                (invoke 1 :read nil) (ok 1 :read 0)]))))))))

(deftest time-limit-gives-unknown-never-a-guess
  (let [writes (for [p (range 24)] (invoke p :write p))
        history (concat writes [(invoke 100 :read nil) (ok 100 :read 99)])
        r (pc/analysis (pc/register 0) history {:time-limit 1})]
    (is (contains? #{:unknown false} (:valid? r)))
    (when (= :unknown (:valid? r))
      (is (re-find #"time limit" (:cause r))))))

(deftest named-models
  (is (= "cas-register" (.name (pc/named :cas-register 0))))
  (is (thrown? IllegalArgumentException (pc/named "no-such-model"))))

(deftest custom-model-name-in-result
  (let [counter (pc/model "counter" 0 (fn [state _] state))]
    (is (= "counter" (:model (pc/analysis counter [(invoke 0 :read nil) (ok 0 :read 0)]))))))

(deftest empty-history-is-valid-and-nil-history-is-bad-input
  (is (true? (:valid? (pc/analysis (pc/cas-register 0) []))))
  (let [r (pc/analysis (pc/cas-register 0) nil)]
    (is (= :unknown (:valid? r)))
    (is (re-find #"no history \(nil\)" (:cause r)))))

(deftest independent-histories-are-split-per-key
  (let [h [(invoke 0 :write [1 5]) (ok 0 :write [1 5])
           (invoke 1 :read [2 nil]) (ok 1 :read [2 nil])
           (invoke 1 :read [1 nil]) (ok 1 :read [1 5])]
        r (pc/analysis (pc/cas-register nil :nil-reads :strict) h)]
    (is (true? (:valid? r)))
    (is (= #{1 2} (set (keys (:keys r)))))
    (is (false? (:valid? (pc/analysis (pc/cas-register nil :nil-reads :strict) h {:independent false}))))))
