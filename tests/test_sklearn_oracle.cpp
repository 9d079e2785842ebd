// Oracle: double-precision Lloyd (and Elkan and Hamerly, which must agree with
// it) against scikit-learn's KMeans(algorithm="lloyd", init=C0, n_init=1) on the
// same data and initial centroids: equal labels, centroids within 1e-9
// relative, the same iteration count.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>

#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/backends.hpp"
#include "kms/fit.hpp"
#include "kms/solver.hpp"
#include "test_support.hpp"

using namespace kms;

namespace {

struct OracleCase {
    std::size_t n, d, k;
    double spread;
    double tol;
    std::uint64_t seed;
};

// Gaussian blobs around 2..11 random centres (test::gaussian_blobs).
Matrix<double> blob_data(const OracleCase& c) {
    return test::gaussian_blobs(c.n, c.d, 2 + random_below(c.seed, 1, 0, 10), c.spread, c.seed, 4);
}

Matrix<double> initial_rows(const OracleCase& c, const Matrix<double>& points) {
    Matrix<double> centroids(c.k, c.d);
    std::vector<bool> used(c.n, false);
    for (std::size_t j = 0, draw = 0; j < c.k; ++draw) {
        const std::size_t row = random_below(c.seed, 7, draw, c.n);
        if (used[row]) continue;
        used[row] = true;
        for (std::size_t t = 0; t < c.d; ++t) centroids(j, t) = points(row, t);
        ++j;
    }
    return centroids;
}

}  // namespace

class TestSklearnOracle : public QObject {
    Q_OBJECT
private slots:
    void lloyd_matches_scikit_learn() {
        const std::string python = test::python();
        if (python.empty()) {
            if (test::in_ci()) QFAIL("CI must run the scikit-learn oracle: no python3 with sklearn was found "
                                     "(Debian: apt-get install python3-sklearn)");
            QSKIP("no python3 with scikit-learn found at configure time (Debian: python3-sklearn); oracle skipped");
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();

        std::vector<OracleCase> cases;
        for (std::uint64_t i = 0; i < 36; ++i) {
            const std::uint64_t seed = 40 + i;
            OracleCase c{};
            c.seed = seed;
            c.n = 50 + random_below(seed, 9, 0, 2500);
            c.d = 1 + random_below(seed, 9, 1, 8);
            c.k = 2 + random_below(seed, 9, 2, 19);
            c.spread = 0.3 + 3.0 * random_uniform(seed, 9, 3);
            c.tol = i % 3 == 2 ? 1e-4 : 0.0;
            cases.push_back(c);
        }
        std::ofstream manifest(root + "/manifest.txt");
        std::vector<Matrix<double>> data, initial;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            data.push_back(blob_data(cases[i]));
            initial.push_back(initial_rows(cases[i], data.back()));
            const std::string base = root + "/case" + std::to_string(i);
            write_centroids_csv(base + ".data.csv", data.back());
            write_centroids_csv(base + ".init.csv", initial.back());
            manifest << base << ".data.csv " << base << ".init.csv " << base << " " << cases[i].tol << " 300\n";
        }
        manifest.close();

        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        const QString script = QString::fromStdString(test::env_or_empty("KMS_SOURCE_DIR")) +
                               "/tests/sklearn_kmeans_oracle.py";
        process.start(QString::fromStdString(python), {script, QString::fromStdString(root + "/manifest.txt")});
        QVERIFY2(process.waitForFinished(300000), "scikit-learn oracle timed out");
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
                 process.readAll().constData());

        int iterations_total = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const std::string base = root + "/case" + std::to_string(i);
            const std::vector<std::int32_t> expected_labels = load_labels(base + ".labels");
            const Matrix<double> expected_centers = load_matrix(base + ".centers");
            int expected_iterations = 0;
            std::ifstream(base + ".n_iter") >> expected_iterations;
            auto points = std::make_shared<const Matrix<double>>(data[i]);
            for (Algorithm algorithm : kms::test::registered_solvers()) {
                SolverConfig config;
                config.algorithm = algorithm;
                config.backend = Backend::Sequential;
                config.precision = Precision::F64;
                config.tol = cases[i].tol;
                config.max_iterations = 300;
                config.empty_policy = EmptyClusterPolicy::Farthest;  // scikit-learn's behaviour
                // The fit layer's loop (stop rule and final relabel) from the given centroids.
                KMeansRun run(make_solver(config));
                run.solver().set_data(points);
                run.solver().set_initial_centroids(initial[i]);
                run.advance(-1);
                const Solver* solver = &run.solver();
                const std::string where = "case " + std::to_string(i) + " n=" + std::to_string(cases[i].n) +
                                          " d=" + std::to_string(cases[i].d) + " k=" + std::to_string(cases[i].k) +
                                          " tol=" + std::to_string(cases[i].tol) + " " + config.describe();
                QVERIFY2(solver->iteration() == expected_iterations,
                         (where + ": " + std::to_string(solver->iteration()) + " iterations, scikit-learn " +
                          std::to_string(expected_iterations))
                             .c_str());
                QVERIFY2(solver->labels() == expected_labels, where.c_str());
                const Matrix<double> centers = solver->centroids();
                QCOMPARE(centers.rows(), expected_centers.rows());
                for (std::size_t e = 0; e < centers.size(); ++e) {
                    const double a = centers.values()[e], b = expected_centers.values()[e];
                    QVERIFY2(std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)),
                             (where + ": centroid value " + std::to_string(a) + " vs " + std::to_string(b)).c_str());
                }
            }
            iterations_total += expected_iterations;
        }
        QVERIFY(iterations_total > static_cast<int>(cases.size()));  // the runs did iterate
    }
};

QTEST_GUILESS_MAIN(TestSklearnOracle)
#include "test_sklearn_oracle.moc"
