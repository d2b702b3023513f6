(ns knossos.linear
  "Knossos' linear (configuration-set) analysis. partkit decides the verdict with its WGL search
  (the verdict does not depend on the algorithm) and builds the result Knossos' linear analysis
  gives: valid, {:valid? true :configs [...]} with every final configuration; invalid, :op,
  :previous-ok, :last-op, :configs and :final-paths; :analyzer :linear."
  (:require [partkit.knossos :as pk]))

(defn analysis
  "Checks `history` against `model`. Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :linear model history opts)))
