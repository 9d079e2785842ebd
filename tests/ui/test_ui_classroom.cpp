// The studio in a classroom (issue 11), offscreen: half-steps (forward and back,
// and the final relabelled step's own assignment), centroids placed by hand,
// edits refused after iteration 0 with a message, S asks before discarding a run,
// load errors in a banner that stays, k and the data source follow the data,
// replay files through the window (same labels at every iteration; hostile ones refused
// or opened, never a crash or a hang: issue 39), the studio's
// file writer refuses links, the GIF encoder round-trips through Qt's GIF reader,
// the warm-up iteration is off the time chart's scale, and the silhouette plot
// numbers all of 31 clusters.
#include <QtTest>

#include <QApplication>
#include <QBuffer>
#include <QImageReader>
#include <QFileInfo>
#include <QLineEdit>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <sys/stat.h>

#include <cstring>
#include <thread>
#include <limits>
#include <filesystem>

#include "charts/plot_widget.hpp"
#include "export/gif_encoder.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/io.hpp"
#include "kms/run_file.hpp"
#include "lesson/lesson.hpp"
#include "kms/scores.hpp"
#include "main_window.hpp"
#include "run/run_controller.hpp"
#include "run/solver_panel.hpp"
#include "run/studio_files.hpp"
#include "scores/scores_panel.hpp"
#include "scores/silhouette_plot.hpp"
#include "test_support.hpp"
#include "view/point_cloud_view.hpp"
#include "view/point_colours.hpp"

using namespace kms;
using namespace kms::ui;
using kms::test::wait_for;

namespace {

void make_ready(RunController& controller, const char* spec, std::size_t k, std::uint64_t seed = 5) {
    RunSetup setup;
    setup.k = k;
    setup.init.seed = 3;
    setup.init.method = InitMethod::Random;
    controller.set_setup(setup);
    controller.generate(QString::fromLatin1(spec), seed);
    QVERIFY2(wait_for([&] { return controller.ready() && !controller.busy(); }), "controller never became ready");
}

bool same_bits(const Matrix<double>& a, const Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), a.rows() * a.cols() * sizeof(double)) == 0;
}

std::vector<std::int32_t> assignment(const RunController& run, const Matrix<double>& centroids) {
    auto points = std::shared_ptr<const Matrix<double>>(run.dataset().dataset, &run.dataset().dataset->points);
    return kms::assign(points, centroids, run.setup().config).labels;
}

}  // namespace

