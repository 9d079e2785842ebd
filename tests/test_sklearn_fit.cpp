// Oracle for the fit layer's restarts and for predict: kms::fit with n_init = R
// keeps the restart scikit-learn keeps when each seed's initial centroids C0(S+r)
// are given to KMeans(n_init=1, init=C0) (labels equal, centroids within 1e-9,
// per-restart inertia within 1e-9), and `kmeans-cli predict` labels new points
// as KMeans.predict does, with -KMeans.score as its inertia. Also the CLI's
// --n-init JSON summary.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>

#include "kms/fit.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "test_support.hpp"

using namespace kms;

namespace {

double read_number(const std::string& path) {
    double value = std::nan("");
    std::ifstream(path) >> value;
    return value;
}

bool close(double a, double b, double relative) { return std::abs(a - b) <= relative * std::max(1.0, std::abs(b)); }

struct Run {
    int exit_code = -1;
    QByteArray out, err;
};
Run run_cli(const QStringList& arguments) {
    QProcess process;
    process.start(QString::fromStdString(test::env_or_empty("KMS_CLI")), arguments);
    Run run;
    if (!process.waitForFinished(120000)) return run;
    run.exit_code = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

}  // namespace

class TestSklearnFit : public QObject {
    Q_OBJECT
private slots:
    void restarts_and_predict_match_scikit_learn() {
        const std::string python = test::python();
        if (python.empty()) {
            if (test::in_ci()) QFAIL("CI must run the scikit-learn oracle: no python3 with sklearn was found");
            QSKIP("no python3 with scikit-learn found at configure time (Debian: python3-sklearn); oracle skipped");
        }
        if (test::env_or_empty("KMS_CLI").empty()) QFAIL("KMS_CLI is not set (run through CTest)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();

        struct Case {
            std::size_t n, d, k, centres;
            double spread, tol;
            int n_init;
            std::uint64_t seed;
            InitMethod init;
        };
        std::vector<Case> cases;
        for (std::uint64_t i = 0; i < 12; ++i) {
            const std::uint64_t seed = 300 + i;
            Case c{};
            c.seed = seed;
            c.n = 200 + random_below(seed, 9, 0, 1500);
            c.d = 1 + random_below(seed, 9, 1, 5);
            c.k = 2 + random_below(seed, 9, 2, 12);
            c.centres = 2 + random_below(seed, 9, 3, 10);  // often not k: restarts then really differ
            c.spread = 0.5 + 3.0 * random_uniform(seed, 9, 4);
            c.tol = i % 2 ? 1e-4 : 0.0;
            c.n_init = 2 + static_cast<int>(random_below(seed, 9, 5, 5));
            c.init = i % 3 == 0 ? InitMethod::Random : InitMethod::KMeansPlusPlus;
            cases.push_back(c);
        }

        std::ofstream manifest(root + "/manifest.txt");
        std::vector<std::shared_ptr<const Matrix<double>>> data;
        std::vector<FitResult> fitted;
        std::vector<FitOptions> options;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const Case& c = cases[i];
            data.push_back(std::make_shared<const Matrix<double>>(test::gaussian_blobs(c.n, c.d, c.centres, c.spread, c.seed, 4)));
            FitOptions fit_options;
            fit_options.k = c.k;
            fit_options.n_init = c.n_init;
            fit_options.init.method = c.init;
            fit_options.init.seed = c.seed;
            const Algorithm lloyd_elkan_hamerly[] = {Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Hamerly};
            fit_options.solver.algorithm = lloyd_elkan_hamerly[i % 3];  // the same answer
            fit_options.solver.backend = i % 2 ? Backend::OpenMP : Backend::Sequential;
            fit_options.solver.precision = Precision::F64;
            fit_options.solver.tol = c.tol;
            fit_options.solver.empty_policy = EmptyClusterPolicy::Farthest;  // scikit-learn's behaviour
            options.push_back(fit_options);
            fitted.push_back(fit(data.back(), fit_options));

            const std::string base = root + "/case" + std::to_string(i);
            write_centroids_csv(base + ".data.csv", *data.back());
            write_centroids_csv(base + ".query.csv", test::gaussian_blobs(97, c.d, c.centres, c.spread * 1.5, c.seed, 5));
            manifest << base << ".data.csv " << base << ".query.csv " << base << " " << c.tol;
            for (int r = 0; r < c.n_init; ++r) {
                InitOptions init = fit_options.init;
                init.seed = c.seed + static_cast<std::uint64_t>(r);
                const std::string init_path = base + ".init" + std::to_string(r) + ".csv";
                write_centroids_csv(init_path, initialize_centroids(*data.back(), c.k, init));
                manifest << " " << init_path;
            }
            manifest << "\n";
        }
        manifest.close();

        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        const QString script = QString::fromStdString(test::env_or_empty("KMS_SOURCE_DIR")) + "/tests/sklearn_fit_oracle.py";
        process.start(QString::fromStdString(python), {script, QString::fromStdString(root + "/manifest.txt")});
        QVERIFY2(process.waitForFinished(300000), "scikit-learn oracle timed out");
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, process.readAll().constData());

