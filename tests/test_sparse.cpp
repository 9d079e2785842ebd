// Sparse points (kms/sparse.hpp): Elkan gives Lloyd's labels and centroids bit for bit
// at every iteration; any thread count gives the same bits; the fit of a CSR matrix
// labels as the dense fit of the same points (no near-ties in this data) and its float
// values fit as their widened values; weights weigh; a stop request ends a fit and an
// assignment cleanly; k-means‖ takes the dense seeding's rows; malformed CSR arrays are refused.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/random.hpp"
#include "kms/sparse.hpp"

using namespace kms;

namespace {

template <typename T>
struct Csr {
    std::vector<std::int64_t> indptr{0};
    std::vector<std::int32_t> indices;
    std::vector<T> values;
    std::size_t rows = 0, cols = 0;

    std::shared_ptr<const SparseMatrix<T>> view() const {
        auto m = std::make_shared<SparseMatrix<T>>();
        m->rows = rows;
        m->cols = cols;
        m->indptr = indptr.data();
        m->indices = indices.data();
        m->values = values.data();
        return m;
    }
    Matrix<double> dense() const {
        Matrix<double> out(rows, cols);
        for (std::size_t i = 0; i < rows; ++i)
            for (auto e = indptr[i]; e < indptr[i + 1]; ++e)
                out(i, static_cast<std::size_t>(indices[static_cast<std::size_t>(e)])) =
                    static_cast<double>(values[static_cast<std::size_t>(e)]);
        return out;
    }
};

// n points around k sparse centres in d dimensions: each row keeps its centre's
// columns (plus noise) and a few random ones, so clusters are separated.
template <typename T>
Csr<T> clustered(std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed, double strength = 5.0) {
    Csr<T> m;
    m.rows = n;
    m.cols = d;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = random_below(seed, 1, i, k);
        for (std::size_t j = 0; j < d; ++j) {
            const bool centre_column = j % k == c && j < 4 * k;
            const bool random_column = random_below(seed, 2, i * d + j, 50) == 0;
            if (!centre_column && !random_column) continue;
            m.indices.push_back(static_cast<std::int32_t>(j));
            m.values.push_back(static_cast<T>((centre_column ? strength : 0.0) + random_uniform(seed, 3, i * d + j)));
        }
        m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
    }
    return m;
}

FitOptions options_for(Algorithm algorithm, std::size_t k, int threads) {
    FitOptions o;
    o.k = k;
    o.solver.algorithm = algorithm;
    o.solver.backend = Backend::OpenMP;
    o.solver.threads = threads;
    o.solver.empty_policy = EmptyClusterPolicy::Farthest;
    o.solver.tol = 0.0;
    o.init.method = InitMethod::KMeansPlusPlus;
    o.init.seed = 7;
    o.n_init = 2;
    return o;
}

// Every iteration's labels and centroids.
struct Recorder : FitObserver {
    std::vector<std::vector<std::int32_t>> labels;
    std::vector<Matrix<double>> centroids;
    void iteration_done(int, const IterationStats&, const Solver& solver) override {
        labels.push_back(solver.labels());
        centroids.push_back(solver.centroids());
    }
};

