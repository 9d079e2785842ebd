// Spectral clustering through k-means representatives (kms/spectral.hpp): the
// quality where plain k-means fails (moons, circles; both measured here), the
// eigenvalues of graphs whose spectrum is known, --k auto, the back-end seam of
// the eigensolver, cancellation, and kmeans-cli spectral's report and errors.
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>

#include <cmath>
#include <fstream>
#include <string>

#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/random.hpp"
#include "kms/scores.hpp"
#include "kms/short_number.hpp"
#include "kms/spectral.hpp"
#include "test_support.hpp"

namespace {

using CliResult = kms::test::CliRun;
using kms::test::run_cli;

kms::SpectralOptions small_options(std::size_t clusters, std::uint64_t seed, std::size_t representatives = 300) {
    kms::SpectralOptions options;
    options.clusters = clusters;
    options.representatives = representatives;
    options.kmeans.init.seed = seed;
    options.kmeans.solver.backend = kms::Backend::OpenMP;
    options.kmeans.solver.algorithm = kms::Algorithm::Hamerly;
    return options;
}

double plain_kmeans_ari(const kms::Dataset& data, std::uint64_t seed) {
    kms::FitOptions options;
    options.k = 2;
    options.n_init = 3;
    options.init.seed = seed;
    options.solver.backend = kms::Backend::OpenMP;
    const auto points = std::make_shared<const kms::Matrix<double>>(data.points);
    return kms::adjusted_rand_index(data.truth_labels, kms::fit(points, options).labels);
}

// The n x n Laplacian of blocks of cliques (weight `w` inside each clique, nothing between).
kms::Matrix<double> clique_laplacian(const std::vector<std::size_t>& sizes, double w) {
    std::size_t n = 0;
    for (std::size_t s : sizes) n += s;
    kms::Matrix<double> similarity(n, n, 0.0);
    std::size_t first = 0;
    for (std::size_t s : sizes) {
        for (std::size_t i = first; i < first + s; ++i)
            for (std::size_t j = first; j < first + s; ++j)
                if (i != j) similarity(i, j) = w;
        first += s;
    }
    return kms::normalized_laplacian(similarity);
}

}  // namespace

// Without LAPACKE only missingLapackSaysWhatToInstall applies.
#define REQUIRE_LAPACK() \
    if (!kms::lapack_built()) QSKIP("built without LAPACKE")

