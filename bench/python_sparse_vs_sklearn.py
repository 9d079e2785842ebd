#!/usr/bin/env python3
"""Sparse KMeans, ours against scikit-learn's, same data and initial centres, 10 iterations (tol=0):
2*10^5 x 10^4 CSR, 40 non-zeros a row, k = 100; time per iteration of the whole fit (best of 3), labels
and n_iter_ compared. PYTHONPATH=build/python OMP_NUM_THREADS=2 /usr/bin/python3 bench/python_sparse_vs_sklearn.py"""
import time, numpy as np, scipy.sparse as sp, warnings
from sklearn.cluster import KMeans as SK
from kmeans_studio import KMeans
rng = np.random.default_rng(0)
n, d, per_row, k = 200_000, 10_000, 40, 100
stride = d // per_row
cols = rng.integers(0, stride, size=(n, 1)) + stride * np.arange(per_row)[None, :]
X = sp.csr_matrix((rng.uniform(size=n * per_row), cols.ravel().astype(np.int32), np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
C0 = X[rng.choice(n, k, replace=False)].toarray()
def best(f, r=3):
    t = []
    for _ in range(r):
        s = time.perf_counter(); f(); t.append(time.perf_counter() - s)
    return min(t)
for alg in ("lloyd", "elkan"):
    ours = best(lambda: KMeans(k, init=C0, algorithm=alg, max_iter=10, tol=0, n_threads=2).fit(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = best(lambda: SK(k, init=C0, algorithm=alg, max_iter=10, tol=0, n_init=1).fit(X))
    a = KMeans(k, init=C0, algorithm=alg, max_iter=10, tol=0, n_threads=2).fit(X)
    b = SK(k, init=C0, algorithm=alg, max_iter=10, tol=0, n_init=1).fit(X)
    print(f"{alg}: ours {ours*100:.1f} ms/iter, scikit-learn {theirs*100:.1f} ms/iter, labels equal {np.array_equal(a.labels_, b.labels_)}, n_iter {a.n_iter_}/{b.n_iter_}")
