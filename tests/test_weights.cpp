// Sample weights (FitOptions::sample_weight, kmeans-cli run --weights): weighted
// fits equal scikit-learn's KMeans(init=C0, n_init=1).fit(X, sample_weight=w) for
// every CPU solver and back end; integer weights equal duplicated points; unit
// weights give the unweighted bits; any thread count gives the same bits; the
// weighted initialisations never pick zero-weight points and draw the first
// centre in proportion to the weights; the CLI reads weights and names path:line
// in its errors.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "test_support.hpp"

using namespace kms;

namespace {

bool close(double a, double b, double relative) { return std::abs(a - b) <= relative * std::max(1.0, std::abs(b)); }

double read_number(const std::string& path) {
    double value = std::nan("");
    std::ifstream(path) >> value;
    return value;
}

// Weights in [0, 3) with about a fifth exactly zero, or small integers 0..3.
std::vector<double> random_weights(std::size_t n, std::uint64_t seed, bool integer) {
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (integer) w[i] = static_cast<double>(random_below(seed, 21, i, 4));
        else w[i] = random_below(seed, 22, i, 5) == 0 ? 0.0 : 3.0 * random_uniform(seed, 23, i);
    }
    w[0] = 1.0;  // never all zero
    return w;
}

FitOptions options_for(std::size_t k, Algorithm algorithm, Backend backend, Precision precision, int threads = 0) {
    FitOptions options;
    options.k = k;
    options.init.method = InitMethod::File;
    options.solver.algorithm = algorithm;
    options.solver.backend = backend;
    options.solver.precision = precision;
    options.solver.threads = threads;
    options.solver.tol = 0.0;
    options.solver.empty_policy = EmptyClusterPolicy::Farthest;  // scikit-learn's behaviour
    return options;
}

struct Cli {
    int exit_code = -1;
    QByteArray out, err;
};
Cli run_cli(const QStringList& arguments) {
    QProcess process;
    process.start(QString::fromStdString(test::env_or_empty("KMS_CLI")), arguments);
    Cli run;
    if (!process.waitForFinished(120000)) return run;
    run.exit_code = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

}  // namespace