        int restarts_that_differ = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const std::string base = root + "/case" + std::to_string(i);
            const std::string where = "case " + std::to_string(i) + " n=" + std::to_string(cases[i].n) + " d=" +
                                      std::to_string(cases[i].d) + " k=" + std::to_string(cases[i].k) +
                                      " n_init=" + std::to_string(cases[i].n_init) + " " + options[i].solver.describe();
            const FitResult& ours = fitted[i];
            QCOMPARE(static_cast<int>(ours.restarts.size()), cases[i].n_init);
            const Matrix<double> inertias = load_matrix(base + ".inertias");
            for (int r = 0; r < cases[i].n_init; ++r) {
                QCOMPARE(ours.restarts[r].seed, cases[i].seed + static_cast<std::uint64_t>(r));
                QVERIFY2(close(ours.restarts[r].inertia, inertias(r, 0), 1e-9),
                         (where + ": restart " + std::to_string(r) + " inertia " +
                          std::to_string(ours.restarts[r].inertia) + " vs " + std::to_string(inertias(r, 0))).c_str());
                restarts_that_differ += !close(inertias(r, 0), inertias(0, 0), 1e-9);
            }
            QVERIFY2(ours.best_restart == static_cast<int>(read_number(base + ".best")), where.c_str());
            QVERIFY2(ours.labels == load_labels(base + ".labels"), where.c_str());
            const Matrix<double> centers = load_matrix(base + ".centers");
            QCOMPARE(ours.centroids.rows(), centers.rows());
            for (std::size_t e = 0; e < centers.size(); ++e)
                QVERIFY2(close(ours.centroids.values()[e], centers.values()[e], 1e-9), where.c_str());