class TestSpectral : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
    }

    // He et al.'s chain separates what k-means cannot: ARI >= 0.95 where plain k-means
    // (3 restarts) stays below 0.6, on noisy moons and circles, several seeds and sizes.
    void nonConvexShapesAreSeparated() {
        REQUIRE_LAPACK();
        struct Case {
            const char* spec;
            std::uint64_t seed;
        };
        const Case cases[] = {{"moons:n=3000,noise=0.05", 1}, {"moons:n=2500,noise=0.08", 2},
                              {"moons:n=4000,noise=0.06", 3}, {"circles:n=3000,noise=0.05,factor=0.5", 1},
                              {"circles:n=2000,noise=0.04,factor=0.4", 2}, {"circles:n=3500,noise=0.06,factor=0.5", 3}};
        for (const Case& c : cases) {
            const kms::Dataset data = kms::generate_dataset(c.spec, c.seed);
            const auto points = std::make_shared<const kms::Matrix<double>>(data.points);
            const kms::SpectralResult result = kms::spectral_cluster(points, small_options(2, c.seed));
            const double spectral = kms::adjusted_rand_index(data.truth_labels, result.labels);
            const double plain = plain_kmeans_ari(data, c.seed);
            QVERIFY2(spectral >= 0.95, qPrintable(QString("%1 seed %2: spectral ARI %3").arg(c.spec).arg(c.seed).arg(spectral)));
            QVERIFY2(plain < 0.6, qPrintable(QString("%1 seed %2: k-means ARI %3").arg(c.spec).arg(c.seed).arg(plain)));
            QCOMPARE(result.labels.size(), data.n());
            QCOMPARE(result.embedding.rows(), std::size_t{300});
            // The embedding's rows are unit vectors (Ng-Jordan-Weiss).
            for (std::size_t i = 0; i < result.embedding.rows(); ++i) {
                const double norm = std::hypot(result.embedding(i, 0), result.embedding(i, 1));
                QVERIFY(std::abs(norm - 1.0) < 1e-12);
            }
            QVERIFY(result.eigengap > 0.0);
            QCOMPARE(result.eigen.values.size(), kms::SpectralOptions::kReportedEigenvalues);
        }
    }

    // --k auto finds the two moons and the two circles (kNN graph and full graph).
    void autoFindsTwo() {
        REQUIRE_LAPACK();
        const char* specs[] = {"moons:n=2000,noise=0.05", "circles:n=2000,noise=0.05,factor=0.5"};
        for (const char* spec : specs)
            for (std::uint64_t seed : {4, 5})
                for (std::size_t neighbours : {std::size_t{10}, std::size_t{0}}) {
                    const kms::Dataset data = kms::generate_dataset(spec, seed);
                    // The full graph's sigma (7th-neighbour median) is too wide for the circles'
                    // gap with as few as 300 representatives (measured); 600 are enough.
                    kms::SpectralOptions options = small_options(0, seed, neighbours ? 300 : 600);
                    options.neighbours = neighbours;
                    const kms::SpectralResult result =
                        kms::spectral_cluster(std::make_shared<const kms::Matrix<double>>(data.points), options);
                    QVERIFY2(result.clusters == 2 && result.clusters_chosen,
                             qPrintable(QString("%1 seed %2 M %3: k = %4").arg(spec).arg(seed).arg(neighbours).arg(result.clusters)));
                    QVERIFY(kms::adjusted_rand_index(data.truth_labels, result.labels) >= 0.95);
                }
    }

    // Blobs: --k auto finds their number (3 to 6 well-separated blobs).
    void autoFindsBlobCount() {
        REQUIRE_LAPACK();
        for (std::uint64_t seed : {1, 2, 3}) {
            const std::size_t k = 3 + seed;
            kms::Dataset data = kms::generate_dataset("blobs:n=3000,k=" + std::to_string(k) + ",d=3,spread=0.02", seed);
            const kms::SpectralResult result = kms::spectral_cluster(
                std::make_shared<const kms::Matrix<double>>(data.points), small_options(0, seed, 200));
            QCOMPARE(result.clusters, k);
            QVERIFY(kms::adjusted_rand_index(data.truth_labels, result.labels) > 0.99);
        }
    }

    // Disconnected cliques of sizes s_1..s_c: eigenvalue 0 once per clique, and
    // s/(s-1) (the complete graph K_s) s-1 times each; eigenvectors orthonormal.
    void cliqueSpectrum() {
        REQUIRE_LAPACK();
        for (std::uint64_t seed : {1, 2, 3, 4}) {
            std::vector<std::size_t> sizes;
            const std::size_t cliques = 2 + kms::random_below(seed, 9, 0, 3);
            std::vector<double> expected;
            for (std::size_t c = 0; c < cliques; ++c) {
                const std::size_t s = 2 + kms::random_below(seed, 9, c + 1, 10);
                sizes.push_back(s);
                expected.push_back(0.0);
                for (std::size_t i = 1; i < s; ++i) expected.push_back(double(s) / double(s - 1));
            }
            std::sort(expected.begin(), expected.end());
            const double weight = 0.1 + kms::random_uniform(seed, 9, 99);
            const kms::Matrix<double> laplacian = clique_laplacian(sizes, weight);
            const std::size_t n = laplacian.rows();
            const kms::EigenPairs pairs = kms::lapack_smallest_eigenpairs(laplacian, n);
            QCOMPARE(pairs.values.size(), n);
            for (std::size_t i = 0; i < n; ++i)
                QVERIFY2(std::abs(pairs.values[i] - expected[i]) < 1e-12,
                         qPrintable(QString("seed %1 value %2: %3 vs %4").arg(seed).arg(i).arg(pairs.values[i]).arg(expected[i])));
            // The smallest `cliques` only, as the chain asks for them: the same values.
            const kms::EigenPairs few = kms::lapack_smallest_eigenpairs(laplacian, cliques + 1);
            for (std::size_t i = 0; i <= cliques; ++i) QVERIFY(std::abs(few.values[i] - expected[i]) < 1e-12);
            for (std::size_t a = 0; a <= cliques; ++a)
                for (std::size_t b = 0; b <= cliques; ++b) {
                    double dot = 0.0;
                    for (std::size_t i = 0; i < n; ++i) dot += few.vectors(i, a) * few.vectors(i, b);
                    QVERIFY(std::abs(dot - (a == b ? 1.0 : 0.0)) < 1e-10);
                }
            // The eigengap rule finds the number of cliques.
            QCOMPARE(kms::eigengap_clusters(pairs.values, 20), cliques);
        }
    }

    // A random symmetric matrix: A v = λ v, ascending, equal to the full spectrum's head.
    void eigenpairsOfRandomMatrices() {
        REQUIRE_LAPACK();
        for (std::uint64_t seed : {1, 2, 3}) {
            const std::size_t n = 5 + kms::random_below(seed, 7, 0, 60), count = 1 + kms::random_below(seed, 7, 1, n);
            kms::Matrix<double> a(n, n);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) a(i, j) = a(j, i) = kms::random_uniform(seed, 8, i * n + j) - 0.5;
            const kms::EigenPairs all = kms::lapack_smallest_eigenpairs(a, n);
            const kms::EigenPairs few = kms::lapack_smallest_eigenpairs(a, count);
            QCOMPARE(few.values.size(), count);
            for (std::size_t j = 0; j < count; ++j) {
                QVERIFY(std::abs(few.values[j] - all.values[j]) < 1e-12);
                if (j > 0) QVERIFY(few.values[j] >= few.values[j - 1]);
                for (std::size_t i = 0; i < n; ++i) {
                    double av = 0.0;
                    for (std::size_t t = 0; t < n; ++t) av += a(i, t) * few.vectors(t, j);
                    QVERIFY(std::abs(av - few.values[j] * few.vectors(i, j)) < 1e-10);
                }
            }
            QVERIFY_THROWS_EXCEPTION(kms::Error, kms::lapack_smallest_eigenpairs(a, n + 1));
        }
    }

    // The symmetrised kNN graph: an edge exactly where either end is among the
    // other's M nearest; symmetric; Gaussian weights; the Laplacian's rows.
    void knnGraphIsSymmetrised() {
        REQUIRE_LAPACK();
        for (std::uint64_t seed : {1, 2}) {
            const kms::Dataset data = kms::generate_dataset("uniform:n=120,d=3", seed);
            const std::size_t m = 3 + seed;
            const auto lists = kms::nearest_neighbours(data.points, m);
            const double sigma = 0.3;
            const kms::Matrix<double> w = kms::gaussian_similarity(data.points, sigma, &lists);
            const std::size_t n = data.n();
            for (std::size_t i = 0; i < n; ++i) {
                QCOMPARE(lists[i].size(), m);
                for (std::size_t j = 0; j < n; ++j) {
                    const auto has = [&](std::size_t a, std::size_t b) {
                        return std::find(lists[a].begin(), lists[a].end(), b) != lists[a].end();
                    };
                    QCOMPARE(w(i, j), w(j, i));
                    const bool edge = i != j && (has(i, j) || has(j, i));
                    QCOMPARE(w(i, j) > 0.0, edge);
                    if (edge) {
                        double d2 = 0.0;
                        for (std::size_t t = 0; t < 3; ++t) d2 += std::pow(data.points(i, t) - data.points(j, t), 2);
                        QVERIFY(std::abs(w(i, j) - std::exp(-d2 / (2 * sigma * sigma))) < 1e-15);
                    }
                }
                // The M listed are the M nearest: nobody outside is nearer than the last.
                double last = 0.0;
                for (std::size_t t = 0; t < 3; ++t) last += std::pow(data.points(i, t) - data.points(lists[i].back(), t), 2);
                for (std::size_t j = 0; j < n; ++j) {
                    if (j == i || std::find(lists[i].begin(), lists[i].end(), j) != lists[i].end()) continue;
                    double d2 = 0.0;
                    for (std::size_t t = 0; t < 3; ++t) d2 += std::pow(data.points(i, t) - data.points(j, t), 2);
                    QVERIFY(d2 >= last);
                }
            }
        }
    }

    // Sizes weigh the embedding's k-means; the representatives' sizes sum to n.
    void representativeSizesAndOptions() {
        REQUIRE_LAPACK();
        const kms::Dataset data = kms::generate_dataset("moons:n=1500,noise=0.05", 3);
        const auto points = std::make_shared<const kms::Matrix<double>>(data.points);
        kms::SpectralOptions options = small_options(2, 3, 200);
        options.sigma = 0.2;
        options.neighbours = 0;
        const kms::SpectralResult result = kms::spectral_cluster(points, options);
        QCOMPARE(result.sigma, 0.2);
        QCOMPARE(result.neighbours, std::size_t{0});
        double total = 0.0;
        for (double s : result.representative_sizes) total += s;
        QCOMPARE(total, 1500.0);
        for (std::size_t i = 0; i < data.n(); ++i)
            QCOMPARE(result.labels[i],
                     result.representative_labels[static_cast<std::size_t>(result.representative_fit.labels[i])]);
        QVERIFY(kms::adjusted_rand_index(data.truth_labels, result.labels) >= 0.95);
        // Default R: min(n, 1000).
        kms::SpectralOptions defaults = small_options(2, 3, 0);
        const kms::Dataset small = kms::generate_dataset("moons:n=400,noise=0.05", 3);
        QCOMPARE(kms::spectral_cluster(std::make_shared<const kms::Matrix<double>>(small.points), defaults).representatives,
                 std::size_t{400});
    }

    void badOptionsAreRefused() {
        REQUIRE_LAPACK();
        const kms::Dataset data = kms::generate_dataset("moons:n=200", 1);
        const auto points = std::make_shared<const kms::Matrix<double>>(data.points);
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::spectral_cluster(points, small_options(2, 1, 201)));  // R > n
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::spectral_cluster(points, small_options(51, 1, 50)));  // k > R
        kms::SpectralOptions bad_sigma = small_options(2, 1, 50);
        bad_sigma.sigma = -1.0;
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::spectral_cluster(points, bad_sigma));
        bad_sigma.sigma = std::nan("");
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::spectral_cluster(points, bad_sigma));
        // All points equal: the representatives coincide, sigma cannot be derived.
        const auto same = std::make_shared<const kms::Matrix<double>>(50, 2, 1.5);
        try {
            kms::spectral_cluster(same, small_options(2, 1, 10), {}, {}, "same.csv");
            QFAIL("coincident representatives accepted");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("same.csv") == 0, error.what());
        }
    }

    // Issue 39: a sigma far below the representatives' distances gave a graph without edges,
    // all eigenvalues 0 and arbitrary labels, exit 0. Refused, naming sigma and the neighbours.
    void degenerateGraphIsRefusedNamingSigma() {
        REQUIRE_LAPACK();
        const kms::Dataset data = kms::generate_dataset("moons:n=200", 1);
        const auto points = std::make_shared<const kms::Matrix<double>>(data.points);
        for (const double sigma : {1e-200, 1e-10}) {
            kms::SpectralOptions options = small_options(2, 1, 50);
            options.sigma = sigma;
            try {
                kms::spectral_cluster(points, options, {}, {}, "moons.csv");
                QFAIL("a graph without edges accepted");
            } catch (const kms::InputError& error) {
                const std::string text = error.what();
                QVERIFY2(text.find("moons.csv: 50 of 50 representatives (the first: 0) have no edge in the similarity "
                                   "graph with sigma = " + kms::short_number(sigma) + " (given (--sigma))") == 0,
                         error.what());
                QVERIFY2(text.find("nearest neighbours") != std::string::npos ||
                             text.find("every other representative") != std::string::npos,
                         error.what());
            }
        }
    }

    // A stop request after the representatives ends the chain without labels.
    void cancelAfterRepresentatives() {
        REQUIRE_LAPACK();
        const kms::Dataset data = kms::generate_dataset("moons:n=2000,noise=0.05", 1);
        std::stop_source stop;
        std::vector<kms::SpectralPhase> seen;
        const kms::SpectralResult result = kms::spectral_cluster(
            std::make_shared<const kms::Matrix<double>>(data.points), small_options(2, 1),
            [&](kms::SpectralPhase phase, const kms::SpectralResult& so_far) {
                seen.push_back(phase);
                QCOMPARE(so_far.representative_fit.centroids.rows(), std::size_t{300});
                stop.request_stop();
            },
            stop.get_token());
        QVERIFY(result.cancelled);
        QVERIFY(result.labels.empty());
        QCOMPARE(seen.size(), std::size_t{1});
        QVERIFY(seen[0] == kms::SpectralPhase::Representatives);
    }

    // A device back end without an eigensolver (the seam cuSOLVER will fill): its
    // k-means runs there, the eigenvectors on the CPU, and the result says so.
    void deviceWithoutEigensolverSaysSo() {
        REQUIRE_LAPACK();
        if (kms::find_backend(kms::Backend::Cuda)) QSKIP("a CUDA back end is registered in this program");
        kms::BackendEntry fake = *kms::find_backend(kms::Backend::OpenMP);
        fake.backend = kms::Backend::Cuda;
        fake.smallest_eigenpairs = {};
        // A stand-in builds its solvers itself (the registry has none for CUDA here): the CPU's.
        for (const kms::AlgorithmInfo& info : kms::registered_algorithms()) fake.algorithms.push_back(info.algorithm);
        fake.make_solver = [](const kms::SolverConfig& config) {
            kms::SolverConfig cpu = config;
            cpu.backend = kms::Backend::OpenMP;
            return kms::make_solver(cpu);
        };
        kms::register_backend(fake);
        const kms::Dataset data = kms::generate_dataset("moons:n=1000,noise=0.05", 2);
        kms::SpectralOptions options = small_options(2, 2, 200);
        options.kmeans.solver.backend = kms::Backend::Cuda;
        const kms::SpectralResult result =
            kms::spectral_cluster(std::make_shared<const kms::Matrix<double>>(data.points), options);
        QVERIFY2(result.eigensolver_note.find("not built yet") != std::string::npos, result.eigensolver_note.c_str());
        QCOMPARE(result.eigen.method, std::string("LAPACK dsyevr (CPU)"));
        QVERIFY(kms::adjusted_rand_index(data.truth_labels, result.labels) >= 0.95);
    }

    void cliJsonReportAndLabels() {
        REQUIRE_LAPACK();
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const CliResult r = run_cli({"spectral", "--generate", "circles:n=2500,noise=0.05", "--seed", "6", "--k", "auto",
                                     "--representatives", "300", "--report", "json", "--labels-out", path("labels.txt")});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.trimmed().toUtf8()).object();
        QCOMPARE(summary["type"].toString(), QString("spectral"));
        QCOMPARE(summary["k"].toInt(), 2);
        QVERIFY(summary["k_auto"].toBool());
        QCOMPARE(summary["representatives"].toInt(), 300);
        QCOMPARE(summary["eigenvalues"].toArray().size(), 20);
        const QJsonArray values = summary["eigenvalues"].toArray();
        QVERIFY(std::abs(summary["eigengap"].toDouble() - (values[2].toDouble() - values[1].toDouble())) < 1e-15);
        QVERIFY(summary["sigma"].toDouble() > 0.0);
        QVERIFY(summary["ari"].toDouble() >= 0.95);
        double phases = 0.0;
        for (const char* key : {"time_representatives_ms", "time_similarity_ms", "time_eigensolver_ms",
                                "time_final_kmeans_ms", "time_labelling_ms"}) {
            QVERIFY2(summary.contains(key), key);
            phases += summary[key].toDouble();
        }
        QVERIFY(std::abs(phases - summary["time_total_ms"].toDouble()) < 1e-6 * (1 + phases));
        std::ifstream labels(path("labels.txt").toStdString());
        std::size_t lines = 0;
        for (std::string line; std::getline(labels, line); ++lines) QVERIFY(line == "0" || line == "1");
        QCOMPARE(lines, std::size_t{2500});
        // The table report names every phase.
        const CliResult table = run_cli({"spectral", "--generate", "moons:n=800", "--k", "2", "--representatives", "100",
                                         "--labels-out", path("t.txt")});
        QVERIFY2(table.exit_code == 0, qPrintable(table.err));
        for (const char* phase : {"representatives:", "similarity:", "eigensolver:", "final k-means", "ari"})
            QVERIFY2(table.out.contains(phase), phase);
    }

    void cliErrors() {
        REQUIRE_LAPACK();
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const QString out = path("e.txt");
        struct Case {
            QStringList args;
            int exit_code;
            const char* message;
        };
        const Case cases[] = {
            {{"--generate", "moons:n=100", "--k", "2", "--representatives", "101", "--labels-out", out}, 2, "more than the 100 points"},
            {{"--generate", "moons:n=100", "--k", "60", "--representatives", "50", "--labels-out", out}, 2, "more than the 50 representatives"},
            {{"--generate", "moons:n=100", "--k", "2", "--sigma", "-1", "--labels-out", out}, 2, "--sigma"},
            {{"--generate", "moons:n=100", "--k", "2", "--sigma", "0", "--labels-out", out}, 2, "--sigma"},
            {{"--generate", "moons:n=100", "--k", "2", "--sigma", "abc", "--labels-out", out}, 2, "--sigma"},
            {{"--generate", "moons:n=100", "--k", "0", "--labels-out", out}, 2, "--k"},
            {{"--generate", "moons:n=100", "--k", "two", "--labels-out", out}, 2, "--k"},
            {{"--generate", "moons:n=100", "--labels-out", out}, 2, "--k K|auto is required"},
            {{"--generate", "moons:n=100", "--k", "2"}, 2, "--labels-out"},
            {{"--generate", "moons:n=100", "--k", "2", "--neighbours", "-3", "--labels-out", out}, 2, "--neighbours"},
            {{"--generate", "moons:n=100", "--k", "2", "--rep-weights", "mass", "--labels-out", out}, 2, "--rep-weights"},
            {{"--input", path("missing.csv"), "--k", "2", "--labels-out", out}, 1, "missing.csv"},
            {{"--generate", "moons:n=100", "--k", "2", "--labels-out", dir_.path()}, 1, "cannot write"},
        };
        for (const Case& c : cases) {
            const CliResult r = run_cli(QStringList{"spectral"} + c.args);
            QVERIFY2(r.exit_code == c.exit_code && r.err.contains(c.message),
                     qPrintable(c.args.join(' ') + " -> " + QString::number(r.exit_code) + ": " + r.err));
            QVERIFY(!QFileInfo::exists(out));
        }
        // A bad line in the input names file and line.
        {
            std::ofstream(path("bad.csv").toStdString()) << "1,2\n3,4\n5,x\n";
            const CliResult r = run_cli({"spectral", "--input", path("bad.csv"), "--k", "2", "--labels-out", out});
            QVERIFY2(r.exit_code == 1 && r.err.contains("bad.csv:3"), qPrintable(r.err));
        }
    }

    // SIGTERM ends the chain after the k-means step in progress: a summary saying so,
    // exit 143, no labels file (OpenBLAS's threads must not take the signal first).
    void cliCancelsOnSigterm() {
        REQUIRE_LAPACK();
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const QString labels = path("cancelled.txt");
        QProcess process;
        process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")),
                      {"spectral", "--generate", "moons:n=1000000,noise=0.05", "--k", "2", "--threads", "1",
                       "--solver", "lloyd", "--labels-out", labels});
        QVERIFY(process.waitForStarted());
        QString out;
        QVERIFY(kms::test::wait_for([&] {
            process.waitForReadyRead(10);
            out += QString::fromUtf8(process.readAllStandardOutput());
            return out.contains("# data");
        }, 60000));
        QTest::qWait(200);
        ::kill(static_cast<pid_t>(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(60000));
        out += QString::fromUtf8(process.readAllStandardOutput());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 143);
        QVERIFY2(out.contains("# cancelled"), qPrintable(out));
        QVERIFY(!QFileInfo::exists(labels));
    }

    // A build with LAPACKE that cannot load it: under `ulimit -v` the loader fails to map
    // OpenBLAS, and the message said the program was built without LAPACKE and to install
    // the -dev packages. Now it says which of the two it is.
    void lapackThatCannotLoadSaysWhy() {
        const std::string memory = kms::lapack_load_failure_message(
            "libopenblas.so.0: failed to map segment from shared object");
        QVERIFY2(memory.find("not enough memory") != std::string::npos, memory.c_str());
        QVERIFY2(memory.find("failed to map segment") != std::string::npos, memory.c_str());
        QVERIFY2(memory.find("built without") == std::string::npos, memory.c_str());
        QVERIFY2(memory.find("install") == std::string::npos, memory.c_str());
        const std::string missing = kms::lapack_load_failure_message(
            "liblapacke.so.3: cannot open shared object file: No such file or directory");
        QVERIFY2(missing.find("liblapacke and libopenblas0") != std::string::npos, missing.c_str());
        QVERIFY2(missing.find("not enough memory") == std::string::npos, missing.c_str());
        QVERIFY2(missing.find("built without") == std::string::npos, missing.c_str());
    }

    void missingLapackSaysWhatToInstall() {
        const std::string message = kms::lapack_missing_message();
        QVERIFY(message.find("liblapacke-dev") != std::string::npos);
        QVERIFY(message.find("libopenblas-dev") != std::string::npos);
        if (kms::lapack_built()) return;
        const kms::Dataset data = kms::generate_dataset("moons:n=200", 1);
        try {
            kms::spectral_cluster(std::make_shared<const kms::Matrix<double>>(data.points), small_options(2, 1, 50));
            QFAIL("ran without an eigensolver");
        } catch (const kms::Error& error) {
            QCOMPARE(std::string(error.what()), message);
        }
    }
};

QTEST_GUILESS_MAIN(TestSpectral)
#include "test_spectral.moc"
