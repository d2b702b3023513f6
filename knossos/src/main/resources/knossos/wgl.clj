(ns knossos.wgl
  "Knossos' Wing & Gong / Lowe analysis, answered by partkit's search (the same algorithm). The
  result has Knossos' wgl keys: valid, {:valid? true :model m}; invalid, :op, :previous-ok and
  :final-paths (their ops are completions, as Knossos' wgl shows them); :analyzer :wgl."
  (:require [partkit.knossos :as pk]))

;; Knossos' wgl namespace has an operation type of its own, with an :entry-id, that iterates its
;; fields in this order; a record gives the same.
(defrecord Op [process type f value index entry-id])

(defn analysis
  "Checks `history` against `model`. Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :wgl model history opts)))
