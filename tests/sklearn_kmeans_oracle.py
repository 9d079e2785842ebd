"""scikit-learn's Lloyd on given data and initial centroids, for the oracle test.

usage: sklearn_kmeans_oracle.py MANIFEST
MANIFEST lines: "DATA.csv INIT.csv OUT_PREFIX TOL MAX_ITER". For each line this
writes OUT_PREFIX.labels (one per line), OUT_PREFIX.centers (CSV, 17 digits)
and OUT_PREFIX.n_iter.
"""
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans


def main(manifest):
    with open(manifest) as lines:
        for line in lines:
            if not line.strip():
                continue
            data_path, init_path, out, tol, max_iter = line.split()
            X = np.loadtxt(data_path, delimiter=",", ndmin=2)
            C0 = np.loadtxt(init_path, delimiter=",", ndmin=2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                km = KMeans(n_clusters=C0.shape[0], init=C0, n_init=1, tol=float(tol),
                            max_iter=int(max_iter), algorithm="lloyd").fit(X)
            np.savetxt(out + ".labels", km.labels_, fmt="%d")
            np.savetxt(out + ".centers", km.cluster_centers_, fmt="%.17g", delimiter=",")
            with open(out + ".n_iter", "w") as f:
                f.write(f"{km.n_iter_}\n")


if __name__ == "__main__":
    main(sys.argv[1])
