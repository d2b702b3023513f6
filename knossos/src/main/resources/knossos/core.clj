(ns knossos.core
  "Knossos' older entry point, kept by Knossos for code written before knossos.competition:
  operation constructors and predicates under their old names, and `analysis`."
  (:require [knossos.op :as op]
            [knossos.competition :as competition]))

(def op "See knossos.op/op." op/op)
(def invoke-op "See knossos.op/invoke." op/invoke)
(def ok-op "See knossos.op/ok." op/ok)
(def fail-op "See knossos.op/fail." op/fail)
(def invoke? "See knossos.op/invoke?." op/invoke?)
(def ok? "See knossos.op/ok?." op/ok?)
(def fail? "See knossos.op/fail?." op/fail?)

(defn analysis
  "knossos.competition/analysis under its old name."
  ([model history] (analysis model history {}))
  ([model history opts] (competition/analysis model history opts)))
