#!/usr/bin/env python3
"""scikit-learn oracle for tests/test_scores.cpp.

Usage: scores_oracle.py DIR
DIR/cases.json lists cases: {"name", "n", "d", "points": file of n*d float64
(row-major, little-endian), "labels": file of n int32, "truth": optional file of
n int32}. For each case this writes DIR/<name>.samples (n float64: silhouette_samples)
when the silhouette is defined, and prints one JSON object mapping each case name
to its scores; a score scikit-learn refuses is {"error": message}.
All cases run in one process: importing sklearn costs about a second.
"""
import json
import os
import sys

import numpy as np
from sklearn import metrics


def guarded(function):
    try:
        return float(function())
    except ValueError as error:
        return {"error": str(error)}


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, "cases.json")) as f:
        cases = json.load(f)
    results = {}
    for case in cases:
        n, d = case["n"], case["d"]
        X = np.fromfile(os.path.join(directory, case["points"]), dtype="<f8").reshape(n, d)
        labels = np.fromfile(os.path.join(directory, case["labels"]), dtype="<i4")
        out = {
            "silhouette": guarded(lambda: metrics.silhouette_score(X, labels)),
            "calinski_harabasz": guarded(lambda: metrics.calinski_harabasz_score(X, labels)),
            "davies_bouldin": guarded(lambda: metrics.davies_bouldin_score(X, labels)),
        }
        if not isinstance(out["silhouette"], dict):
            samples = metrics.silhouette_samples(X, labels).astype("<f8")
            samples.tofile(os.path.join(directory, case["name"] + ".samples"))
        # Inertia against the label means (no sklearn function: plain numpy).
        classes, codes = np.unique(labels, return_inverse=True)
        means = np.zeros((len(classes), d))
        np.add.at(means, codes, X)
        means /= np.bincount(codes)[:, None]
        out["inertia"] = float(((X - means[codes]) ** 2).sum())
        if case.get("truth"):
            truth = np.fromfile(os.path.join(directory, case["truth"]), dtype="<i4")
            out["ari"] = float(metrics.adjusted_rand_score(truth, labels))
            out["nmi"] = float(metrics.normalized_mutual_info_score(truth, labels))
        results[case["name"]] = out
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
