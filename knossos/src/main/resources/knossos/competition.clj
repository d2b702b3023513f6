(ns knossos.competition
  "Knossos' recommended entry point. Knossos races its linear and WGL searches and returns the
  first answer; partkit runs its own just-in-time WGL search once, so the verdict does not depend
  on which finishes first. The result is shaped as Knossos' race can return it: wgl's when valid
  ({:valid? true :model m}), linear's when invalid (:op, :previous-ok, :last-op, :configs,
  :final-paths), {:valid? :unknown :cause :timeout} past the time limit; no :analyzer key."
  (:require [partkit.knossos :as pk]))

(defn analysis
  "Checks `history` (a sequence of op maps or records) against `model` (a knossos.model/Model).
  Options: {:time-limit ms}."
  ([model history] (analysis model history {}))
  ([model history opts] (pk/analysis :competition model history opts)))
