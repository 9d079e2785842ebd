// Quality scores against scikit-learn (tests/scores_oracle.py, one Python run for
// all cases), plus degenerate cases, sampling, cancellation and the CLI.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stop_token>
#include <thread>

#include "kms/error.hpp"
#include "kms/random.hpp"
#include "kms/scores.hpp"
#include "test_support.hpp"

using kms::Matrix;

namespace {

struct Case {
    std::string name;
    Matrix<double> points;
    std::vector<std::int32_t> labels;
    std::vector<std::int32_t> truth;  // empty: no ARI/NMI
};

// Gaussian-looking noise from the counter RNG (sum of 4 uniforms, centred).
double noise(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
    double sum = 0.0;
    for (std::uint64_t u = 0; u < 4; ++u) sum += kms::random_uniform(seed, stream, counter * 4 + u);
    return (sum - 2.0) * 1.7;
}

// Coordinates are multiples of 2^-10: scikit-learn computes distances as
// sqrt(|x|² - 2x·y + |y|²), which for nearly coincident points (a singleton and
// its own centroid, say) leaves an absolute error near sqrt(eps)·|x| ≈ 1e-7. On
// this grid (|x| ≤ 64, d ≤ 40) every such product and sum is exact in double, so
// scikit-learn's point-point distances are the correctly rounded ones, as ours
// are, and the 1e-9 comparison tests the formulas rather than its rounding.
double on_grid(double v) { return std::round(v * 1024.0) / 1024.0; }

// k blobs in d dimensions; labels are the true blob, with a fraction `mislabelled`
// of them replaced by a random blob; the label values are code * stride + offset
// (non-contiguous, possibly negative) as scikit-learn accepts any integers.
Case blobs(std::string name, std::size_t n, std::size_t d, std::size_t k, double spread, double mislabelled,
           std::uint64_t seed, std::int32_t stride = 1, std::int32_t offset = 0) {
    Case c;
    c.name = std::move(name);
    Matrix<double> centres(k, d);
    for (std::size_t i = 0; i < centres.size(); ++i) centres.data()[i] = 20.0 * kms::random_uniform(seed, 1, i) - 10.0;
    c.points = Matrix<double>(n, d);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t blob = (i < k) ? i : std::size_t(kms::random_below(seed, 2, i, k));  // every blob used
        for (std::size_t j = 0; j < d; ++j)
            c.points(i, j) = on_grid(centres(blob, j) + spread * noise(seed, 3, i * d + j));
        std::size_t label = blob;
        if (kms::random_uniform(seed, 4, i) < mislabelled) label = std::size_t(kms::random_below(seed, 5, i, k));
        c.truth.push_back(std::int32_t(blob) * 3 + 1);
        c.labels.push_back(std::int32_t(label) * stride + offset);
    }
    return c;
}

// Coordinates on a coarse dyadic grid (exact in binary, so scikit-learn's
// |x|²-2x·y+|y|² distances carry no rounding): many exactly repeated points.
Case grid(std::string name, std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed) {
    Case c;
    c.name = std::move(name);
    c.points = Matrix<double>(n, d);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j)
            c.points(i, j) = (double(kms::random_below(seed, 6, i * d + j, 5)) - 2.0) * 0.25;
        c.labels.push_back(std::int32_t(kms::random_below(seed, 7, i, k)) * 10 - 20);
    }
    return c;
}

void write_binary(const QString& path, const void* data, std::size_t bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
    QVERIFY2(out.good(), qPrintable("cannot write " + path));
}

std::vector<double> read_doubles(const QString& path, std::size_t count) {
    std::vector<double> values(count);
    std::ifstream in(path.toStdString(), std::ios::binary);
    in.read(reinterpret_cast<char*>(values.data()), std::streamsize(count * sizeof(double)));
    if (!in.good()) values.clear();
    return values;
}

// |a - b| <= tol · max(|a|, |b|, floor): relative, with an absolute floor for scores
// bounded by 1 (silhouette, ARI, NMI), where a value near 0 carries the rounding
// of terms of size ~1.
bool close(double a, double b, double tol, double floor = 0.0) {
    if (a == b) return true;
    return std::abs(a - b) <= tol * std::max({std::abs(a), std::abs(b), floor});
}

