"""scikit-learn's side of the n_init and predict oracle (tests/test_sklearn_fit.cpp).

usage: sklearn_fit_oracle.py MANIFEST
MANIFEST lines: "DATA.csv QUERY.csv OUT_PREFIX TOL INIT_0.csv INIT_1.csv ...". For each line,
every KMeans(n_init=1, init=INIT_r, algorithm="lloyd") is fitted on DATA; the restart with
the lowest inertia_ is kept (ties: the first, as n_init does), and this writes
OUT_PREFIX.best (its index), .labels, .centers (17 digits), .inertias (one per restart),
.predict (labels of QUERY by km.predict) and .query_inertia (-km.score(QUERY)).
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
            data_path, query_path, out, tol, *inits = line.split()
            X = np.loadtxt(data_path, delimiter=",", ndmin=2)
            Q = np.loadtxt(query_path, delimiter=",", ndmin=2)
            fits = []
            for init_path in inits:
                C0 = np.loadtxt(init_path, delimiter=",", ndmin=2)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fits.append(KMeans(n_clusters=C0.shape[0], init=C0, n_init=1, tol=float(tol), max_iter=300,
                                       algorithm="lloyd").fit(X))
            inertias = [km.inertia_ for km in fits]
            best = int(np.argmin(inertias))  # the first of equal minima, as KMeans' own n_init loop
            km = fits[best]
            with open(out + ".best", "w") as f:
                f.write(f"{best}\n")
            np.savetxt(out + ".inertias", np.array(inertias), fmt="%.17g")
            np.savetxt(out + ".labels", km.labels_, fmt="%d")
            np.savetxt(out + ".centers", km.cluster_centers_, fmt="%.17g", delimiter=",")
            np.savetxt(out + ".predict", km.predict(Q), fmt="%d")
            with open(out + ".query_inertia", "w") as f:
                f.write(f"{-km.score(Q):.17g}\n")


if __name__ == "__main__":
    main(sys.argv[1])