            // predict through the CLI against scikit-learn's centres.
            const QString labels_out = QString::fromStdString(base + ".ours.predict");
            const Run predicted = run_cli({"predict", "--input", QString::fromStdString(base + ".query.csv"),
                                           "--centroids", QString::fromStdString(base + ".centers"), "--labels-out",
                                           labels_out, "--report", "json", "--backend",
                                           i % 2 ? "omp" : "seq"});
            QVERIFY2(predicted.exit_code == 0, predicted.err.constData());
            QVERIFY2(load_labels(labels_out.toStdString()) == load_labels(base + ".predict"), where.c_str());
            const QJsonObject summary = QJsonDocument::fromJson(predicted.out).object();
            QVERIFY2(close(summary["inertia"].toDouble(), read_number(base + ".query_inertia"), 1e-9), where.c_str());
        }
        QVERIFY2(restarts_that_differ > 10, "the cases must exercise the choice between restarts");
    }

    // kmeans-cli run --n-init: the JSON summary names every restart and the one
    // kept; the labels and centroids written are the kept restart's, and agree
    // (predict against the written centroids gives the written labels and inertia).
    void cli_reports_restarts() {
        if (test::env_or_empty("KMS_CLI").empty()) QFAIL("KMS_CLI is not set (run through CTest)");
        QTemporaryDir dir;
        const QString data = dir.filePath("data.csv"), labels = dir.filePath("labels.txt"),
                      centroids = dir.filePath("c.csv");
        QCOMPARE(run_cli({"generate", "--generate", "blobs:n=3000,k=7,d=2", "--seed", "3", "--out", data}).exit_code, 0);
        const Run run = run_cli({"run", "--input", data, "--seed", "11", "--k", "4", "--n-init", "5", "--tol", "0",
                                 "--report", "json", "--labels-out", labels, "--centroids-out", centroids});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QList<QByteArray> lines = run.out.trimmed().split('\n');
        const QJsonObject summary = QJsonDocument::fromJson(lines.back()).object();
        QCOMPARE(summary["type"].toString(), QString("summary"));
        QCOMPARE(summary["n_init"].toInt(), 5);
        const QJsonArray restarts = summary["restarts"].toArray();
        QCOMPARE(restarts.size(), 5);
        const int best = summary["best_restart"].toInt();
        double lowest = restarts[0].toObject()["inertia"].toDouble();
        int iterations_seen = 0;
        for (int r = 0; r < restarts.size(); ++r) {
            const QJsonObject restart = restarts[r].toObject();
            QCOMPARE(restart["seed"].toInt(), 11 + r);
            QCOMPARE(restart["restart"].toInt(), r);
            lowest = std::min(lowest, restart["inertia"].toDouble());
            iterations_seen += restart["iterations"].toInt();
        }
        QCOMPARE(summary["inertia"].toDouble(), restarts[best].toObject()["inertia"].toDouble());
        QCOMPARE(summary["inertia"].toDouble(), lowest);
        for (int r = 0; r < best; ++r)  // ties go to the lowest seed
            QVERIFY(restarts[r].toObject()["inertia"].toDouble() > lowest);
        QCOMPARE(summary["iterations"].toInt(), restarts[best].toObject()["iterations"].toInt());
        int iteration_lines = 0;
        for (const QByteArray& line : lines) {
            const QJsonObject object = QJsonDocument::fromJson(line).object();
            if (object["type"].toString() != "iteration") continue;
            ++iteration_lines;
            QVERIFY(object["restart"].toInt() >= 0 && object["restart"].toInt() < 5);
        }
        QCOMPARE(iteration_lines, iterations_seen);
        const Run predicted = run_cli({"predict", "--input", data, "--centroids", centroids, "--labels-out",
                                       dir.filePath("p.txt"), "--report", "json"});
        QVERIFY2(predicted.exit_code == 0, predicted.err.constData());
        QCOMPARE(load_labels(dir.filePath("p.txt").toStdString()), load_labels(labels.toStdString()));
        QVERIFY(close(QJsonDocument::fromJson(predicted.out).object()["inertia"].toDouble(), lowest, 1e-12));
        // A centroid file gives the same run every time: several restarts of it are refused.
        const Run refused = run_cli({"run", "--input", data, "--k", "4", "--init", centroids, "--n-init", "3"});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY(refused.err.contains("--n-init 3 needs a seeded initialisation"));
    }

    void predict_refuses_mismatched_centroids() {
        QTemporaryDir dir;
        std::ofstream(dir.filePath("x.csv").toStdString()) << "1,2\n3,4\n5,6\n";
        std::ofstream(dir.filePath("c.csv").toStdString()) << "1,2,3\n";
        const Run run = run_cli({"predict", "--input", dir.filePath("x.csv"), "--centroids", dir.filePath("c.csv"),
                                 "--labels-out", dir.filePath("l.txt")});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(run.err.contains("c.csv: 3 coordinates per centroid, but") && run.err.contains("has 2"),
                 run.err.constData());
        QVERIFY(!QFileInfo::exists(dir.filePath("l.txt")));
        const Run usage = run_cli({"predict", "--input", dir.filePath("x.csv"), "--labels-out", dir.filePath("l.txt")});
        QCOMPARE(usage.exit_code, 2);
        QVERIFY(usage.err.contains("--centroids PATH is required"));
        // More centroids than points is fine for an assignment.
        std::ofstream(dir.filePath("c5.csv").toStdString()) << "0,0\n1,2\n9,9\n5,6\n3,4.5\n";
        const Run many = run_cli({"predict", "--input", dir.filePath("x.csv"), "--centroids", dir.filePath("c5.csv"),
                                  "--labels-out", dir.filePath("l5.txt")});
        QVERIFY2(many.exit_code == 0, many.err.constData());
        QCOMPARE(load_labels(dir.filePath("l5.txt").toStdString()), (std::vector<std::int32_t>{1, 4, 3}));
    }
};

QTEST_GUILESS_MAIN(TestSklearnFit)
#include "test_sklearn_fit.moc"