QString describe(double ours, double theirs) {
    return QString("ours %1, scikit-learn %2, difference %3")
        .arg(ours, 0, 'g', 17)
        .arg(theirs, 0, 'g', 17)
        .arg(ours - theirs, 0, 'g', 3);
}

std::string error_of(auto&& call) {
    try {
        call();
    } catch (const kms::Error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestScores : public QObject {
    Q_OBJECT

private slots:
    void matches_scikit_learn();
    void degenerate_cases_match_scikit_learn_definitions();
    void sampled_silhouette_is_the_exact_silhouette_of_a_seeded_subset();
    void results_do_not_depend_on_the_thread_count();
    void float_data_agrees_with_double();
    void centroid_index_counts_missed_clusters();
    void inertia_uses_given_centroids();
    void mismatched_inputs_are_refused();
    void a_stop_request_cancels_the_silhouette();
    void compute_scores_reports_undefined_scores();
    void scores_that_do_not_fit_are_a_message();
    void cli_score_reports_json();
};

void TestScores::matches_scikit_learn() {
    const std::string python = kms::test::python();
    if (python.empty()) {
        if (kms::test::in_ci()) QFAIL("KMS_PYTHON is empty in CI: install python3-sklearn");
        QSKIP("no Python with scikit-learn (KMS_PYTHON is empty): cannot run the oracle");
    }
    const std::string source_dir = kms::test::env_or_empty("KMS_SOURCE_DIR");
    QVERIFY2(!source_dir.empty(), "KMS_SOURCE_DIR is not set (run through ctest)");

    std::vector<Case> cases;
    std::uint64_t seed = 1000;
    // Random blobs of many shapes; labels from the truth with some mislabelled.
    for (std::size_t n : {4, 11, 60, 257, 900, 2000})
        for (std::size_t d : {1, 2, 5})
            for (std::size_t k : {2, 3, 9}) {
                if (k >= n) continue;
                const double mislabelled = (seed % 3) * 0.2;
                cases.push_back(blobs("blobs_" + std::to_string(seed), n, d, k, 0.3 + 0.4 * (seed % 4), mislabelled,
                                      seed, (seed % 2) ? 7 : 1, (seed % 2) ? -50 : 0));
                ++seed;
            }
    cases.push_back(blobs("many_clusters", 1500, 3, 60, 0.5, 0.1, 77));
    cases.push_back(blobs("high_dimension", 400, 33, 6, 1.0, 0.05, 78));
    cases.push_back(blobs("random_labels", 500, 2, 5, 1.0, 1.0, 79));  // silhouette around 0 and below
    // Singletons: some clusters of one point (s = 0 there).
    {
        Case c = blobs("singletons", 300, 2, 4, 0.5, 0.0, 80);
        c.labels[5] = 1000;
        c.labels[77] = -1000;
        c.labels[200] = 555;
        cases.push_back(c);
    }
    // Repeated points and tiny clusters on an exact grid.
    for (std::uint64_t s = 0; s < 6; ++s) cases.push_back(grid("grid_" + std::to_string(s), 20 + 97 * s, 1 + s % 3, 2 + s, 90 + s));
    // Two coincident centroids (Davies–Bouldin's zero-distance rule) plus a third cluster.
    {
        Case c;
        c.name = "coincident_centroids";
        c.points = Matrix<double>(9, 2, std::vector<double>{0, 1, 0, -1, 1, 0, -1, 0, 0.5, 0.5, -0.5, -0.5, 8, 8, 9, 8, 8, 9});
        c.labels = {0, 0, 1, 1, 0, 0, 2, 2, 2};
        cases.push_back(c);
    }
    // scikit-learn refuses these: one label, and as many labels as points.
    {
        Case c = grid("one_label", 12, 2, 2, 98);
        c.labels.assign(12, 5);
        cases.push_back(c);
        c.name = "all_distinct";
        for (std::size_t i = 0; i < 12; ++i) c.labels[i] = std::int32_t(i) * 2;
        cases.push_back(c);
    }
    // Pairs of clusters of two points each (a(i) is one distance).
    {
        Case c = grid("pairs", 8, 2, 4, 99);
        c.labels = {0, 0, 1, 1, 2, 2, 3, 3};
        cases.push_back(c);
    }
    // The exact silhouette of a sampled subset: scikit-learn's sample_size semantics.
    const Case big = blobs("big", 2000, 2, 6, 0.8, 0.1, 123);
    const std::vector<std::uint64_t> sample = kms::silhouette_sample_indices(big.points.rows(), 300, 42);
    {
        Case c;
        c.name = "sampled_subset";
        c.points = kms::select_rows(big.points, sample);
        c.labels = kms::select_labels(big.labels, sample);
        cases.push_back(c);
    }

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QJsonArray manifest;
    for (const Case& c : cases) {
        QJsonObject entry{{"name", QString::fromStdString(c.name)},
                          {"n", qint64(c.points.rows())},
                          {"d", qint64(c.points.cols())},
                          {"points", QString::fromStdString(c.name + ".x")},
                          {"labels", QString::fromStdString(c.name + ".labels")}};
        write_binary(dir.filePath(QString::fromStdString(c.name + ".x")), c.points.data(), c.points.size() * sizeof(double));
        write_binary(dir.filePath(QString::fromStdString(c.name + ".labels")), c.labels.data(), c.labels.size() * 4);
        if (!c.truth.empty()) {
            entry["truth"] = QString::fromStdString(c.name + ".truth");
            write_binary(dir.filePath(QString::fromStdString(c.name + ".truth")), c.truth.data(), c.truth.size() * 4);
        }
        manifest.append(entry);
    }
    {
        QFile file(dir.filePath("cases.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(manifest).toJson());
    }
    QProcess oracle;
    oracle.start(QString::fromStdString(python),
                 {QString::fromStdString(source_dir + "/tests/scores_oracle.py"), dir.path()});
    QVERIFY2(oracle.waitForFinished(120000), "the scikit-learn oracle did not finish in 120 s");
    const QByteArray oracle_errors = oracle.readAllStandardError();
    QVERIFY2(oracle.exitStatus() == QProcess::NormalExit && oracle.exitCode() == 0, oracle_errors.constData());
    const QJsonObject expected = QJsonDocument::fromJson(oracle.readAllStandardOutput()).object();
    QCOMPARE(expected.size(), qsizetype(cases.size()));

    constexpr double tol = 1e-9;
    int silhouettes_checked = 0, errors_checked = 0;
    for (const Case& c : cases) {
        const QJsonObject want = expected.value(QString::fromStdString(c.name)).toObject();
        const QString where = QString::fromStdString(c.name);
        // Silhouette: score and every per-point value.
        const QJsonValue want_sil = want.value("silhouette");
        if (want_sil.isObject()) {
            const std::string ours = error_of([&] { kms::silhouette(c.points, c.labels); });
            QVERIFY2(!ours.empty(), qPrintable(where + ": scikit-learn refuses the silhouette, we did not"));
            QVERIFY2(ours.find("Number of labels is") != std::string::npos, ours.c_str());
            ++errors_checked;
        } else {
            const kms::SilhouetteResult ours = kms::silhouette(c.points, c.labels);
            QVERIFY2(close(ours.score, want_sil.toDouble(), tol, 1.0),
                     qPrintable(where + " silhouette: " + describe(ours.score, want_sil.toDouble())));
            const std::vector<double> samples = read_doubles(dir.filePath(where + ".samples"), c.points.rows());
            QCOMPARE(samples.size(), c.points.rows());
            for (std::size_t i = 0; i < samples.size(); ++i)
                QVERIFY2(close(ours.values[i], samples[i], tol, 1.0),
                         qPrintable(where + QString(" silhouette_samples[%1]: ").arg(i) + describe(ours.values[i], samples[i])));
            ++silhouettes_checked;
        }
        // Calinski–Harabasz and Davies–Bouldin: refused together with the silhouette.
        for (const char* key : {"calinski_harabasz", "davies_bouldin"}) {
            const bool ch = std::string(key) == "calinski_harabasz";
            const QJsonValue w = want.value(key);
            if (w.isObject()) {
                const std::string ours = error_of([&] {
                    ch ? kms::calinski_harabasz(c.points, c.labels) : kms::davies_bouldin(c.points, c.labels);
                });
                QVERIFY2(!ours.empty(), qPrintable(where + ": scikit-learn refuses " + key + ", we did not"));
            } else {
                const double ours = ch ? kms::calinski_harabasz(c.points, c.labels) : kms::davies_bouldin(c.points, c.labels);
                QVERIFY2(close(ours, w.toDouble(), tol), qPrintable(where + " " + key + ": " + describe(ours, w.toDouble())));
            }
        }
        const Matrix<double> means = kms::label_means(c.points, c.labels);
        const kms::LabelEncoding encoding = kms::encode_labels(c.labels);
        const double inertia = kms::inertia(c.points, encoding.codes, means);
        QVERIFY2(close(inertia, want.value("inertia").toDouble(), tol),
                 qPrintable(where + " inertia: " + describe(inertia, want.value("inertia").toDouble())));
        if (!c.truth.empty()) {
            const double ari = kms::adjusted_rand_index(c.truth, c.labels);
            const double nmi = kms::normalized_mutual_info(c.truth, c.labels);
            QVERIFY2(close(ari, want.value("ari").toDouble(), tol, 1.0),
                     qPrintable(where + " ARI: " + describe(ari, want.value("ari").toDouble())));
            QVERIFY2(close(nmi, want.value("nmi").toDouble(), tol, 1.0),
                     qPrintable(where + " NMI: " + describe(nmi, want.value("nmi").toDouble())));
        }
    }
    QVERIFY(silhouettes_checked > 50);
    QCOMPARE(errors_checked, 2);  // one_label, all_distinct

    // The sampled silhouette of `big` is the silhouette of that subset.
    const kms::SilhouetteResult sampled = kms::silhouette_sampled(big.points, big.labels, 300, 42);
    const double want = expected.value("sampled_subset").toObject().value("silhouette").toDouble();
    QVERIFY2(close(sampled.score, want, tol, 1.0), qPrintable("sampled: " + describe(sampled.score, want)));
}

void TestScores::degenerate_cases_match_scikit_learn_definitions() {
    // One cluster, every point its own cluster, too few points: scikit-learn raises.
    const Matrix<double> points(5, 2, std::vector<double>{0, 0, 1, 0, 0, 1, 1, 1, 2, 2});
    const std::vector<std::int32_t> one_cluster(5, 3);
    const std::vector<std::int32_t> all_distinct{0, 1, 2, 3, 4};
    for (const auto& labels : {one_cluster, all_distinct}) {
        const std::string sil = error_of([&] { kms::silhouette(points, labels); });
        const std::string ch = error_of([&] { kms::calinski_harabasz(points, labels); });
        const std::string db = error_of([&] { kms::davies_bouldin(points, labels); });
        for (const std::string& message : {sil, ch, db})
            QVERIFY2(message.find("Valid values are 2 to n_samples - 1 (inclusive)") != std::string::npos, message.c_str());
    }
    // All points identical in two clusters: intra-dispersion 0 → CH = 1.0; every
    // distance 0 → silhouette 0 everywhere; all intra and centroid distances 0 → DB = 0.
    const Matrix<double> same(6, 3, 0.3);
    const std::vector<std::int32_t> two{1, 1, 1, 8, 8, 8};
    QCOMPARE(kms::calinski_harabasz(same, two), 1.0);
    QCOMPARE(kms::davies_bouldin(same, two), 0.0);
    const kms::SilhouetteResult s = kms::silhouette(same, two);
    QCOMPARE(s.score, 0.0);
    for (double v : s.values) QCOMPARE(v, 0.0);
    // Each cluster a repeated point (0.1 is not exact in binary: the mean must still be exact).
    const Matrix<double> repeated(6, 1, std::vector<double>{0.1, 0.1, 0.1, 0.7, 0.7, 0.7});
    QCOMPARE(kms::calinski_harabasz(repeated, two), 1.0);
    QCOMPARE(kms::silhouette(repeated, two).score, 1.0);  // a = 0, b > 0
    // A singleton: s = 0 for it, the others as usual.
    const Matrix<double> line(4, 1, std::vector<double>{0, 1, 10, 11});
    const kms::SilhouetteResult with_singleton = kms::silhouette(line, std::vector<std::int32_t>{0, 0, 1, 2});
    QCOMPARE(with_singleton.values[2], 0.0);
    QCOMPARE(with_singleton.values[3], 0.0);
    // Point 0: a = 1, b = min(10, 11) → 0.9.
    QVERIFY(close(with_singleton.values[0], 0.9, 1e-15));
    // ARI / NMI limits.
    const std::vector<std::int32_t> a{0, 0, 1, 1}, b{5, 5, 9, 9}, flat{2, 2, 2, 2}, flat2{7, 7, 7, 7};
    QCOMPARE(kms::adjusted_rand_index(a, b), 1.0);
    QCOMPARE(kms::normalized_mutual_info(a, b), 1.0);
    QCOMPARE(kms::normalized_mutual_info(flat, flat2), 1.0);  // neither labelling splits the data
    QCOMPARE(kms::normalized_mutual_info(a, flat), 0.0);
    QCOMPARE(kms::adjusted_rand_index(std::vector<std::int32_t>{0, 0, 1, 1}, std::vector<std::int32_t>{0, 1, 0, 1}), -0.5);
}

void TestScores::sampled_silhouette_is_the_exact_silhouette_of_a_seeded_subset() {
    const Case c = blobs("s", 3000, 2, 5, 0.7, 0.1, 5);
    const kms::SilhouetteResult a = kms::silhouette_sampled(c.points, c.labels, 400, 9);
    const kms::SilhouetteResult again = kms::silhouette_sampled(c.points, c.labels, 400, 9);
    const kms::SilhouetteResult other = kms::silhouette_sampled(c.points, c.labels, 400, 10);
    QVERIFY(a.sampled);
    QCOMPARE(a.indices.size(), std::size_t(400));
    QCOMPARE(a.indices, again.indices);
    QCOMPARE(a.score, again.score);
    QVERIFY(a.indices != other.indices);
    std::vector<std::uint64_t> sorted = a.indices;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());  // without replacement
    QVERIFY(sorted.back() < 3000);
    const kms::SilhouetteResult subset = kms::silhouette(kms::select_rows(c.points, a.indices), kms::select_labels(c.labels, a.indices));
    QCOMPARE(a.score, subset.score);
    QCOMPARE(a.values, subset.values);
    // Standard error = std(values, ddof = 1) / sqrt(m).
    double sq = 0.0;
    for (double v : a.values) sq += (v - a.score) * (v - a.score);
    QVERIFY(close(a.standard_error, std::sqrt(sq / 399.0) / std::sqrt(400.0), 1e-12));
    QVERIFY(a.standard_error > 0.0);
    // The sample size is capped at n, and the exact score is within a few standard errors.
    QCOMPARE(kms::silhouette_sample_indices(10, 50, 1).size(), std::size_t(10));
    const double exact = kms::silhouette(c.points, c.labels).score;
    QVERIFY2(std::abs(a.score - exact) < 6 * a.standard_error,
             qPrintable(QString("sampled %1 ± %2, exact %3").arg(a.score).arg(a.standard_error).arg(exact)));
}

void TestScores::results_do_not_depend_on_the_thread_count() {
    const Case c = blobs("t", 1500, 3, 7, 0.9, 0.2, 6);
    kms::ScoreOptions one, two;
    one.threads = 1;
    two.threads = 2;
    const kms::SilhouetteResult s1 = kms::silhouette(c.points, c.labels, one);
    const kms::SilhouetteResult s2 = kms::silhouette(c.points, c.labels, two);
    QCOMPARE(s1.values, s2.values);
    QCOMPARE(s1.score, s2.score);
    QCOMPARE(kms::calinski_harabasz(c.points, c.labels, one), kms::calinski_harabasz(c.points, c.labels, two));
    const Matrix<double> means = kms::label_means(c.points, c.labels, one);
    const std::vector<std::int32_t> codes = kms::encode_labels(c.labels).codes;
    QCOMPARE(kms::inertia(c.points, codes, means, one), kms::inertia(c.points, codes, means, two));
}

void TestScores::float_data_agrees_with_double() {
    const Case c = blobs("f", 1200, 2, 4, 0.6, 0.1, 7);
    const Matrix<float> as_float = c.points.cast<float>();
    const Matrix<double> rounded = as_float.cast<double>();  // the same values in double
    const kms::SilhouetteResult f = kms::silhouette(as_float, c.labels);
    const kms::SilhouetteResult d = kms::silhouette(rounded, c.labels);
    // Float distances (≈ 6e-8 relative each), double sums.
    QVERIFY2(close(f.score, d.score, 1e-6, 1.0), qPrintable(describe(f.score, d.score)));
    for (std::size_t i = 0; i < f.values.size(); ++i) QVERIFY(close(f.values[i], d.values[i], 1e-5, 1.0));
    QVERIFY(close(kms::calinski_harabasz(as_float, c.labels), kms::calinski_harabasz(rounded, c.labels), 1e-12));
    QVERIFY(close(kms::davies_bouldin(as_float, c.labels), kms::davies_bouldin(rounded, c.labels), 1e-12));
}

void TestScores::centroid_index_counts_missed_clusters() {
    const Matrix<double> truth(4, 2, std::vector<double>{0, 0, 10, 0, 0, 10, 10, 10});
    // The same centroids, shuffled and moved a little: every cluster found.
    const Matrix<double> found(4, 2, std::vector<double>{10.5, 9.5, 0.2, 0.1, 9.7, 0.3, 0.1, 10.2});
    QCOMPARE(kms::centroid_index(found, truth), 0);
    // Two predicted centroids share the cluster at (0,0) and none covers (10,10): CI = 1.
    const Matrix<double> one_missed(4, 2, std::vector<double>{-0.5, 0, 0.5, 0, 10, 0.5, 0, 10.5});
    QCOMPARE(kms::centroid_index(one_missed, truth), 1);
    // Three predicted on one true centroid: three true clusters missed... and
    // both directions count: the max is taken.
    const Matrix<double> collapsed(4, 2, std::vector<double>{0, 0, 0.1, 0, 0, 0.1, 10, 10});
    QCOMPARE(kms::centroid_index(collapsed, truth), 2);
    // Different counts: 2 predicted for 4 true → at least 2 orphans.
    const Matrix<double> two(2, 2, std::vector<double>{0, 0, 10, 10});
    QCOMPARE(kms::centroid_index(two, truth), 2);
    QVERIFY(error_of([&] { kms::centroid_index(Matrix<double>(2, 3), truth); }).find("coordinates") != std::string::npos);
}

void TestScores::inertia_uses_given_centroids() {
    const Matrix<double> points(3, 1, std::vector<double>{0, 1, 5});
    const Matrix<double> centroids(2, 1, std::vector<double>{0.5, 4});
    QCOMPARE(kms::inertia(points, std::vector<std::int32_t>{0, 0, 1}, centroids), 0.25 + 0.25 + 1.0);
    const std::string bad = error_of([&] { kms::inertia(points, std::vector<std::int32_t>{0, 2, 1}, centroids); });
    QVERIFY2(bad.find("label 2 of point 1") != std::string::npos, bad.c_str());
}

void TestScores::mismatched_inputs_are_refused() {
    const Matrix<double> points(4, 2, 1.0);
    const std::vector<std::int32_t> three{0, 1, 1};
    for (const std::string& message : {error_of([&] { kms::silhouette(points, three); }),
                                       error_of([&] { kms::calinski_harabasz(points, three); }),
                                       error_of([&] { kms::davies_bouldin(points, three); })})
        QVERIFY2(message.find("3 labels for 4 points") != std::string::npos, message.c_str());
    QVERIFY(!error_of([&] { kms::adjusted_rand_index(three, std::vector<std::int32_t>{1, 2}); }).empty());
    QVERIFY(!error_of([&] { kms::silhouette_sampled(points, std::vector<std::int32_t>{0, 1, 1, 0}, 0, 1); }).empty());
}

void TestScores::a_stop_request_cancels_the_silhouette() {
    const Case c = blobs("c", 60000, 2, 10, 1.0, 0.0, 8);  // ~3.6e9 pairs: many seconds uncancelled
    std::stop_source already;
    already.request_stop();
    kms::ScoreOptions stopped;
    stopped.stop = already.get_token();
    QVERIFY(error_of([&] { kms::silhouette(c.points, c.labels, stopped); }).find("cancelled") != std::string::npos);
    QVERIFY(error_of([&] { kms::calinski_harabasz(c.points, c.labels, stopped); }).find("cancelled") != std::string::npos);

    std::stop_source source;
    kms::ScoreOptions options;
    options.stop = source.get_token();
    std::jthread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        source.request_stop();
    });
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_of([&] { kms::silhouette(c.points, c.labels, options); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(message.find("cancelled") != std::string::npos, message.c_str());
    QVERIFY2(seconds < 2.0, qPrintable(QString("cancellation took %1 s").arg(seconds)));
}

void TestScores::compute_scores_reports_undefined_scores() {
    const Case c = blobs("all", 500, 2, 3, 0.5, 0.0, 9);
    kms::ScoreInputs inputs;
    inputs.points = &c.points;
    inputs.labels = c.labels;
    inputs.truth_labels = c.truth;
    kms::ScoreSettings settings;
    const kms::Scores scores = kms::compute_scores(inputs, settings);
    QCOMPARE(scores.silhouette, kms::silhouette(c.points, c.labels).score);
    QCOMPARE(scores.calinski_harabasz, kms::calinski_harabasz(c.points, c.labels));
    QCOMPARE(scores.davies_bouldin, kms::davies_bouldin(c.points, c.labels));
    QCOMPARE(scores.ari, 1.0);
    const std::string json = kms::scores_json_fields(scores);
    for (const char* key : {"\"silhouette\":", "\"calinski_harabasz\":", "\"davies_bouldin\":", "\"inertia\":",
                            "\"ari\":", "\"nmi\":"})
        QVERIFY2(json.find(key) != std::string::npos, json.c_str());
    QVERIFY(json.find("centroid_index") == std::string::npos);

    settings.silhouette = kms::SilhouetteMode::Sampled;
    settings.sample_size = 100;
    settings.seed = 3;
    const kms::Scores sampled = kms::compute_scores(inputs, settings);
    QCOMPARE(sampled.silhouette, kms::silhouette_sampled(c.points, c.labels, 100, 3).score);
    QVERIFY(sampled.silhouette_standard_error > 0.0);

    const std::vector<std::int32_t> one(c.points.rows(), 4);
    inputs.labels = one;
    inputs.truth_labels = {};
    settings.silhouette = kms::SilhouetteMode::Exact;
    const kms::Scores undefined = kms::compute_scores(inputs, settings);
    QVERIFY(std::isnan(undefined.silhouette) && std::isnan(undefined.calinski_harabasz));
    QVERIFY(!undefined.notes.empty());
    QVERIFY(close(undefined.inertia, kms::inertia(c.points, std::vector<std::int32_t>(c.points.rows(), 0),
                                                   kms::label_means(c.points, one)), 1e-15));
    QVERIFY(kms::scores_json_fields(undefined).find("\"silhouette\":null") != std::string::npos);
}

// Out of memory while scoring (past the loader) was "kmeans-cli score: not enough memory",
// with no sizes. A child process limits its own address space to what it holds and fills
// it, so the scores' first array of one value a point cannot be had.
void TestScores::scores_that_do_not_fit_are_a_message() {
    KMS_SKIP_ADDRESS_LIMIT_IF_SANITIZED();
    const std::size_t n = 4'000'000;
    Matrix<double> points(n, 1);
    std::vector<std::int32_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) {
        points(i, 0) = double(i % 1000);
        labels[i] = std::int32_t(i % 7);
    }
    int channel[2];
    QVERIFY(::pipe(channel) == 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {  // this thread alone (glibc keeps malloc usable after fork)
        ::close(channel[0]);
        ::alarm(60);
        std::string said = "no error";
        std::ifstream statm("/proc/self/statm");
        std::size_t pages = 0;
        statm >> pages;
        const rlimit limit{pages * std::size_t(::sysconf(_SC_PAGESIZE)) + (4u << 20), RLIM_INFINITY};
        std::vector<void*> balloon;
        balloon.reserve(1 << 20);
        if (::setrlimit(RLIMIT_AS, &limit) != 0) said = "setrlimit failed";
        else try {
            // The heap's free space counts as held: take it all in 1-MiB blocks, then give
            // back 2 MiB for the message. No array of one value a point fits after that.
            for (void* block; (block = std::malloc(1 << 20)) != nullptr;) balloon.push_back(block);
            for (int i = 0; i < 2 && !balloon.empty(); ++i) {
                std::free(balloon.back());
                balloon.pop_back();
            }
            kms::ScoreInputs inputs;
            inputs.points = &points;
            inputs.labels = labels;
            inputs.source = "points.npy";
            kms::ScoreSettings settings;
            settings.silhouette = kms::SilhouetteMode::None;
            settings.options.threads = 1;
            kms::compute_scores(inputs, settings);
        } catch (const kms::Error& error) {
            said = error.what();
        } catch (const std::exception& error) {
            said = std::string("not a kms::Error: ") + error.what();
        }
        [[maybe_unused]] const ssize_t written = ::write(channel[1], said.data(), said.size());
        ::_exit(0);
    }
    ::close(channel[1]);
    std::string message;
    char buffer[512];
    for (ssize_t got; (got = ::read(channel[0], buffer, sizeof buffer)) > 0;) message.append(buffer, std::size_t(got));
    ::close(channel[0]);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, message.c_str());
    QVERIFY2(message.find("points.npy: not enough memory to score 4000000 points × 1 coordinates") == 0, message.c_str());
    QVERIFY2(message.find("30.5176 MiB") != std::string::npos, message.c_str());
}

void TestScores::cli_score_reports_json() {
    const std::string cli = kms::test::env_or_empty("KMS_CLI");
    if (cli.empty() || !QFileInfo::exists(QString::fromStdString(cli)))
        QSKIP("kmeans-cli is not built (KMS_CLI unset or missing): skipping the CLI check");
    QTemporaryDir dir;
    const Case c = blobs("cli", 300, 2, 3, 0.5, 0.05, 10);
    {
        std::ofstream points(dir.filePath("points.csv").toStdString()), labels(dir.filePath("labels.txt").toStdString()),
            truth(dir.filePath("truth.txt").toStdString()), short_labels(dir.filePath("short.txt").toStdString());
        points.precision(17);
        for (std::size_t i = 0; i < c.points.rows(); ++i) {
            points << c.points(i, 0) << ',' << c.points(i, 1) << '\n';
            labels << c.labels[i] << '\n';
            truth << c.truth[i] << '\n';
            if (i < 10) short_labels << c.labels[i] << '\n';
        }
    }
    QProcess run;
    run.start(QString::fromStdString(cli), {"score", "--input", dir.filePath("points.csv"), "--labels",
                                            dir.filePath("labels.txt"), "--truth", dir.filePath("truth.txt"),
                                            "--report", "json"});
    QVERIFY(run.waitForFinished(60000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const QJsonObject report = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
    const double want = kms::silhouette(c.points, c.labels).score;
    QVERIFY2(close(report.value("silhouette").toDouble(), want, 1e-12, 1.0), qPrintable(describe(report.value("silhouette").toDouble(), want)));
    QVERIFY(close(report.value("calinski_harabasz").toDouble(), kms::calinski_harabasz(c.points, c.labels), 1e-12));
    QVERIFY(close(report.value("davies_bouldin").toDouble(), kms::davies_bouldin(c.points, c.labels), 1e-12));
    QVERIFY(report.value("inertia").isDouble());
    QVERIFY(close(report.value("ari").toDouble(), kms::adjusted_rand_index(c.truth, c.labels), 1e-12, 1.0));
    QVERIFY(close(report.value("nmi").toDouble(), kms::normalized_mutual_info(c.truth, c.labels), 1e-12, 1.0));

    // kmeans-cli run --scores: the scores of the run's own labels, inside its JSON summary.
    QProcess clustered;
    clustered.start(QString::fromStdString(cli), {"run", "--input", dir.filePath("points.csv"), "--k", "3", "--scores",
                                                  "--report", "json", "--labels-out", dir.filePath("run-labels.txt")});
    QVERIFY(clustered.waitForFinished(60000));
    QVERIFY2(clustered.exitCode() == 0, clustered.readAllStandardError().constData());
    const QList<QByteArray> lines = clustered.readAllStandardOutput().trimmed().split('\n');
    const QJsonObject summary = QJsonDocument::fromJson(lines.last()).object();
    std::vector<std::int32_t> run_labels;
    {
        std::ifstream in(dir.filePath("run-labels.txt").toStdString());
        for (std::int32_t label; in >> label;) run_labels.push_back(label);
    }
    QCOMPARE(run_labels.size(), c.points.rows());
    const double run_silhouette = kms::silhouette(c.points, run_labels).score;
    QVERIFY2(close(summary.value("silhouette").toDouble(), run_silhouette, 1e-12, 1.0), lines.last().constData());
    QVERIFY(close(summary.value("davies_bouldin").toDouble(), kms::davies_bouldin(c.points, run_labels), 1e-12));
    QVERIFY(lines.last().count("\"inertia\"") == 1);  // the summary's own, not twice

    // Too few labels: an error naming both files.
    QProcess bad;
    bad.start(QString::fromStdString(cli), {"score", "--input", dir.filePath("points.csv"), "--labels", dir.filePath("short.txt")});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 1);
    const QString message = QString::fromUtf8(bad.readAllStandardError());
    QVERIFY2(message.contains("short.txt") && message.contains("points.csv"), qPrintable(message));
}

QTEST_GUILESS_MAIN(TestScores)
#include "test_scores.moc"
