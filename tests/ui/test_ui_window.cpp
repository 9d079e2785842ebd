// The studio's main window, offscreen: opening the bundled default, stepping,
// every export (labels, centroids, JSON report, charts CSV) checked by reading
// the files back, a load error shown in the window with the data kept, and
// entering / leaving compare mode with the run's initial centroids, and the
// compare table's final scores of every solver (equal to kms::compute_scores of
// that solver's final labels; a reset removes them).
#include <QtTest>

#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QLocale>
#include <QTableView>
#include <QTemporaryDir>

#include <fstream>

#include "compare/compare_session.hpp"
#include "compare/compare_table.hpp"
#include "compare/compare_view.hpp"
#include "kms/error.hpp"
#include "kms/scores.hpp"
#include "main_window.hpp"

#include "test_support.hpp"

using namespace kms;
using kms::test::wait_for;
using namespace kms::ui;

namespace {

QStringList read_lines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

class TestUiWindow : public QObject {
    Q_OBJECT
private slots:
    void opens_default_steps_and_exports() {
        MainWindow window;
        window.open_default();
        RunController& run = window.controller();
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        const std::size_t n = run.dataset().n(), d = run.dataset().d(), k = run.initial_centroids().rows();
        QVERIFY(n > 0 && k > 0);
        if (!find_default_dataset().isEmpty())
            QVERIFY(QString::fromStdString(run.dataset().dataset->name).endsWith(QStringLiteral("default.csv")));

        QTemporaryDir dir;
        // Nothing assigned yet: exporting labels is refused with the reason.
        bool refused = false;
        try {
            window.export_labels(dir.filePath(QStringLiteral("early.csv")));
        } catch (const Error& error) {
            refused = QString::fromUtf8(error.what()).contains(QStringLiteral("step"));
        }
        QVERIFY(refused);

        run.run_steps(2);
        QVERIFY(wait_for([&] { return !run.running() && (run.latest_iteration() == 2 || run.converged()); }));
        QVERIFY(wait_for([&] { return run.displayed_labels() != nullptr; }));
        const int iterations = run.latest_iteration();

        const QString labels_path = dir.filePath(QStringLiteral("labels.csv"));
        window.export_labels(labels_path);
        const QStringList labels = read_lines(labels_path);
        QCOMPARE(std::size_t(labels.size()), n);
        for (int i = 0; i < labels.size(); ++i) {
            bool ok = false;
            const int label = labels[i].trimmed().toInt(&ok);
            QVERIFY(ok && label >= 0 && std::size_t(label) < k);
            QCOMPARE(label, (*run.displayed_labels())[std::size_t(i)]);
        }

        const QString centroids_path = dir.filePath(QStringLiteral("centroids.csv"));
        window.export_centroids(centroids_path);
        const QStringList centroids = read_lines(centroids_path);
        QCOMPARE(std::size_t(centroids.size()), k);
        QCOMPARE(std::size_t(centroids[0].split(QLatin1Char(',')).size()), d);
        QCOMPARE(centroids[0].split(QLatin1Char(','))[0].toDouble(), run.displayed_centroids()(0, 0));

        const QString report_path = dir.filePath(QStringLiteral("report.json"));
        window.export_report(report_path);
        const QStringList report = read_lines(report_path);
        QCOMPARE(report.size(), iterations + 1);
        QVERIFY(report.last().contains(QStringLiteral("\"type\":\"summary\"")));
        QVERIFY(report.last().contains(QStringLiteral("\"iterations\":%1").arg(iterations)));
        QVERIFY(report.last().contains(run.solver_description()));
        // The summary's inertia is that of the final labels and centroids.
        const double expected = inertia(run.dataset().dataset->points, *run.latest_labels(), run.history().back().centroids);
        QVERIFY(report.last().contains(QStringLiteral("\"inertia\":")));
        QVERIFY(expected > 0);

        const QString charts_path = dir.filePath(QStringLiteral("charts.csv"));
        window.export_charts(charts_path);
        QCOMPARE(read_lines(charts_path).size(), iterations + 1);  // header + one row per iteration

        const QString png = dir.filePath(QStringLiteral("window.png"));
        window.export_png(png);
        QVERIFY(!QImage(png).isNull());
        // A path that cannot be written: an error naming it, no crash.
        bool named = false;
        try {
            window.export_labels(dir.filePath(QStringLiteral("no/such/dir/labels.csv")));
        } catch (const Error& error) {
            named = QString::fromUtf8(error.what()).contains(QStringLiteral("labels.csv"));
        }
        QVERIFY(named);
    }

