"""scikit-learn's side of the sample-weight oracle (tests/test_weights.cpp).

usage: sklearn_weighted_oracle.py MANIFEST
MANIFEST lines: "DATA.csv WEIGHTS.txt INIT.csv OUT_PREFIX TOL ALGORITHM". Each fits
KMeans(n_clusters=len(INIT), init=INIT, n_init=1, tol=TOL, algorithm=ALGORITHM)
on DATA with sample_weight=WEIGHTS and writes OUT_PREFIX.labels, .centers (17
digits), .inertia and .n_iter.
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
            data_path, weights_path, init_path, out, tol, algorithm = line.split()
            X = np.loadtxt(data_path, delimiter=",", ndmin=2)
            w = np.loadtxt(weights_path, ndmin=1)
            C0 = np.loadtxt(init_path, delimiter=",", ndmin=2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                km = KMeans(n_clusters=C0.shape[0], init=C0, n_init=1, tol=float(tol), max_iter=300,
                            algorithm=algorithm).fit(X, sample_weight=w)
            np.savetxt(out + ".labels", km.labels_, fmt="%d")
            np.savetxt(out + ".centers", km.cluster_centers_, fmt="%.17g", delimiter=",")
            with open(out + ".inertia", "w") as f:
                f.write(f"{km.inertia_:.17g}\n")
            with open(out + ".n_iter", "w") as f:
                f.write(f"{km.n_iter_}\n")


if __name__ == "__main__":
    main(sys.argv[1])