class TestWeights : public QObject {
    Q_OBJECT
private slots:
    void weighted_fits_match_scikit_learn() {
        const std::string python = test::python();
        if (python.empty()) {
            if (test::in_ci()) QFAIL("CI must run the scikit-learn oracle: no python3 with sklearn was found");
            QSKIP("no python3 with scikit-learn found at configure time (Debian: python3-sklearn); oracle skipped");
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        struct Case {
            std::shared_ptr<const Matrix<double>> points;
            std::shared_ptr<const std::vector<double>> weights;
            Matrix<double> initial;
            double tol;
        };
        std::vector<Case> cases;
        std::ofstream manifest(root + "/manifest.txt");
        for (std::uint64_t i = 0; i < 8; ++i) {
            const std::uint64_t seed = 700 + i;
            const std::size_t n = 150 + random_below(seed, 9, 0, 1200), d = 1 + random_below(seed, 9, 1, 5);
            const std::size_t k = 2 + random_below(seed, 9, 2, 10), centres = 2 + random_below(seed, 9, 3, 8);
            Case c;
            c.points = std::make_shared<const Matrix<double>>(
                test::gaussian_blobs(n, d, centres, 0.5 + 3.0 * random_uniform(seed, 9, 4), seed, 4));
            c.weights = std::make_shared<const std::vector<double>>(random_weights(n, seed, i % 2 == 1));
            InitOptions init;
            init.seed = seed;
            c.initial = initialize_centroids(*c.points, k, init);
            c.tol = i % 2 ? 1e-4 : 0.0;
            const std::string base = root + "/case" + std::to_string(i);
            write_centroids_csv(base + ".data.csv", *c.points);
            write_centroids_csv(base + ".init.csv", c.initial);
            std::ofstream weights(base + ".weights.txt");
            weights.precision(17);
            for (double w : *c.weights) weights << w << "\n";
            weights.close();
            manifest << base << ".data.csv " << base << ".weights.txt " << base << ".init.csv " << base << " "
                     << c.tol << " " << (i % 3 == 2 ? "elkan" : "lloyd") << "\n";
            cases.push_back(std::move(c));
        }
        manifest.close();
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        const QString script =
            QString::fromStdString(test::env_or_empty("KMS_SOURCE_DIR")) + "/tests/sklearn_weighted_oracle.py";
        process.start(QString::fromStdString(python), {script, QString::fromStdString(root + "/manifest.txt")});
        QVERIFY2(process.waitForFinished(300000), "scikit-learn oracle timed out");
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, process.readAll().constData());

        int zero_weight_points = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const std::string base = root + "/case" + std::to_string(i);
            const auto labels = load_labels(base + ".labels");
            const Matrix<double> centers = load_matrix(base + ".centers");
            const double inertia = read_number(base + ".inertia");
            for (double w : *cases[i].weights) zero_weight_points += w == 0.0;
            for (Algorithm algorithm : kms::test::registered_solvers())
                for (Backend backend : {Backend::Sequential, Backend::OpenMP}) {
                    FitOptions options = options_for(cases[i].initial.rows(), algorithm, backend, Precision::F64, 3);
                    options.init.path = base + ".init.csv";
                    options.solver.tol = cases[i].tol;
                    options.sample_weight = cases[i].weights;
                    const FitResult ours = fit(cases[i].points, options);
                    const std::string where = "case " + std::to_string(i) + " " + options.solver.describe();
                    QVERIFY2(ours.labels == labels, where.c_str());
                    QCOMPARE(ours.centroids.rows(), centers.rows());
                    for (std::size_t e = 0; e < centers.size(); ++e)
                        QVERIFY2(close(ours.centroids.values()[e], centers.values()[e], 1e-9), where.c_str());
                    QVERIFY2(close(ours.inertia, inertia, 1e-9),
                             (where + ": inertia " + std::to_string(ours.inertia) + " vs " + std::to_string(inertia))
                                 .c_str());
                }
        }
        QVERIFY2(zero_weight_points > 100, "the cases must include zero weights");
    }

    // Integer weights are duplicated points: the same labels and centroids (to
    // rounding: the sums are taken in another order) and the same inertia.
    void integer_weights_equal_duplicated_points() {
        for (std::uint64_t seed : {11u, 12u, 13u}) {
            const std::size_t n = 900, k = 6;
            auto points = std::make_shared<const Matrix<double>>(test::gaussian_blobs(n, 3, 5, 1.5, seed, 4));
            auto weights = std::make_shared<const std::vector<double>>(random_weights(n, seed, true));
            std::vector<double> repeated;
            std::vector<std::size_t> origin;
            for (std::size_t i = 0; i < n; ++i)
                for (int r = 0; r < static_cast<int>((*weights)[i]); ++r) {
                    repeated.insert(repeated.end(), points->row(i), points->row(i) + 3);
                    origin.push_back(i);
                }
            auto duplicated = std::make_shared<const Matrix<double>>(origin.size(), 3, std::move(repeated));
            InitOptions init;
            init.seed = seed;
            const Matrix<double> initial = initialize_centroids(*duplicated, k, init);
            QTemporaryDir dir;
            const std::string init_path = dir.filePath("c0.csv").toStdString();
            write_centroids_csv(init_path, initial);
            for (Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Hamerly}) {
                FitOptions options = options_for(k, algorithm, Backend::OpenMP, Precision::F64);
                options.init.path = init_path;
                const FitResult plain = fit(duplicated, options);
                options.sample_weight = weights;
                const FitResult weighted = fit(points, options);
                QCOMPARE(weighted.iterations, plain.iterations);
                for (std::size_t j = 0; j < origin.size(); ++j) QCOMPARE(weighted.labels[origin[j]], plain.labels[j]);
                for (std::size_t e = 0; e < plain.centroids.size(); ++e)
                    QVERIFY(close(weighted.centroids.values()[e], plain.centroids.values()[e], 1e-12));
                QVERIFY(close(weighted.inertia, plain.inertia, 1e-12));
            }
        }
    }

    // Unit weights take the weighted path and give the unweighted bits; any
    // thread count gives the same weighted bits (float and double, every solver).
    void unit_weights_and_threads_are_bitwise() {
        const std::size_t n = 5000, k = 12;
        auto points = std::make_shared<const Matrix<double>>(test::gaussian_blobs(n, 4, 9, 2.0, 5, 4));
        auto ones = std::make_shared<const std::vector<double>>(n, 1.0);
        auto weights = std::make_shared<const std::vector<double>>(random_weights(n, 5, false));
        QTemporaryDir dir;
        const std::string init_path = dir.filePath("c0.csv").toStdString();
        write_centroids_csv(init_path, initialize_centroids(*points, k, InitOptions{}));
        for (Precision precision : {Precision::F32, Precision::F64})
            for (Algorithm algorithm : kms::test::registered_solvers()) {
                FitOptions options = options_for(k, algorithm, Backend::OpenMP, precision, 4);
                options.init.path = init_path;
                options.solver.compute_inertia = true;
                const FitResult plain = fit(points, options);
                options.sample_weight = ones;
                const FitResult unit = fit(points, options);
                QVERIFY(unit.centroids == plain.centroids);
                QVERIFY(unit.labels == plain.labels);
                QCOMPARE(unit.inertia, plain.inertia);
                QCOMPARE(unit.iterations, plain.iterations);

                options.sample_weight = weights;
                options.solver.backend = Backend::Sequential;
                const FitResult one = fit(points, options);
                QVERIFY(!(one.centroids == plain.centroids));
                options.solver.backend = Backend::OpenMP;
                for (int threads : {2, 3, 7}) {
                    options.solver.threads = threads;
                    const FitResult many = fit(points, options);
                    QVERIFY(many.centroids == one.centroids);
                    QVERIFY(many.labels == one.labels);
                    QCOMPARE(many.inertia, one.inertia);
                }
            }
    }

    // Weighted seeding: zero-weight points are never centres (while enough
    // positive-weight points remain), the result does not depend on the thread
    // count, and the first centre is drawn in proportion to the weights.
    void weighted_initialisation() {
        const std::size_t n = 9000;  // more than two of the initialiser's 4096-point blocks
        const Matrix<double> points = test::gaussian_blobs(n, 2, 6, 2.0, 9, 4);
        std::vector<double> weights = random_weights(n, 9, false);
        for (InitMethod method :
             {InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus, InitMethod::Maximin})
            for (std::uint64_t seed = 0; seed < 10; ++seed) {
                InitOptions init;
                init.method = method;
                init.seed = seed;
                init.sample_weight = weights;
                init.threads = 1;
                const Matrix<double> one = initialize_centroids(points, 25, init);
                init.threads = 5;
                QVERIFY(initialize_centroids(points, 25, init) == one);
                for (std::size_t c = 0; c < one.rows(); ++c) {
                    std::size_t index = n;
                    for (std::size_t i = 0; i < n && index == n; ++i)
                        if (points(i, 0) == one(c, 0) && points(i, 1) == one(c, 1)) index = i;
                    QVERIFY(index < n);
                    QVERIFY2(weights[index] > 0.0, (std::string(to_string(method)) + " chose a zero-weight point").c_str());
                }
            }
        // First centre ∝ w: 4 points weighing 1, 2, 3, 0 over 6000 seeds.
        const Matrix<double> four(4, 1, std::vector<double>{0.0, 10.0, 20.0, 30.0});
        const std::vector<double> w{1.0, 2.0, 3.0, 0.0};
        std::map<double, int> seen;
        for (std::uint64_t seed = 0; seed < 6000; ++seed) {
            InitOptions init;
            init.seed = seed;
            init.sample_weight = w;
            ++seen[initialize_centroids(four, 1, init)(0, 0)];
        }
        QCOMPARE(seen.count(30.0), std::size_t{0});
        QVERIFY(std::abs(seen[0.0] - 1000) < 120 && std::abs(seen[10.0] - 2000) < 150 && std::abs(seen[20.0] - 3000) < 150);
        // D² ∝ w·D²: after centre 0, the points at 10 and 11 weigh 9 and 0.
        const Matrix<double> line(3, 1, std::vector<double>{0.0, 10.0, 11.0});
        for (std::uint64_t seed = 0; seed < 200; ++seed) {
            InitOptions init;
            init.seed = seed;
            const std::vector<double> wl{1.0, 9.0, 0.0};
            init.sample_weight = wl;
            init.method = seed % 2 ? InitMethod::KMeansPlusPlus : InitMethod::GreedyKMeansPlusPlus;
            const Matrix<double> c = initialize_centroids(line, 2, init);
            QVERIFY(c(0, 0) != 11.0 && c(1, 0) != 11.0);
        }
    }

    void fit_refuses_bad_weights() {
        auto points = std::make_shared<const Matrix<double>>(test::gaussian_blobs(50, 2, 3, 1.0, 1, 4));
        FitOptions options;
        options.k = 3;
        const auto refused = [&](std::vector<double> w, const char* reason) {
            options.sample_weight = std::make_shared<const std::vector<double>>(std::move(w));
            try {
                fit(points, options, nullptr, {}, "blobs");
            } catch (const InputError& e) {
                const std::string what = e.what();
                return what.find("blobs") != std::string::npos && what.find(reason) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused(std::vector<double>(49, 1.0), "49 sample weights for n = 50 points"));
        std::vector<double> w(50, 1.0);
        w[7] = -1.0;
        QVERIFY(refused(w, "sample weight 8 (-1) is not a non-negative finite number"));  // %g (issue 39)
        w[7] = std::nan("");
        QVERIFY(refused(w, "sample weight 8"));
        QVERIFY(refused(std::vector<double>(50, 0.0), "the sample weights are all zero"));
    }

    void cli_weights() {
        if (test::env_or_empty("KMS_CLI").empty()) QFAIL("KMS_CLI is not set (run through CTest)");
        QTemporaryDir dir;
        const auto points = test::gaussian_blobs(400, 2, 4, 1.0, 3, 4);
        const QString data = dir.filePath("data.csv"), weights_path = dir.filePath("w.txt");
        write_centroids_csv(data.toStdString(), points);
        const std::vector<double> weights = random_weights(400, 3, false);
        {
            std::ofstream out(weights_path.toStdString());
            out.precision(17);
            for (double w : weights) out << w << "\r\n";
        }
        const QString labels = dir.filePath("labels.txt"), centroids = dir.filePath("c.csv");
        const Cli run = run_cli({"run", "--input", data, "--k", "4", "--weights", weights_path, "--seed", "5",
                                 "--report", "json", "--labels-out", labels, "--centroids-out", centroids});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        FitOptions options;
        options.k = 4;
        options.init.seed = 5;
        options.solver.backend = Backend::OpenMP;
        options.sample_weight = std::make_shared<const std::vector<double>>(weights);
        const FitResult expected = fit(std::make_shared<const Matrix<double>>(points), options);
        QVERIFY(load_labels(labels.toStdString()) == expected.labels);
        const Matrix<double> written = load_matrix(centroids.toStdString());
        for (std::size_t e = 0; e < written.size(); ++e)
            QVERIFY(close(written.values()[e], expected.centroids.values()[e], 1e-15));

        const auto refused = [&](const std::string& text, const QString& reason) {
            std::ofstream(weights_path.toStdString()) << text;
            const Cli bad = run_cli({"run", "--input", data, "--k", "4", "--weights", weights_path,
                                     "--labels-out", dir.filePath("never.txt")});
            return bad.exit_code != 0 && QString(bad.err).contains(reason) &&
                   !QFileInfo::exists(dir.filePath("never.txt"));
        };
        std::string many;
        for (int i = 0; i < 400; ++i) many += "1\n";
        QVERIFY(refused("1\n2\n-3\n", weights_path + ":3: the weight -3 is negative"));
        QVERIFY(refused("1\nnan\n", weights_path + ":2: the weight is not finite"));
        QVERIFY(refused("1\n2 3\n", weights_path + ":2: '2 3' is not a number"));
        QVERIFY(refused("1\n\n2\n", weights_path + ":2: empty line"));
        QVERIFY(refused("1\n2\n", weights_path + ": has 2 weights but the data has 400 points"));
        QVERIFY(refused(many + "1\n", weights_path + ":401: more weights than the 400 points"));
        std::string zeros;
        for (int i = 0; i < 400; ++i) zeros += "0\n";
        QVERIFY(refused(zeros, "the sample weights are all zero"));
    }
};

QTEST_GUILESS_MAIN(TestWeights)
#include "test_weights.moc"
