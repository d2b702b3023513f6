(ns knossos.linear
  "Knossos' linear (configuration-set) search. partkit answers it with its WGL search: the
  verdict of a linearizability check does not depend on the algorithm, and the result keys are
  the same; :analyzer says :linear so callers that dispatch on it keep working."
  (:require [partkit.knossos :as pk]))

(defn analysis
  "Checks `history` against `model`; the result is shaped as knossos.competition/analysis's.
  Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :linear model history opts)))