class TestUiClassroom : public QObject {
    Q_OBJECT
private slots:
    void half_steps_show_assignment_then_update_and_step_back() {
        RunController run;
        make_ready(run, "blobs:n=800,k=4,d=2,spread=0.8", 4);
        run.set_half_steps(true);
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1 && run.displayed_labels(); }));
        // Assignment of iteration 1: new labels, the initial centroids unmoved.
        QCOMPARE(run.displayed_iteration(), 1);
        QCOMPARE(run.displayed_phase(), Phase::Assign);
        QVERIFY(same_bits(run.displayed_centroids(), run.history()[0].centroids));
        QCOMPARE(*run.displayed_labels(), assignment(run, run.history()[0].centroids));
        run.step();  // the update: no new solver step, the centroids move
        QCOMPARE(run.latest_iteration(), 1);
        QCOMPARE(run.displayed_phase(), Phase::Update);
        QVERIFY(same_bits(run.displayed_centroids(), run.history()[1].centroids));
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 2 && run.displayed_labels(); }));
        QCOMPARE(run.displayed_phase(), Phase::Assign);
        // Back through the half-steps: 2 assign -> 1 update -> 1 assign -> 0.
        run.step_back();
        QCOMPARE(run.displayed_iteration(), 1);
        QCOMPARE(run.displayed_phase(), Phase::Update);
        run.step_back();
        QCOMPARE(run.displayed_iteration(), 1);
        QCOMPARE(run.displayed_phase(), Phase::Assign);
        QVERIFY(same_bits(run.displayed_centroids(), run.history()[0].centroids));
        run.step_back();
        QCOMPARE(run.displayed_iteration(), 0);
        QVERIFY(!run.displayed_labels());
        // Forward again replays the kept history by half-steps.
        run.step();
        QCOMPARE(run.displayed_iteration(), 1);
        QCOMPARE(run.displayed_phase(), Phase::Assign);
    }

    void relabelled_last_step_shows_its_own_assignment() {
        // A huge tol stops at iteration 1 on Tolerance: the fit layer relabels against
        // the final centroids, yet the assignment half-step must show the labels
        // against the centroids before the update.
        RunController run;
        RunSetup setup;
        setup.k = 5;
        setup.init.method = InitMethod::Random;
        setup.init.seed = 1;
        setup.config.tol = 1e6;
        run.set_k_from_data(false);
        run.set_setup(setup);
        run.generate(QStringLiteral("blobs:n=1500,k=5,d=2,spread=1.5"), 2);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        run.set_half_steps(true);
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1 && run.displayed_labels(); }));
        QCOMPARE(run.stop_reason(), StopReason::Tolerance);
        QVERIFY(run.history()[1].finalized);
        QCOMPARE(*run.displayed_labels(), assignment(run, run.history()[0].centroids));
        run.step();
        QVERIFY(wait_for([&] { return run.displayed_labels() != nullptr; }));
        QCOMPARE(*run.displayed_labels(), assignment(run, run.history()[1].centroids));
    }

    void centroids_by_hand_at_iteration_zero_only() {
        RunController run;
        make_ready(run, "blobs:n=600,k=3,d=2", 3);
        QVERIFY(run.centroids_editable());
        QVERIFY(run.add_initial_centroid(0.25, -0.5));
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.initial_centroids().rows(), std::size_t(4));
        QCOMPARE(run.setup().k, std::size_t(4));
        const auto placed = run.dataset().projection.project(run.initial_centroids().row(3));
        QVERIFY(std::abs(placed[0] - 0.25) < 1e-9 && std::abs(placed[1] + 0.5) < 1e-9);
        QVERIFY(run.remove_initial_centroid(0));
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.initial_centroids().rows(), std::size_t(3));
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1; }));
        // The solver started from the centroids placed by hand.
        QVERIFY(same_bits(run.history()[0].centroids, run.initial_centroids()));
        QVERIFY(!run.centroids_editable());
        QVERIFY(!run.add_initial_centroid(0.0, 0.0));
        QVERIFY(!run.remove_initial_centroid(0));
        run.reset();  // Home: editable again
        QVERIFY(run.centroids_editable());
    }

    void view_says_why_a_centroid_cannot_move() {
        PointCloudView view;
        view.resize(400, 300);
        view.set_centroids({QPointF(0.0, 0.0)}, {});
        QSignalSpy refused(&view, &PointCloudView::centroidEditRefused);
        QSignalSpy added(&view, &PointCloudView::centroidAddRequested);
        QSignalSpy removed(&view, &PointCloudView::centroidRemoveRequested);
        const QPoint marker = view.world_to_pixel(QPointF(0.0, 0.0)).toPoint();
        view.set_centroids_editable(false);
        QTest::mousePress(&view, Qt::LeftButton, {}, marker);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, marker);
        QCOMPARE(refused.count(), 1);  // a message, not a silent pan
        view.set_centroids_editable(true);
        QTest::mouseClick(&view, Qt::RightButton, {}, marker);
        QCOMPARE(removed.count(), 1);
        QTest::mouseClick(&view, Qt::LeftButton, {}, marker + QPoint(80, 40));
        QCOMPARE(added.count(), 1);
        QCOMPARE(refused.count(), 1);
    }

    void reseed_asks_before_discarding_iterations() {
        MainWindow window;
        RunController& run = window.controller();
        run.set_setup(RunSetup{});
        run.generate(QStringLiteral("blobs:n=500,k=3,d=2"), 4);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        const std::uint64_t seed = run.setup().init.seed;
        window.request_reseed();  // iteration 0: nothing to lose, re-seeds at once
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.setup().init.seed, seed + 1);
        run.run_steps(2);
        QVERIFY(wait_for([&] { return !run.running() && run.latest_iteration() >= 1; }));
        window.request_reseed();
        QCOMPARE(run.setup().init.seed, seed + 1);  // only asked
        QVERIFY(run.latest_iteration() >= 1);
        QVERIFY(window.banner_text().contains(QStringLiteral("Press S again")));
        window.request_reseed();
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.setup().init.seed, seed + 2);
        QCOMPARE(run.latest_iteration(), 0);
    }

    void load_error_banner_stays_until_dismissed_and_data_follows_the_load() {
        MainWindow window;
        RunController& run = window.controller();
        RunSetup setup;
        setup.k = 31;
        run.set_setup(setup);
        run.generate(QStringLiteral("blobs:n=300,k=3,d=2"), 4);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        // A labelled set brings its number of classes, not the previous k.
        QCOMPARE(run.setup().k, std::size_t(3));
        QVERIFY(run.data_source().contains(QStringLiteral("blobs:n=300,k=3,d=2")));
        // The Data panel's generator fields describe the data shown, not a stale default.
        QCOMPARE(window.findChild<QLineEdit*>(QStringLiteral("generatorSpec"))->text(),
                 QStringLiteral("blobs:n=300,k=3,d=2"));
        QCOMPARE(window.findChild<QSpinBox*>(QStringLiteral("dataSeed"))->value(), 4);
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.csv"));
        {
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("1,2\n3,oops\n");
        }
        run.load_file(bad);
        QVERIFY(wait_for([&] { return !window.last_error().isEmpty(); }));
        QVERIFY(window.banner_text().contains(QStringLiteral("bad.csv:2")));
        QTest::qWait(200);
        QVERIFY(!window.banner_text().isEmpty());  // no time-out: it stays
        window.dismiss_banner();
        QVERIFY(window.banner_text().isEmpty());
        QVERIFY(run.data_source().contains(QStringLiteral("blobs")));  // the old data stays, and says so
    }

    void replay_file_from_the_window_repeats_every_iteration() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.kmsrun"));
        std::vector<std::vector<std::int32_t>> first;
        {
            MainWindow window;
            RunController& run = window.controller();
            RunSetup setup;
            setup.k = 4;
            setup.config.algorithm = Algorithm::Hamerly;
            setup.init.seed = 9;
            run.set_setup(setup);
            run.generate(QStringLiteral("blobs:n=1200,k=4,d=3,spread=1.2"), 8);
            QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
            QVERIFY(run.move_initial_centroid(0, 0.1, 0.2));  // by hand: only the file can repeat it
            window.save_run(path);
            for (int i = 0; i < 4; ++i) {
                run.step();
                QVERIFY(wait_for([&] { return run.latest_iteration() == i + 1 || run.converged(); }));
                if (run.latest_iteration() == i) break;
                first.push_back(*run.history().back().labels);
            }
        }
        MainWindow window;
        window.open_run(path);
        RunController& run = window.controller();
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.setup().config.algorithm, Algorithm::Hamerly);
        for (std::size_t i = 0; i < first.size(); ++i) {
            run.step();
            QVERIFY(wait_for([&] { return run.latest_iteration() == int(i) + 1; }));
            QVERIFY2(*run.history().back().labels == first[i], qPrintable(QStringLiteral("iteration %1").arg(i + 1)));
        }
        // A malformed file: an error naming file and line, the run untouched.
        const QString bad = dir.filePath(QStringLiteral("bad.kmsrun"));
        {
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("kmsrun 1\ndata generate 1 blobs:n=10,k=2,d=2\ncentroid 1 zz\nend\n");
        }
        try {
            window.open_run(bad);
            QFAIL("opened a malformed run file");
        } catch (const InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("bad.kmsrun:3:")), error.what());
        }
    }

    // Issue 39: replay files that crashed (SIGABRT) or hung the studio. Each is refused
    // naming the file (and line), or opens and draws: labels 2^31 - 1 on three drawn points.
    void hostile_replay_files_are_refused_or_opened() {
        QTemporaryDir dir;
        const auto drawn = [&](const char* name, const char* label) {
            const QString path = dir.filePath(QString::fromLatin1(name));
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly)) return QString();
            file.write(QStringLiteral("kmsrun 1\ndata inline 3 2 truth drawn\npoint 0 0 %1\npoint 1 1 %1\n"
                                      "point 5 5 %1\ncentroid 0 0\ncentroid 5 5\nend\n")
                           .arg(QString::fromLatin1(label))
                           .toUtf8());
            return path;
        };
        MainWindow window;  // not shown: the offscreen platform has no GL to flush a shown window with
        RunController& run = window.controller();
        const auto refused = [&](const QString& path, const QString& expected) {
            try {
                window.open_run(path);
            } catch (const Error& error) {
                return QString::fromUtf8(error.what()).contains(expected);
            }
            return false;
        };
        QVERIFY(refused(drawn("negative.kmsrun", "-5"), QStringLiteral("negative.kmsrun:3: label -5 is negative")));
        QVERIFY(refused(dir.path(), QStringLiteral("is a directory")));
        QVERIFY(refused(dir.filePath(QStringLiteral("missing.kmsrun")), QStringLiteral("missing.kmsrun")));
        // Classes 0 .. 2^31 - 1 on three points: drawn in the run's colours, no palette of 2^31.
        window.open_run(drawn("huge.kmsrun", "2147483647"));
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.dataset().n(), std::size_t(3));
        QApplication::processEvents();
        // What painting takes (the palette of label_count() colours) stays small: it was 2^31.
        QVERIFY2(window.view().label_count() <= 3, qPrintable(QString::number(window.view().label_count())));
        QVERIFY(window.view().palette(window.view().label_count()).size() <= 3);
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1; }));
        // A FIFO is read as the loaders read it (opened without blocking; here a writer comes).
        const QString fifo = dir.filePath(QStringLiteral("run.fifo"));
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        std::thread writer([&] {
            QFile file(fifo);
            if (file.open(QIODevice::WriteOnly))
                file.write("kmsrun 1\ndata generate 1 blobs:n=10,k=2,d=2\ncentroid 1 2\ncentroid 3 4\nend\n");
        });
        window.open_run(fifo);
        writer.join();
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QCOMPARE(run.dataset().n(), std::size_t(10));
    }

    void studio_files_refuse_links_and_devices() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("target.txt")).toStdString();
        const std::string link = dir.filePath(QStringLiteral("link.txt")).toStdString();
        write_studio_file(target, "first\n");
        std::filesystem::create_symlink(target, link);
        QVERIFY_THROWS_EXCEPTION(Error, write_studio_file(link, "through the link\n"));
        QVERIFY_THROWS_EXCEPTION(Error, write_studio_file("/dev/null", "device\n"));
        QFile file(QString::fromStdString(target));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("first\n"));
    }

    void gif_frames_read_back_through_qt() {
        // Two frames: a flat drawing (exact colours) and a 4096-colour gradient (quantised).
        const int w = 67, h = 45;
        QImage flat(w, h, QImage::Format_RGB32), gradient(w, h, QImage::Format_RGB32);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                flat.setPixel(x, y, (x / 9 + y / 7) % 3 == 0 ? qRgb(250, 250, 250) : qRgb(31 * (x % 5), 200, 17 * (y % 9)));
                gradient.setPixel(x, y, qRgb(x * 255 / w, y * 255 / h, (x * y) % 256));
            }
        GifEncoder gif(w, h);
        gif.add_frame(reinterpret_cast<const std::uint32_t*>(flat.constBits()), int(flat.bytesPerLine() / 4), 50);
        gif.add_frame(reinterpret_cast<const std::uint32_t*>(gradient.constBits()), int(gradient.bytesPerLine() / 4), 50);
        QByteArray bytes = QByteArray::fromStdString(gif.finish());
        QBuffer buffer(&bytes);
        QImageReader reader(&buffer, "gif");
        QVERIFY2(reader.canRead(), qPrintable(reader.errorString()));
        QCOMPARE(reader.imageCount(), 2);
        const QImage first = reader.read().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(first.size(), QSize(w, h));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) QCOMPARE(first.pixel(x, y), flat.pixel(x, y));
        const QImage second = reader.read().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(second.size(), QSize(w, h));
        int far = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const QRgb a = second.pixel(x, y), b = gradient.pixel(x, y);
                if (std::abs(qRed(a) - qRed(b)) > 30 || std::abs(qGreen(a) - qGreen(b)) > 30 || std::abs(qBlue(a) - qBlue(b)) > 30)
                    ++far;
            }
        QVERIFY2(far < w * h / 50, qPrintable(QStringLiteral("%1 pixels far off").arg(far)));
    }

    void warm_up_iteration_is_off_the_time_scale() {
        PlotWidget plot;
        plot.resize(400, 240);
        plot.setAutoscaleFrom(2.0);
        PlotSeries total;
        total.name = QStringLiteral("total");
        const int series = plot.addSeries(total);
        plot.appendValue(series, 40.0);  // iteration 1: the warm-up
        QVERIFY(plot.yRange().second >= 40.0);  // alone, it is the scale
        for (double v : {1.0, 1.2, 0.9, 1.1}) plot.appendValue(series, v);
        QVERIFY2(plot.yRange().second < 5.0, qPrintable(QString::number(plot.yRange().second)));
        QCOMPARE(plot.offScaleCount(), 1);
        plot.setLogScale(true);  // the log scale is there too
        QVERIFY(plot.logScale());
    }

    // The paint tool: dabs add points of the chosen class inside the brush, the
    // drawing becomes the data set (k kept), runs like any data, and File → Save
    // drawn data writes x,y,class that the loaders read back with the classes.
    void paint_tool_draws_runs_and_saves() {
        MainWindow window;
        RunController& run = window.controller();
        RunSetup setup = run.setup();
        setup.k = 2;
        run.set_setup(setup);
        window.set_paint_mode(true);
        window.set_paint_density(10);
        window.set_paint_class(0);
        for (int dab = 0; dab < 6; ++dab) window.paint_at(QPointF(-5.0, 0.0), 1.0);
        window.set_paint_class(1);
        for (int dab = 0; dab < 4; ++dab) window.paint_at(QPointF(5.0, 2.0), 0.5);
        QCOMPARE(window.drawn_points(), std::size_t(100));
        QVERIFY(wait_for([&] { return run.has_data() && run.dataset().dataset &&
                                      run.dataset().n() == 100 && run.ready(); }));
        QCOMPARE(run.setup().k, std::size_t(2));  // drawing keeps the user's k
        const Matrix<double>& points = run.dataset().dataset->points;
        for (std::size_t i = 0; i < points.rows(); ++i) {  // every point inside its brush
            const bool first = i < 60;
            const double dx = points(i, 0) - (first ? -5.0 : 5.0), dy = points(i, 1) - (first ? 0.0 : 2.0);
            QVERIFY(std::sqrt(dx * dx + dy * dy) <= (first ? 1.0 : 0.5) + 1e-9);
        }
        run.run_to_convergence();
        QVERIFY(wait_for([&] { return run.converged() && !run.busy(); }));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("drawn.csv"));
        window.save_drawing(path);
        const Dataset saved = load_dataset(path.toStdString());
        QCOMPARE(saved.points.rows(), std::size_t(100));
        QCOMPARE(saved.points.cols(), std::size_t(2));
        QCOMPARE(saved.truth_labels.size(), std::size_t(100));
        QCOMPARE(saved.truth_labels.front(), 0);
        QCOMPARE(saved.truth_labels.back(), 1);
        QVERIFY(saved.points == points);  // 17 digits: the same doubles
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("drawn-labels.txt"))));
        QVERIFY_THROWS_EXCEPTION(Error, window.save_drawing(dir.filePath(QStringLiteral("drawn.png"))));
        window.clear_drawing();
        QCOMPARE(window.drawn_points(), std::size_t(0));
        QVERIFY_THROWS_EXCEPTION(Error, window.save_drawing(path));  // nothing drawn: a clear error
    }

    // ---- issue 36: the studio in front of a class ----------------------------------

    void save_run_adds_the_extension_and_replays_to_the_recorded_step() {
        QTemporaryDir dir;
        QString written;
        {
            MainWindow window;
            RunController& run = window.controller();
            make_ready(run, "blobs:n=900,k=4,d=2,spread=1.0", 4);
            run.run_steps(3);
            QVERIFY(wait_for([&] { return !run.running() && run.latest_iteration() == 3; }));
            written = window.save_run(dir.filePath(QStringLiteral("lesson")));
        }
        // "lesson" became lesson.kmsrun: the name File → Open run lists.
        QCOMPARE(written, dir.filePath(QStringLiteral("lesson.kmsrun")));
        QVERIFY(QFileInfo::exists(written));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("lesson"))));
        QCOMPARE(read_run_file(written.toStdString()).steps, 3);
        MainWindow window;
        QCOMPARE(window.open_run(written, true), 3);  // File → Open run steps to where the run was saved
        RunController& run = window.controller();
        QVERIFY2(wait_for([&] { return run.latest_iteration() == 3 && !run.running() && !run.busy(); }),
                 "the replay did not step to its recorded iteration");
        QCOMPARE(run.displayed_iteration(), 3);
        // An extension the user typed is kept.
        QCOMPARE(window.save_run(dir.filePath(QStringLiteral("copy.run"))), dir.filePath(QStringLiteral("copy.run")));
    }

    void typed_seed_asks_before_discarding_the_run() {
        MainWindow window;
        RunController& run = window.controller();
        make_ready(run, "blobs:n=600,k=3,d=2", 3);
        run.run_steps(2);
        QVERIFY(wait_for([&] { return !run.running() && run.latest_iteration() == 2; }));
        const std::uint64_t seed = run.setup().init.seed;
        QSpinBox* seed_box = nullptr;
        for (QSpinBox* box : window.solver_panel().findChildren<QSpinBox*>())
            if (box->value() == int(seed) && box->maximum() == std::numeric_limits<int>::max()) seed_box = box;
        QVERIFY(seed_box);
        seed_box->setValue(int(seed) + 40);  // as typing does, digit by digit
        QTest::qWait(50);
        QCOMPARE(run.latest_iteration(), 2);  // asked, not discarded
        QCOMPARE(run.setup().init.seed, seed);
        QVERIFY2(window.banner_text().contains(QStringLiteral("discarded")), qPrintable(window.banner_text()));
        window.dismiss_banner();  // "keep the run": the panel shows the run's seed again
        QCOMPARE(seed_box->value(), int(seed));
        QCOMPARE(run.latest_iteration(), 2);
        seed_box->setValue(int(seed) + 41);
        QVERIFY(window.confirm_banner());  // Re-seed
        QVERIFY(wait_for([&] { return run.ready() && !run.busy() && run.setup().init.seed == seed + 41; }));
        QCOMPARE(run.latest_iteration(), 0);
    }

    void scores_follow_the_half_step_however_it_was_reached() {
        MainWindow window;
        RunController& run = window.controller();
        make_ready(run, "blobs:n=1500,k=5,d=2,spread=2.0", 5);
        auto* panel = window.findChild<ScoresPanel*>();
        QVERIFY(panel);
        const auto inertia_shown = [&] {
            QVERIFY2(wait_for([&] { return window.scores_idle() && panel->state() == ScoresPanel::State::Ready; }, 20000),
                     "no scores");
        };
        window.set_half_steps(true);
        for (int i = 0; i < 4; ++i) {  // 1 assign, 1 update, 2 assign, 2 update
            run.step();
            QVERIFY(wait_for([&] { return !run.busy() && run.displayed_labels(); }));
            QTest::qWait(30);
        }
        QCOMPARE(run.displayed_iteration(), 2);
        QCOMPARE(run.displayed_phase(), Phase::Update);
        inertia_shown();
        QString forward = panel->valueText(ScoresPanel::Row::Inertia);
        const double expected = inertia(run.dataset().dataset->points, *run.displayed_labels(), run.displayed_centroids());
        run.step();  // 3 assign
        QVERIFY(wait_for([&] { return run.latest_iteration() == 3 && run.displayed_labels(); }));
        inertia_shown();
        run.step_back();  // back to 2 update
        QCOMPARE(run.displayed_phase(), Phase::Update);
        QTest::qWait(30);
        inertia_shown();
        QCOMPARE(panel->valueText(ScoresPanel::Row::Inertia), forward);
        const QString text = QLocale(QLocale::English).toString(expected, 'f', 2);
        QVERIFY2(forward.remove(QLatin1Char(',')).startsWith(QString(text).remove(QLatin1Char(',')).left(5)),
                 qPrintable(forward + QStringLiteral(" vs ") + text));
    }

    void run_with_half_steps_shows_both_halves() {
        RunController run;
        make_ready(run, "blobs:n=800,k=4,d=2,spread=1.5", 4);
        run.set_half_steps(true);
        run.set_delay_ms(160);
        std::vector<std::pair<int, Phase>> shown;
        QObject::connect(&run, &RunController::frameChanged, &run,
                         [&] { shown.emplace_back(run.displayed_iteration(), run.displayed_phase()); });
        run.run();
        QVERIFY(wait_for([&] { return run.latest_iteration() >= 3; }, 20000));
        run.pause();
        QVERIFY(wait_for([&] { return !run.running(); }));
        bool assign = false, update = false;
        for (const auto& [iteration, phase] : shown)
            if (iteration == 2) (phase == Phase::Assign ? assign : update) = true;
        QVERIFY2(assign && update, "Run showed only one half of iteration 2");
    }

    void painting_keeps_the_camera_and_the_initial_centroids() {
        MainWindow window;
        window.resize(900, 600);
        RunController& run = window.controller();
        make_ready(run, "blobs:n=400,k=3,d=2,spread=1.0", 3);
        window.set_paint_mode(true);
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        const Matrix<double> before = run.initial_centroids();
        const double ppu = window.view().camera()->pixels_per_unit();
        const QPointF centre = window.view().camera()->centre();
        for (int dab = 0; dab < 5; ++dab) window.paint_at(QPointF(40.0, 40.0), 2.0);  // far outside: a re-fit would zoom out
        QVERIFY(wait_for([&] { return run.ready() && !run.busy() && run.dataset().n() > 400; }));
        QTest::qWait(50);
        QVERIFY2(same_bits(run.initial_centroids(), before), "a stroke re-seeded the initial centroids");
        QCOMPARE(window.view().camera()->pixels_per_unit(), ppu);
        QCOMPARE(window.view().camera()->centre(), centre);
    }

    void lesson_scores_predictions_against_the_step() {
        // The arithmetic: exact → 100; a tenth of the diagonal away → 0; unpredicted → 0.
        const std::vector<QPointF> actual{QPointF(0, 0), QPointF(10, 0)};
        QCOMPARE(score_prediction({QPointF(0, 0), QPointF(10, 0)}, actual, 100.0, 1).score, 100.0);
        QCOMPARE(score_prediction({QPointF(0, 5), QPointF(10, 0)}, actual, 100.0, 1).score, 75.0);  // 50 + 100, / 2
        QCOMPARE(score_prediction({QPointF(0, 20), std::nullopt}, actual, 100.0, 1).score, 0.0);
        QCOMPARE(score_prediction({QPointF(0, 5), std::nullopt}, actual, 100.0, 1).predicted, 1);

        MainWindow window;
        RunController& run = window.controller();
        make_ready(run, "blobs:n=1200,k=4,d=2,spread=1.5", 4);
        window.set_lesson(true);
        Lesson& lesson = window.lesson();
        QVERIFY(window.banner_text().contains(QStringLiteral("centroid 1 of 4")));
        QCOMPARE(window.view().lesson_marks().next, 0);
        // Predict "no move": every centroid where it is now.
        const std::vector<QPointF> start = lesson.marks().from;
        QCOMPARE(start.size(), std::size_t(4));
        for (const QPointF& p : start) QVERIFY(lesson.place(p));
        QVERIFY(!lesson.place(QPointF(0, 0)));  // all placed
        QVERIFY(window.banner_text().contains(QStringLiteral("press →")));
        QVERIFY(lesson.undo());  // right click: the last one back
        QCOMPARE(lesson.marks().next, 3);
        QVERIFY(lesson.place(start[3]));
        run.step();
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1 && !run.busy(); }));
        QTRY_COMPARE(int(lesson.scores().size()), 1);
        const std::vector<QPointF> went = lesson.marks().actual;
        QCOMPARE(went.size(), std::size_t(4));
        QVERIFY(lesson.scores()[0].score < 100.0);
        QVERIFY2(window.banner_text().contains(QStringLiteral("Iteration 1:")), qPrintable(window.banner_text()));
        // Back to iteration 0, predict exactly where they went: 100.
        run.step_back();
        QTRY_VERIFY(lesson.marks().next == 0 && lesson.marks().actual.empty());
        for (const QPointF& p : went) QVERIFY(lesson.place(p));
        run.step();
        QTRY_COMPARE(int(lesson.scores().size()), 2);
        QCOMPARE(lesson.scores()[1].score, 100.0);
        QCOMPARE(lesson.average(), (lesson.scores()[0].score + 100.0) / 2);
    }

    void lesson_with_half_steps_reveals_at_the_update() {
        MainWindow window;
        RunController& run = window.controller();
        make_ready(run, "blobs:n=900,k=3,d=2,spread=1.2", 3);
        window.set_half_steps(true);
        window.set_lesson(true);
        Lesson& lesson = window.lesson();
        for (const QPointF& p : std::vector<QPointF>(lesson.marks().from)) QVERIFY(lesson.place(p + QPointF(0.1, 0)));
        run.step();  // 1 · assign: the centroids have not moved yet
        QVERIFY(wait_for([&] { return run.latest_iteration() == 1 && !run.busy() && run.displayed_labels(); }));
        QTest::qWait(30);
        QCOMPARE(int(lesson.scores().size()), 0);
        QVERIFY(lesson.marks().actual.empty());
        run.step();  // 1 · update: revealed
        QTRY_COMPARE(int(lesson.scores().size()), 1);
        QCOMPARE(lesson.scores()[0].iteration, 1);
        // Leaving lesson mode clears the marks and the banner's question.
        window.set_lesson(false);
        QVERIFY(window.view().lesson_marks().empty());
    }

    void removing_a_centroid_keeps_the_others_colours() {
        MainWindow window;
        RunController& run = window.controller();
        make_ready(run, "blobs:n=800,k=4,d=2", 4);
        QTest::qWait(20);
        PointCloudView& view = window.view();
        const std::vector<PackedRgba> before = view.palette(4);
        QVERIFY(run.remove_initial_centroid(1));
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QTest::qWait(20);
        // Markers 0, 2, 3 became 0, 1, 2: each keeps its colour.
        QCOMPARE(view.palette(3), (std::vector<PackedRgba>{before[0], before[2], before[3]}));
        QVERIFY(run.add_initial_centroid(0.5, 0.5));  // the new one takes the free colour
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QTest::qWait(20);
        QCOMPARE(view.palette(4), (std::vector<PackedRgba>{before[0], before[2], before[3], before[1]}));
        run.reseed(99);  // new centroids: colours in order again
        QVERIFY(wait_for([&] { return run.ready() && !run.busy(); }));
        QTest::qWait(20);
        QCOMPARE(view.palette(4), before);
    }

    void silhouette_numbers_every_one_of_31_clusters() {
        SilhouettePlot plot;
        plot.resize(320, 520);
        std::vector<double> values;
        std::vector<std::int32_t> labels;
        for (int c = 0; c < 31; ++c)
            for (int i = 0; i < 40; ++i) {
                values.push_back(0.2 + 0.01 * i);
                labels.push_back(c);
            }
        plot.setValues(values, labels, 0.4);
        QImage image(plot.size(), QImage::Format_ARGB32);
        plot.render(&image);
        QCOMPARE(int(plot.labelledClusters().size()), 31);
    }
};

QTEST_MAIN(TestUiClassroom)
#include "test_ui_classroom.moc"
