(ns knossos.linear.report
  "Knossos' picture of an invalid analysis, which jepsen.checker/linearizable writes as
  linear.svg. partkit draws its own picture (io.partkit.verification.report.HtmlReport, as
  `partkit check --html` does): a lane per process, each operation a bar from its invocation to
  its completion, the operation that could not be linearized red, and the linearized ops of the
  shortest final path numbered in their order (the last linearized op, then the pending ops the
  path takes before it fails)."
  (:require [clojure.java.io :as io]
            [knossos.model :as model])
  (:import (io.partkit.verification.history Histories HistoryParseException)
           (io.partkit.verification.report HtmlReport)))

(defn- own-index
  "The :index results give an op: its own integer :index, else its position (as partkit.knossos
  reports them)."
  [i o]
  (let [x (:index o)] (if (integer? x) x i)))

(defn- drawable
  "The op as the picture needs it: process, type, function, value (as text when `text?`), index.
  Processes other than integers are drawn as names (a lane each)."
  [text? i o]
  {:process (let [p (:process o)] (if (integer? p) p (str (if (keyword? p) (name p) p))))
   :type (:type o)
   :f (let [f (:f o)] (if (or (keyword? f) (string? f)) f (pr-str f)))
   :value (if text? (some-> (:value o) pr-str) (:value o))
   :index (own-index i o)})

(defn render-analysis!
  "Writes an SVG picture of `analysis` (an invalid result of knossos.competition, linear or wgl
  analysis of `history`) to `file`, creating its directory. Only invalid analyses have a
  picture: anything else is an IllegalArgumentException, as Knossos refuses it too."
  [history analysis file]
  (when-not (false? (:valid? analysis))
    (throw (IllegalArgumentException.
             (str "render-analysis! draws invalid analyses (:valid? false), not :valid? "
                  (pr-str (:valid? analysis))))))
  (let [h (try (Histories/fromMaps (str file) (map-indexed (partial drawable false) history))
               (catch HistoryParseException _ ; values that are not plain data: drawn as text
                 (Histories/fromMaps (str file) (map-indexed (partial drawable true) history))))
        path (first (sort-by count (:final-paths analysis)))
        ;; the path's steps that linearized (its last step is the inconsistent one)
        numbered (->> path
                      (remove #(model/inconsistent? (:model %)))
                      (keep #(some-> % :op :index))
                      (filter integer?)
                      (mapv long))
        failing (some-> analysis :op :index long)]
    (some-> (io/file file) .getAbsoluteFile .getParentFile .mkdirs)
    (spit file (HtmlReport/svg h failing numbered))
    file))