    void load_error_is_shown_and_data_kept() {
        MainWindow window;
        window.controller().generate(QStringLiteral("blobs:n=300,k=3,d=2"), 1);
        RunController& run = window.controller();
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        const auto before = run.dataset().dataset;
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.csv"));
        {
            std::ofstream out(bad.toStdString());
            out << "x,y\n1,2\n3\n";
        }
        QSignalSpy failed(&run, &RunController::loadFailed);
        run.load_file(bad);
        QVERIFY(wait_for([&] { return failed.count() == 1; }));
        QVERIFY2(window.last_error().contains(QStringLiteral("broken.csv")), qPrintable(window.last_error()));
        QCOMPARE(run.dataset().dataset, before);
        QVERIFY(run.ready());
    }

    void compare_mode_uses_the_runs_initial_centroids() {
        MainWindow window;
        RunController& run = window.controller();
        run.generate(QStringLiteral("blobs:n=500,k=4,d=2"), 2);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        std::vector<SolverConfig> configs(2);
        configs[1].algorithm = Algorithm::Hamerly;
        window.start_compare(configs);
        QVERIFY(window.compare_mode());
        CompareSession& session = window.compare_session();
        QVERIFY(wait_for([&] { return session.all_ready(); }));
        QCOMPARE(session.size(), std::size_t(2));
        for (std::size_t i = 0; i < session.size(); ++i) QVERIFY(session.run(i).initial_centroids() == run.initial_centroids());
        session.step_all();
        QVERIFY(wait_for([&] { return session.run(0).latest_iteration() == 1 && session.run(1).latest_iteration() == 1; }));
        QVERIFY(*session.run(0).displayed_labels() == *session.run(1).displayed_labels());  // exact acceleration
        window.start_compare({});
        QVERIFY(!window.compare_mode());
        QCOMPARE(session.size(), std::size_t(0));
    }

    void compare_table_shows_every_solvers_final_scores() {
        MainWindow window;
        RunController& run = window.controller();
        run.generate(QStringLiteral("blobs:n=600,k=4,d=2"), 3);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        std::vector<SolverConfig> configs(3);
        configs[1].algorithm = Algorithm::Hamerly;
        configs[2].algorithm = Algorithm::Elkan;
        configs[2].precision = Precision::F32;
        window.start_compare(configs);
        CompareSession& session = window.compare_session();
        QVERIFY(wait_for([&] { return session.all_ready(); }));
        const CompareModel& model = *window.compare_table().model();
        const auto cell = [&](int row, int column) {
            return model.data(model.index(row, column), CompareModel::kValueRole).toDouble();
        };
        session.step_all();
        QVERIFY(wait_for([&] { return !session.any_running() && session.run(0).latest_iteration() == 1; }));
        QTest::qWait(50);
        // Not converged yet: no scores.
        for (int row = 0; row < 3; ++row) QVERIFY(std::isnan(cell(row, CompareModel::Silhouette)));

        session.run_all_to_convergence();
        QVERIFY(wait_for([&] { return session.all_converged() && window.scores_idle(); }));
        QCoreApplication::processEvents();
        QCOMPARE(model.rowCount(), 3);
        const Dataset& data = *session.run(0).dataset().dataset;
        QCOMPARE(data.truth_labels.size(), data.n());
        for (int row = 0; row < 3; ++row) {
            const RunController& solver = session.run(std::size_t(row));
            ScoreInputs inputs;
            inputs.points = &data.points;
            inputs.labels = *solver.latest_labels();
            inputs.centroids = &solver.history().back().centroids;
            inputs.truth_labels = data.truth_labels;
            ScoreSettings settings;
            settings.silhouette = SilhouetteMode::Exact;  // 600 points: exact, as the scores dock
            const Scores expected = compute_scores(inputs, settings);
            QVERIFY(window.compare_scores().scores(std::size_t(row)).has_value());
            const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); };
            QVERIFY2(same(cell(row, CompareModel::Silhouette), expected.silhouette), qPrintable(QString::number(row)));
            QVERIFY(same(cell(row, CompareModel::CalinskiHarabasz), expected.calinski_harabasz));
            QVERIFY(same(cell(row, CompareModel::DaviesBouldin), expected.davies_bouldin));
            QVERIFY(same(cell(row, CompareModel::Ari), expected.ari));
            QVERIFY(same(cell(row, CompareModel::Nmi), expected.nmi));
            QVERIFY(expected.silhouette > 0.3);  // well-separated blobs: a real score, not a default
            // What the table shows is formatted from the same number.
            QVERIFY(!model.data(model.index(row, CompareModel::Silhouette)).toString().isEmpty());
        }

