(ns knossos.wgl
  "Knossos' Wing & Gong / Lowe search, answered by partkit's search (the same algorithm)."
  (:require [partkit.knossos :as pk]))

(defn analysis
  "Checks `history` against `model`; the result is shaped as knossos.competition/analysis's.
  Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :wgl model history opts)))
