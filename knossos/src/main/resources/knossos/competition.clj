(ns knossos.competition
  "Knossos' recommended entry point. Knossos races its linear and WGL searches; partkit runs its
  own just-in-time WGL search once, so the answer does not depend on which finishes first."
  (:require [partkit.knossos :as pk]))

(defn analysis
  "Checks `history` (a sequence of op maps) against `model` (a knossos.model/Model). Returns a map
  with :valid? true, false or :unknown (with :cause). When false: :op (the :ok operation that
  could not be linearized), :previous-ok, :last-op, :final-paths and :configs.
  Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :wgl model history opts)))