        // A reset run's final scores no longer apply.
        session.reset_all();
        QVERIFY(wait_for([&] { return session.run(0).latest_iteration() == 0; }));
        QVERIFY(wait_for([&] { return std::isnan(cell(0, CompareModel::Silhouette)); }));
        for (std::size_t row = 0; row < 3; ++row) QVERIFY(!window.compare_scores().scores(row).has_value());
        window.start_compare({});
        QVERIFY(!window.compare_mode());
    }

    // A temporary status message is never drawn under the run's details: they give
    // way while it shows and come back when it is cleared.
    void status_message_hides_the_details_while_it_shows() {
        MainWindow window;  // not shown (offscreen has no OpenGL): isHidden() is the label's own state
        RunController& run = window.controller();
        run.generate(QStringLiteral("blobs:n=2000,k=4,d=2"), 1);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        run.run_steps(2);
        QVERIFY(wait_for([&] { return !run.running() && run.latest_iteration() >= 1; }));
        auto* detail = window.findChild<QLabel*>(QStringLiteral("statusDetail"));
        QVERIFY(detail);
        window.statusBar()->clearMessage();
        QVERIFY(wait_for([&] { return !detail->text().isEmpty() && !detail->isHidden(); }));
        window.statusBar()->showMessage(QStringLiteral("Loaded something with a long name"), 8000);
        QVERIFY(detail->isHidden());
        window.statusBar()->clearMessage();
        QVERIFY(!detail->isHidden());
    }

    void yinyang_group_skips_in_status_csv_and_compare() {
        // Yinyang with k = 50 (t = 5 groups): its group skips in the status line,
        // the charts' CSV, the compare captions and table; Lloyd shows none.
        MainWindow window;
        RunController& run = window.controller();
        run.generate(QStringLiteral("blobs:n=3000,k=50,d=2,spread=0.3"), 4);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        RunSetup setup = run.setup();
        setup.k = 50;
        setup.config.algorithm = Algorithm::Yinyang;
        window.apply_setup(setup);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy() && run.initial_centroids().rows() == 50; }));
        QVERIFY(run.solver_description().startsWith(QStringLiteral("yinyang")));
        run.run_steps(4);
        QVERIFY(wait_for([&] { return !run.running() && (run.latest_iteration() == 4 || run.converged()); }));
        QVERIFY(run.latest_iteration() >= 3);
        QCoreApplication::processEvents();
        const IterationStats& last = run.history()[std::size_t(run.displayed_iteration())].stats;
        QVERIFY(last.groups >= 1 && last.groups <= 5);
        QVERIFY(last.group_skips > 0);
        const QLocale english(QLocale::English);
        const QString expected = QStringLiteral("group skips %1 (%2% of n·t, t = %3)")
                                     .arg(english.toString(static_cast<qulonglong>(last.group_skips)))
                                     .arg(english.toString(100.0 * double(last.group_skips) /
                                                               (double(run.dataset().n()) * last.groups), 'f', 1))
                                     .arg(last.groups);
        QVERIFY(wait_for([&] { return window.status_line().contains(expected); }));
        QVERIFY2(window.status_line().contains(QStringLiteral("   skips ")), qPrintable(window.status_line()));

        QTemporaryDir dir;
        const auto group_fields = [&](const QString& path) {
            window.export_charts(path);
            const QStringList lines = read_lines(path);
            const QStringList header = lines.value(0).split(QLatin1Char(','));
            const auto column = header.indexOf(QStringLiteral("groups"));
            QStringList fields;
            for (int i = 1; i < lines.size(); ++i) {
                const QStringList row = lines[i].split(QLatin1Char(','));
                fields << row.mid(column, 3).join(QLatin1Char(','));
            }
            return fields;
        };
        const QStringList yinyang_fields = group_fields(dir.filePath(QStringLiteral("yinyang.csv")));
        QCOMPARE(yinyang_fields.size(), run.latest_iteration());
        QCOMPARE(yinyang_fields.last().section(QLatin1Char(','), 0, 1),
                 QStringLiteral("%1,%2").arg(last.groups).arg(last.group_skips));

        // Lloyd: no skips at all in the status line, empty group fields in the CSV.
        setup.config.algorithm = Algorithm::Lloyd;
        window.apply_setup(setup);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy() && run.solver_description().startsWith(QStringLiteral("lloyd")); }));
        run.run_steps(2);
        QVERIFY(wait_for([&] { return !run.running() && run.latest_iteration() == 2; }));
        QVERIFY(wait_for([&] { return window.status_line().contains(QStringLiteral("iteration 2")); }));
        QVERIFY2(!window.status_line().contains(QStringLiteral("skips")), qPrintable(window.status_line()));
        for (const QString& fields : group_fields(dir.filePath(QStringLiteral("lloyd.csv"))))
            QCOMPARE(fields, QStringLiteral(",,"));

        // Compare Lloyd and Yinyang: captions and table.
        std::vector<SolverConfig> configs(2, setup.config);
        configs[1].algorithm = Algorithm::Yinyang;
        window.start_compare(configs);
        // The toolbar's boxes tick what is compared (Elkan and Hamerly, ticked by default, not).
        for (const char* name : {"lloyd", "elkan", "hamerly", "yinyang"}) {
            const auto* box = window.findChild<QCheckBox*>(QStringLiteral("compare_") + QLatin1String(name));
            QVERIFY2(box, name);
            QCOMPARE(box->isChecked(), std::string_view(name) == "lloyd" || std::string_view(name) == "yinyang");
        }
        CompareSession& session = window.compare_session();
        QVERIFY(wait_for([&] { return session.all_ready(); }));
        for (int i = 1; i <= 3; ++i) {
            session.step_all();
            QVERIFY(wait_for([&] {
                return !session.any_running() && session.run(0).latest_iteration() == i &&
                       session.run(1).latest_iteration() == i;
            }));
        }
        QCoreApplication::processEvents();
        const IterationStats& compared = session.run(1).history()[3].stats;
        QVERIFY(compared.groups > 0);
        QVERIFY(wait_for([&] {
            return window.compare_view().caption(1).contains(
                QStringLiteral("group skips %1").arg(english.toString(static_cast<qulonglong>(compared.group_skips))));
        }));
        QVERIFY2(!window.compare_view().caption(0).contains(QStringLiteral("skips")), qPrintable(window.compare_view().caption(0)));
        const CompareModel& model = *window.compare_table().model();
        QCOMPARE(model.data(model.index(0, CompareModel::GroupSkipPercent)).toString(), QStringLiteral("–"));
        QVERIFY(model.data(model.index(1, CompareModel::GroupSkipPercent), CompareModel::kValueRole).toDouble() > 0.0);
        QVERIFY(!window.compare_table().summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        window.start_compare({});
    }
};

QTEST_MAIN(TestUiWindow)
#include "test_ui_window.moc"
