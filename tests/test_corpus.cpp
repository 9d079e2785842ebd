// The hostile-input corpus (tests/corpus/, written by tests/make_corpus.py):
// every file goes through kmeans-cli (run --input, run --input --precision f32,
// run --init, run --weights, score --labels, score --truth) and must end with the
// exit code and the message its line in tests/corpus/expected.tsv gives; the loader called in-process must throw exactly
// that message (or load the expected shape).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <string>

#include "kms/error.hpp"
#include "kms/io.hpp"
#include "test_support.hpp"

namespace {

QString corpus_dir() { return QString::fromStdString(kms::test::env_or_empty("KMS_SOURCE_DIR")) + "/tests/corpus"; }

struct Outcome {
    int exit_code = -1;
    QString err;
};

Outcome run_cli(const QStringList& arguments) {
    QProcess process;
    process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")), arguments);
    Outcome outcome;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return outcome;
    }
    outcome.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    process.readAllStandardOutput();
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

}  // namespace

class TestCorpus : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (kms::test::env_or_empty("KMS_CLI").empty() || kms::test::env_or_empty("KMS_SOURCE_DIR").empty())
            QFAIL("KMS_CLI or KMS_SOURCE_DIR is not set (run through CTest)");
        QVERIFY2(QFile::exists(corpus_dir() + "/expected.tsv"), qPrintable(corpus_dir()));
    }

    // The manifest and the folder agree, and the corpus is as large as promised.
    void manifest_lists_every_file() {
        QFile manifest(corpus_dir() + "/expected.tsv");
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        QStringList listed;
        for (const QByteArray& line : manifest.readAll().split('\n'))
            if (!line.isEmpty() && !line.startsWith('#')) listed << QString::fromUtf8(line.split('\t').first());
        QStringList present = QDir(corpus_dir()).entryList(QDir::Files | QDir::Hidden);
        present.removeAll("expected.tsv");
        present.removeAll("fuzz-cases.tsv");
        listed.sort();
        present.sort();
        QCOMPARE(listed, present);
        QVERIFY2(listed.size() >= 60, qPrintable(QString::number(listed.size())));
    }

    void corpus_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QString>("message");
        QFile manifest(corpus_dir() + "/expected.tsv");
        if (!manifest.open(QIODevice::ReadOnly)) return;
        for (const QByteArray& line : manifest.readAll().split('\n')) {
            if (line.isEmpty() || line.startsWith('#')) continue;
            const QList<QByteArray> fields = line.split('\t');
            if (fields.size() != 4) qFatal("bad manifest line: %s", line.constData());
            QTest::newRow(fields[0].constData()) << QString::fromUtf8(fields[0]) << QString::fromUtf8(fields[1])
                                                 << fields[2].toInt() << QString::fromUtf8(fields[3]);
        }
    }

    void corpus() {
        QFETCH(QString, file);
        QFETCH(QString, command);
        QFETCH(int, exit_code);
        QFETCH(QString, message);
        const QString path = corpus_dir() + "/" + file;
        const QString good = corpus_dir() + "/good_6x2.csv";
        const QString good_labels = corpus_dir() + "/good_labels.txt";
        message.replace("{FILE}", path).replace("{GOOD}", good);

        QStringList arguments;
        if (command == "run") arguments = {"run", "--input", path, "--k", "2"};
        else if (command == "f32") arguments = {"run", "--input", path, "--k", "2", "--precision", "f32"};
        else if (command == "weights") arguments = {"run", "--input", good, "--k", "2", "--weights", path};
        else if (command == "init") arguments = {"run", "--input", good, "--k", "2", "--init", path};
        else if (command == "labels") arguments = {"score", "--input", good, "--labels", path};
        else if (command == "truth") arguments = {"score", "--input", good, "--labels", good_labels, "--truth", path};
        else QFAIL(qPrintable("unknown command " + command));

        // In-process: the loader's own message, exactly.
        QString loaded;
        QString thrown;
        try {
            if (command == "run" || command == "init" || command == "f32") {
                kms::LoadOptions options;
                options.attach_ground_truth = false;
                const kms::Matrix<double> matrix = kms::load_matrix(path.toStdString(), options);
                loaded = QString("ok %1x%2").arg(matrix.rows()).arg(matrix.cols());
            } else if (command == "weights") {
                loaded = QString("ok %1").arg(kms::load_sample_weights(path.toStdString(), 6).size());
            } else {
                loaded = QString("ok %1").arg(kms::load_labels(path.toStdString()).size());
            }
        } catch (const std::exception& error) {
            thrown = QString::fromUtf8(error.what());
        }
        if (exit_code == 0) {
            QVERIFY2(thrown.isEmpty(), qPrintable("the loader threw: " + thrown));
            QCOMPARE(loaded, message);
        } else if (!thrown.isEmpty()) {
            QCOMPARE(thrown, message);
        }

        // Through the CLI: exit code and message.
        const Outcome outcome = run_cli(arguments);
        QVERIFY2(outcome.exit_code == exit_code,
                 qPrintable(QString("exit %1, expected %2; stderr: %3").arg(outcome.exit_code).arg(exit_code).arg(outcome.err)));
        if (exit_code == 0) QVERIFY2(outcome.err.isEmpty(), qPrintable(outcome.err));
        else QVERIFY2(outcome.err.contains(message), qPrintable("stderr: " + outcome.err + "\nexpected: " + message));
    }
};

QTEST_GUILESS_MAIN(TestCorpus)
#include "test_corpus.moc"