bool same_bits(const Matrix<double>& a, const Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::equal(a.values().begin(), a.values().end(), b.values().begin(),
                      [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

}  // namespace

class TestSparse : public QObject {
    Q_OBJECT
private slots:
    void elkan_equals_lloyd_every_iteration_for_any_thread_count() {
        const Csr<double> data = clustered<double>(3000, 60, 9, 11, 0.3);  // overlapping: many iterations
        Recorder reference;
        const FitResult lloyd = fit(data.view(), options_for(Algorithm::Lloyd, 9, 1), &reference);
        QVERIFY(lloyd.iterations > 2);
        for (Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Elkan})
            for (int threads : {1, 3}) {
                Recorder run;
                const FitResult r = fit(data.view(), options_for(algorithm, 9, threads), &run);
                QCOMPARE(run.labels.size(), reference.labels.size());
                for (std::size_t t = 0; t < run.labels.size(); ++t) {
                    QVERIFY(run.labels[t] == reference.labels[t]);
                    QVERIFY(same_bits(run.centroids[t], reference.centroids[t]));
                }
                QVERIFY(r.labels == lloyd.labels);
                QCOMPARE(r.inertia, lloyd.inertia);
            }
    }

    void sparse_labels_as_the_dense_fit_and_floats_as_widened() {
        const Csr<float> data = clustered<float>(2000, 40, 6, 5);
        FitOptions o = options_for(Algorithm::Elkan, 6, 2);
        o.init.method = InitMethod::File;
        Matrix<double> initial(6, 40);
        for (std::size_t c = 0; c < 6; ++c)
            for (std::size_t j = 0; j < 40; ++j) initial(c, j) = data.dense()(c * 7, j);
        o.init.given = std::make_shared<const Matrix<double>>(initial);
        o.n_init = 1;
        const FitResult sparse = fit(data.view(), o);
        FitOptions dense_options = o;
        dense_options.solver.algorithm = Algorithm::Lloyd;
        const FitResult dense = fit(std::make_shared<const Matrix<double>>(data.dense()), dense_options);
        QVERIFY(sparse.labels == dense.labels);
        QCOMPARE(sparse.iterations, dense.iterations);
        for (std::size_t e = 0; e < sparse.centroids.values().size(); ++e)
            QVERIFY(std::abs(sparse.centroids.values()[e] - dense.centroids.values()[e]) < 1e-9);
        // float values: the fit of the same values in double, bit for bit
        Csr<double> widened;
        widened.rows = data.rows;
        widened.cols = data.cols;
        widened.indptr = data.indptr;
        widened.indices = data.indices;
        widened.values.assign(data.values.begin(), data.values.end());
        const FitResult twin = fit(widened.view(), o);
        QVERIFY(twin.labels == sparse.labels && same_bits(twin.centroids, sparse.centroids));
    }

    void weights_weigh_and_stop_requests_end_cleanly() {
        const Csr<double> data = clustered<double>(1500, 30, 5, 9);
        FitOptions o = options_for(Algorithm::Lloyd, 5, 2);
        auto doubled = std::make_shared<std::vector<double>>(data.rows, 2.0);
        o.sample_weight = doubled;
        const FitResult twice = fit(data.view(), o);
        o.sample_weight = nullptr;
        const FitResult once = fit(data.view(), o);
        QVERIFY(twice.labels == once.labels);
        QVERIFY(std::abs(twice.inertia - 2.0 * once.inertia) <= 1e-12 * once.inertia);

        std::stop_source stop;
        stop.request_stop();
        const FitResult cancelled = fit(data.view(), o, nullptr, stop.get_token());
        QCOMPARE(cancelled.stop_reason, StopReason::Cancelled);
        QVERIFY_THROWS_EXCEPTION(Cancelled, assign_sparse(*data.view(), once.centroids, 2, nullptr, stop.get_token()));
        const Assignment a = assign_sparse(*data.view(), once.centroids, 3);
        QVERIFY(a.labels == once.labels);
    }

    // k-means‖ over sparse rows (issue 40) takes the dense seeding's rows: the same
    // draws, owners and weighted reduction, the distances by the sparse formula (no
    // near-ties in this data); unweighted and weighted, float values as their widened
    // doubles, 1 and 3 threads, and with fewer distinct points than k (the fallback).
    void kmeans_parallel_takes_the_dense_rows() {
        const Csr<float> data = clustered<float>(3000, 40, 8, 13, 1.0);
        Csr<float> few;  // 5 distinct rows, 40 copies each
        few.rows = 200;
        few.cols = data.cols;
        for (std::size_t i = 0; i < few.rows; ++i) {
            const std::size_t source = (i * 7) % 5;
            for (auto e = data.indptr[source]; e < data.indptr[source + 1]; ++e) {
                few.indices.push_back(data.indices[static_cast<std::size_t>(e)]);
                few.values.push_back(data.values[static_cast<std::size_t>(e)]);
            }
            few.indptr.push_back(static_cast<std::int64_t>(few.indices.size()));
        }
        std::vector<double> weights(data.rows);
        for (std::size_t i = 0; i < data.rows; ++i) weights[i] = 0.5 + random_uniform(21, 1, i);
        struct Case {
            const Csr<float>* points;
            std::size_t k;
            bool weighted;
        };
        for (const Case& c : {Case{&data, 8, false}, Case{&data, 30, false}, Case{&data, 30, true}, Case{&few, 8, false}})
            for (int threads : {1, 3}) {
                InitOptions init;
                init.method = InitMethod::KMeansParallel;
                init.seed = 5;
                init.threads = threads;
                if (c.weighted) init.sample_weight = weights;
                std::vector<std::size_t> rows;
                const Matrix<double> sparse = initialize_centroids(*c.points->view(), c.k, init, "sparse", &rows);
                const Matrix<double> dense = initialize_centroids(c.points->dense(), c.k, init);
                const QString what = QString("k=%1 weighted=%2 threads=%3 n=%4").arg(c.k).arg(c.weighted).arg(threads).arg(c.points->rows);
                QVERIFY2(same_bits(sparse, dense), qPrintable(what));
                QCOMPARE(rows.size(), c.k);
                for (std::size_t r = 0; r < c.k; ++r)
                    for (std::size_t j = 0; j < c.points->cols; ++j) QCOMPARE(sparse(r, j), c.points->dense()(rows[r], j));
            }
        FitOptions o = options_for(Algorithm::Lloyd, 8, 2);
        o.init.method = InitMethod::KMeansParallel;
        const FitResult fitted = fit(data.view(), o);
        QVERIFY(fitted.iterations > 0);
    }

    void malformed_arrays_and_other_solvers_are_refused() {
        Csr<double> data = clustered<double>(50, 10, 2, 3);
        data.indices[3] = 10;  // column out of range
        QVERIFY_THROWS_EXCEPTION(InputError, fit(data.view(), options_for(Algorithm::Lloyd, 2, 1)));
        data = clustered<double>(50, 10, 2, 3);
        QVERIFY_THROWS_EXCEPTION(UsageError, fit(data.view(), options_for(Algorithm::Hamerly, 2, 1)));
        FitOptions too_many = options_for(Algorithm::Lloyd, 51, 1);
        QVERIFY_THROWS_EXCEPTION(InputError, fit(data.view(), too_many));
    }
};

QTEST_APPLESS_MAIN(TestSparse)
#include "test_sparse.moc"
