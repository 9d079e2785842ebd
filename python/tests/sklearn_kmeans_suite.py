#!/usr/bin/env python3
"""scikit-learn's own KMeans tests, run against kmeans_studio with only the import swapped.

Copies scikit-learn's sklearn/cluster/tests/test_k_means.py (Debian 12: 1.2.1) to a temporary
folder, changes its one line

    from sklearn.cluster import KMeans, k_means, kmeans_plusplus
to  from kmeans_studio import KMeans, k_means, kmeans_plusplus

and runs pytest on the KMeans tests: every test except MiniBatchKMeans's (test_minibatch_*
and the MiniBatchKMeans cases of tests parametrised by Estimator) and the four that never
touch KMeans (they test scikit-learn's private Cython helpers: test_relocate_empty_clusters,
test_euclidean_distance, test_inertia, test_is_same_clustering). Prints pass/fail counts and
every failure's first error line.

    PYTHONPATH=build/python /usr/bin/python3 python/tests/sklearn_kmeans_suite.py [pytest args]

Exit code: 0 when at least --min tests pass (default 0: report only).
Not collected by the package's pytest suite (no test_ prefix).
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import sklearn

SOURCE = pathlib.Path(sklearn.__file__).parent / "cluster" / "tests" / "test_k_means.py"
ORIGINAL = "from sklearn.cluster import KMeans, k_means, kmeans_plusplus"
SWAPPED = "from kmeans_studio import KMeans, k_means, kmeans_plusplus"
NOT_KMEANS = ("test_relocate_empty_clusters", "test_euclidean_distance", "test_inertia", "test_is_same_clustering")


def swapped_copy(folder):
    text = SOURCE.read_text()
    if text.count(ORIGINAL) != 1:
        sys.exit(f"{SOURCE}: expected the line {ORIGINAL!r} once")
    path = pathlib.Path(folder) / "test_k_means_swapped.py"
    path.write_text(text.replace(ORIGINAL, SWAPPED))
    return path


def selected(node_id):
    name = node_id.split("::")[-1]
    function = name.split("[")[0]
    if function.startswith("test_minibatch") or function in NOT_KMEANS:
        return False
    return "MiniBatchKMeans" not in name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=int, default=0, help="fail unless at least this many pass")
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args()
    env = dict(os.environ)  # pytest runs in the temporary folder: PYTHONPATH's entries made absolute
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    plugins = ["-p", "sklearn.conftest", "-p", "sklearn.tests.random_seed", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory() as folder:
        path = swapped_copy(folder)
        collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *plugins, str(path)],
                                   capture_output=True, text=True, cwd=folder, env=env)
        ids = [line for line in collected.stdout.splitlines() if "::" in line]
        chosen = [i for i in ids if selected(i)]
        if not chosen:
            sys.exit("no tests collected:\n" + collected.stdout + collected.stderr)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "--tb=line", "-W",
                              "ignore::DeprecationWarning", *plugins, *options.pytest_args, *chosen],
                             capture_output=True, text=True, cwd=folder, env=env)
    failures = [line for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    for line in failures:
        print(line.replace(str(path), "test_k_means.py")[:300])
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]
    passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", summary)) else 0
    print(f"scikit-learn {sklearn.__version__} test_k_means.py, KMeans tests with kmeans_studio: "
          f"{len(chosen)} selected, {passed} passed, {len(failures)} failed  ({summary})")
    return 0 if passed >= options.min else 1


if __name__ == "__main__":
    sys.exit(main())
