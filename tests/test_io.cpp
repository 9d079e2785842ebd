// Loaders and writers: every format quirk loads to the exact values, every
// malformed input is refused with the path, the line (or byte offset) and the
// reason, writers round-trip bit-exactly, and the published benchmark sets load
// with the sizes their README gives.
#include <QtTest>

#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/row_source.hpp"
#include "test_support.hpp"

namespace {

using Where = kms::InputError::Where;

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Empty when `load` throws an InputError whose message names `path`, the
// position (line or byte), and contains every one of `words`; else what went wrong.
QString check_input_error(const std::function<void()>& load, const std::string& path, Where where,
                          std::uint64_t position, const QStringList& words) {
    try {
        load();
    } catch (const kms::InputError& error) {
        const QString what = QString::fromStdString(error.what());
        if (!what.contains(QString::fromStdString(path))) return "message does not name the file: " + what;
        if (error.where() != where || (where != Where::Nowhere && error.position() != position))
            return QString("wrong position (expected %1 %2): %3")
                .arg(where == Where::Line ? "line" : where == Where::Byte ? "byte" : "none")
                .arg(position)
                .arg(what);
        if (where == Where::Line && !what.contains(QString(":%1: ").arg(position)))
            return "message does not show the line number: " + what;
        if (where == Where::Byte && !what.contains(QString("byte %1:").arg(position)))
            return "message does not show the byte offset: " + what;
        for (const QString& word : words)
            if (!what.contains(word, Qt::CaseInsensitive)) return "message lacks '" + word + "': " + what;
        return {};
    } catch (const std::exception& error) {
        return QString("expected kms::InputError, got: ") + error.what();
    }
    return "no error was raised";
}

#define KMS_EXPECT_INPUT_ERROR(load, path, where, position, ...)                                           \
    do {                                                                                                  \
        const QString problem_ = check_input_error(load, path, where, position, QStringList{__VA_ARGS__}); \
        QVERIFY2(problem_.isEmpty(), qPrintable(problem_));                                               \
    } while (0)

// A .npy file built byte by byte, so that each header quirk can be produced.
QByteArray npy_file(const std::string& header_dict, const QByteArray& data, int major = 1) {
    std::string header = header_dict;
    const std::size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    const std::size_t length = header.size();
    for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((length >> (8 * i)) & 0xff);
    out += QByteArray::fromStdString(header);
    out += data;
    return out;
}

std::string npy_dict(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
           ", }";
}

template <typename T>
QByteArray raw_items(std::initializer_list<T> values, bool big_endian = false) {
    QByteArray out;
    for (const T value : values) {
        char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));
        if (big_endian) std::reverse(bytes, bytes + sizeof(T));
        out.append(bytes, sizeof(T));
    }
    return out;
}

}  // namespace

class TestIo : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    int file_counter_ = 0;

    // Writes bytes to a fresh file in the temporary folder; returns its path.
    std::string write_file(const QByteArray& bytes, const QString& name = {}) {
        const QString file_name = name.isEmpty() ? QString("data_%1.txt").arg(++file_counter_) : name;
        const QString path = dir_.filePath(file_name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write test file %s", qPrintable(path));
        file.write(bytes);
        return path.toStdString();
    }

    static QStringList entries(const QString& folder) { return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot); }

    // A file big enough for several parallel chunks: `lines` lines "i.25,-i.5",
    // with a comment line every 1000 lines and a blank line every 777.
    static QByteArray many_lines(std::size_t lines, std::vector<double>* expected, std::size_t* file_lines) {
        QByteArray text;
        text.reserve(static_cast<qsizetype>(lines * 24));
        std::size_t line = 0;
        for (std::size_t i = 0; i < lines; ++i) {
            if (i % 1000 == 0) {
                text += "# block " + QByteArray::number(static_cast<qulonglong>(i)) + "\n";
                ++line;
            }
            if (i % 777 == 0) {
                text += "   \n";
                ++line;
            }
            text += QByteArray::number(static_cast<qulonglong>(i)) + ".25,-" +
                    QByteArray::number(static_cast<qulonglong>(i)) + ".5\n";
            ++line;
            if (expected) {
                expected->push_back(static_cast<double>(i) + 0.25);
                expected->push_back(-(static_cast<double>(i) + 0.5));
            }
        }
        if (file_lines) *file_lines = line;
        return text;
    }

    // ---------------------------------------------------------------- text by blocks (MPI ranks)
    // Each rank's block, or what it threw (1: InputError, 2: ReportedByAnotherRank, 3: other).
    struct BlockOutcome {
        std::vector<kms::RowBlock> blocks;
        std::vector<int> kinds;
        std::vector<std::string> errors;
    };
    static BlockOutcome load_blocks(const std::string& path, int ranks, const kms::RowSplit& split) {
        BlockOutcome out{std::vector<kms::RowBlock>(static_cast<std::size_t>(ranks)),
                         std::vector<int>(static_cast<std::size_t>(ranks), 0),
                         std::vector<std::string>(static_cast<std::size_t>(ranks))};
        kms::ThreadGroup group(ranks);
        group.run([&](std::shared_ptr<kms::Communicator> comm) {
            const auto r = static_cast<std::size_t>(comm->rank());
            try {
                out.blocks[r] = kms::load_text_block(path, *comm, split);
            } catch (const kms::ReportedByAnotherRank& error) {
                out.kinds[r] = 2;
                out.errors[r] = error.what();
            } catch (const kms::InputError& error) {
                out.kinds[r] = 1;
                out.errors[r] = error.what();
            } catch (const std::exception& error) {
                out.kinds[r] = 3;
                out.errors[r] = error.what();
            }
        });
        return out;
    }
    // Splits of n rows over M ranks: as equal as can be, all on the last rank, all on the first.
    static std::vector<std::pair<const char*, kms::RowSplit>> splits(int ranks) {
        const auto m = static_cast<std::size_t>(ranks);
        return {{"equal", [m](std::size_t n, std::size_t) {
                     std::vector<std::size_t> first(m + 1);
                     for (std::size_t r = 0; r <= m; ++r) first[r] = n * r / m;
                     return first;
                 }},
                {"all on the last", [m](std::size_t n, std::size_t) {
                     std::vector<std::size_t> first(m + 1, 0);
                     first[m] = n;
                     return first;
                 }},
                {"all on the first", [m](std::size_t n, std::size_t) {
                     std::vector<std::size_t> first(m + 1, n);
                     first[0] = 0;
                     return first;
                 }}};
    }
    // The blocks of every split over 1, 2, 3, 5 and 8 ranks are, in order, load_dataset's rows bit for bit.
    static void verify_blocks_equal_whole_load(const std::string& path) {
        const kms::Matrix<double> whole = kms::load_dataset(path).points;
        for (const int ranks : {1, 2, 3, 5, 8}) {
            for (const auto& [name, split] : splits(ranks)) {
                const BlockOutcome out = load_blocks(path, ranks, split);
                const std::vector<std::size_t> first = split(whole.rows(), whole.cols());
                for (int r = 0; r < ranks; ++r) {
                    const auto rank = static_cast<std::size_t>(r);
                    const QString where = QString("%1 ranks, split %2, rank %3").arg(ranks).arg(name).arg(r);
                    QVERIFY2(out.kinds[rank] == 0, qPrintable(where + ": " + QString::fromStdString(out.errors[rank])));
                    const kms::RowBlock& block = out.blocks[rank];
                    QCOMPARE(block.global_rows, whole.rows());
                    QCOMPARE(block.first_row, first[rank]);
                    QCOMPARE(block.points.rows(), first[rank + 1] - first[rank]);
                    if (block.points.rows() == 0) continue;
                    QCOMPARE(block.points.cols(), whole.cols());
                    QVERIFY2(std::memcmp(block.points.values().data(), whole.values().data() + first[rank] * whole.cols(),
                                         block.points.values().size() * sizeof(double)) == 0,
                             qPrintable(where + ": values differ"));
                }
            }
        }
    }
    // Over 1, 3 and 4 ranks (equal split): exactly one rank reports load_dataset's own
    // message; the others stop with ReportedByAnotherRank.
    static void verify_block_error_equals_whole_load(const std::string& path) {
        std::string expected;
        try {
            kms::load_dataset(path);
            QFAIL("the whole load accepted the file");
        } catch (const kms::InputError& error) {
            expected = error.what();
        }
        for (const int ranks : {1, 3, 4}) {
            const BlockOutcome out = load_blocks(path, ranks, splits(ranks)[0].second);
            int reporters = 0;
            for (int r = 0; r < ranks; ++r) {
                const auto rank = static_cast<std::size_t>(r);
                if (out.kinds[rank] == 1) {
                    ++reporters;
                    QCOMPARE(QString::fromStdString(out.errors[rank]), QString::fromStdString(expected));
                } else {
                    QVERIFY2(out.kinds[rank] == 2, qPrintable(QString("rank %1 of %2: kind %3: %4")
                                                                 .arg(r).arg(ranks).arg(out.kinds[rank])
                                                                 .arg(QString::fromStdString(out.errors[rank]))));
                }
            }
            QCOMPARE(reporters, 1);
        }
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // ---------------------------------------------------------------- text formats
    void text_formats_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("columns");
        QTest::addColumn<QList<double>>("values");

        QTest::newRow("comma") << QByteArray("1,2\n3.5,-4\n") << 2 << QList<double>{1, 2, 3.5, -4};
        QTest::newRow("tab") << QByteArray("502\t505\n504\t489\n") << 2 << QList<double>{502, 505, 504, 489};
        QTest::newRow("semicolon") << QByteArray("1.5;2\n3;4.25\n") << 2 << QList<double>{1.5, 2, 3, 4.25};
        QTest::newRow("runs of spaces, leading spaces (s1 style)")
            << QByteArray("    664159    550946\n    665845    557965\n") << 2
            << QList<double>{664159, 550946, 665845, 557965};
        QTest::newRow("spaces around commas, trailing spaces")
            << QByteArray("  1 ,  2  \n3,4\t\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("mixed tabs and spaces") << QByteArray("1 \t 2\n\t3  4\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("header row") << QByteArray("x,y\n1,2\n3,4\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("quoted header after comments")
            << QByteArray("# exported\n\n\"x\";\"y\"\n1;2\n") << 2 << QList<double>{1, 2};
        QTest::newRow("whitespace header") << QByteArray("x y z\n1 2 3\n") << 3 << QList<double>{1, 2, 3};
        QTest::newRow("header with a trailing comment") << QByteArray("x y # metres\n1 2\n") << 2
                                                        << QList<double>{1, 2};
        QTest::newRow("comment lines and trailing comments")
            << QByteArray("# points\n1,2 # first\n  # indented comment\n3,4# second\n") << 2
            << QList<double>{1, 2, 3, 4};
        QTest::newRow("CRLF") << QByteArray("x,y\r\n1,2\r\n3,4\r\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("UTF-8 BOM") << QByteArray("\xEF\xBB\xBF" "1 2\n3 4\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("BOM before header") << QByteArray("\xEF\xBB\xBFx,y\n5,6\n") << 2 << QList<double>{5, 6};
        QTest::newRow("blank lines everywhere")
            << QByteArray("\n\n1,2\n\n   \n\t\n3,4\n\n\n") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("last line without newline") << QByteArray("1,2\n3,4") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("last line without newline, CR") << QByteArray("1,2\r\n3,4\r") << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("integers, decimals, exponents, signs")
            << QByteArray("1e3,-2.5E-2\n+3,.5\n-0.125,7.\n1E+2,-1e-2\n") << 2
            << QList<double>{1000, -0.025, 3, 0.5, -0.125, 7, 100, -0.01};
        QTest::newRow("one column") << QByteArray("1\n2\n3\n") << 1 << QList<double>{1, 2, 3};
        QTest::newRow("one row") << QByteArray("1,2,3,4,5") << 5 << QList<double>{1, 2, 3, 4, 5};
        QTest::newRow("exact decimals") << QByteArray("0.1,0.30000000000000004\n0.3333333333333333,1e-300\n")
                                        << 2 << QList<double>{0.1, 0.30000000000000004, 1.0 / 3.0, 1e-300};
        QTest::newRow("subnormal and underflow to signed zero")
            << QByteArray("4.9e-324,1e-400\n-1e-400,0.000e-9999\n") << 2
            << QList<double>{4.9e-324, 0.0, -0.0, 0.0};
        QTest::newRow("extremes") << QByteArray("1.7976931348623157e308,-1.7976931348623157e308\n") << 2
                                  << QList<double>{DBL_MAX, -DBL_MAX};
    }

    void text_formats() {
        QFETCH(QByteArray, content);
        QFETCH(int, columns);
        QFETCH(QList<double>, values);
        const std::string path = write_file(content);
        const kms::Matrix<double> matrix = kms::load_matrix(path);
        QCOMPARE(matrix.cols(), static_cast<std::size_t>(columns));
        QCOMPARE(matrix.rows(), static_cast<std::size_t>(values.size() / columns));
        for (qsizetype i = 0; i < values.size(); ++i)
            QVERIFY2(same_bits(matrix.values()[static_cast<std::size_t>(i)], values[i]),
                     qPrintable(QString("value %1: got %2, expected %3")
                                    .arg(i)
                                    .arg(matrix.values()[static_cast<std::size_t>(i)], 0, 'g', 17)
                                    .arg(values[i], 0, 'g', 17)));
        const kms::Dataset dataset = kms::load_dataset(path);
        QCOMPARE(dataset.name, path);
        QVERIFY(dataset.points == matrix);
    }

    // The loader's own fast path for short decimals must agree bit for bit with std::from_chars.
    void decimals_parse_exactly_like_from_chars() {
        std::mt19937_64 random(20261122);
        const auto digits = [&](int count) {
            std::string text;
            for (int i = 0; i < count; ++i) text += static_cast<char>('0' + random() % 10);
            return text;
        };
        std::string text;
        std::vector<std::string> tokens;
        for (int i = 0; i < 200'000; ++i) {
            std::string token;
            const auto sign = random() % 4;
            if (sign == 0) token += '-';
            if (sign == 1) token += '+';
            const int integer_digits = static_cast<int>(random() % 19);
            const int fraction_digits = static_cast<int>(random() % 19);
            token += digits(integer_digits);
            if (random() % 5 != 0) token += '.' + digits(fraction_digits);
            if (token.find_first_of("0123456789") == std::string::npos) token += '7';
            if (random() % 6 == 0) token += (random() % 2 ? "e-" : "E") + std::to_string(random() % 40);
            tokens.push_back(token);
            text += token + '\n';
        }
        const kms::Matrix<double> loaded = kms::load_matrix(write_file(QByteArray::fromStdString(text)));
        QCOMPARE(loaded.rows(), tokens.size());
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::string& token = tokens[i];
            const std::size_t skip = token[0] == '+' ? 1 : 0;
            double expected = 0;
            const auto result = std::from_chars(token.data() + skip, token.data() + token.size(), expected);
            QVERIFY(result.ec == std::errc() && result.ptr == token.data() + token.size());
            if (!same_bits(loaded.values()[i], expected))  // (QVERIFY2 would format the message every time)
                QFAIL(qPrintable(QString("'%1' loaded as %2, from_chars gives %3")
                                     .arg(QString::fromStdString(token))
                                     .arg(loaded.values()[i], 0, 'g', 17)
                                     .arg(expected, 0, 'g', 17)));
        }
    }

    // ---------------------------------------------------------------- text errors
    void text_errors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("where");  // Where as int
        QTest::addColumn<int>("position");
        QTest::addColumn<QStringList>("words");
        const int line = static_cast<int>(Where::Line);
        const int byte = static_cast<int>(Where::Byte);
        const int nowhere = static_cast<int>(Where::Nowhere);

        QTest::newRow("ragged, more") << QByteArray("1,2\n3,4,5\n") << line << 2
                                      << QStringList{"expected 2 values, found 3"};
        QTest::newRow("ragged, fewer") << QByteArray("1 2\n3 4\n5\n") << line << 3
                                       << QStringList{"expected 2 values, found 1"};
        QTest::newRow("not a number") << QByteArray("1,2\n3,abc\n") << line << 2
                                      << QStringList{"not a number", "'abc'", "column 2"};
        QTest::newRow("number with junk") << QByteArray("1,2\n3,4.5x\n") << line << 2
                                          << QStringList{"not a number", "'4.5x'"};
        QTest::newRow("decimal comma") << QByteArray("1;2\n3;4,5\n") << line << 2
                                       << QStringList{"not a number", "'4,5'"};
        QTest::newRow("space inside a comma field") << QByteArray("1,2\n3 4,5\n") << line << 2
                                                    << QStringList{"not a number", "'3 4'"};
        QTest::newRow("other separator on a later line") << QByteArray("1,2\n3;4\n") << line << 2
                                                         << QStringList{"not a number", "'3;4'"};
        QTest::newRow("NaN") << QByteArray("1,2\nnan,3\n") << line << 2
                             << QStringList{"NaN is not a valid coordinate"};
        QTest::newRow("NaN on line 1") << QByteArray("NaN 1\n2 3\n") << line << 1
                                       << QStringList{"NaN is not a valid coordinate"};
        QTest::newRow("Inf") << QByteArray("1,2\n3,-inf\n") << line << 2
                             << QStringList{"infinite value is not a valid coordinate", "'-inf'"};
        QTest::newRow("overflow") << QByteArray("1,2\n3,1e400\n") << line << 2
                                  << QStringList{"too large", "'1e400'"};
        QTest::newRow("empty field") << QByteArray("1,2,3\n4,,6\n") << line << 2
                                     << QStringList{"empty value in column 2"};
        QTest::newRow("trailing comma") << QByteArray("1,2\n3,4,\n") << line << 2
                                        << QStringList{"empty value in column 3"};
        QTest::newRow("plus minus") << QByteArray("1,2\n+-3,4\n") << line << 2 << QStringList{"'+-3'"};
        QTest::newRow("hex") << QByteArray("1,2\n0x10,4\n") << line << 2 << QStringList{"'0x10'"};
        QTest::newRow("line numbers count comments, blanks, CRLF")
            << QByteArray("# c\r\n\r\n1,2\r\n\r\n# d\r\nx,3\r\n") << line << 6 << QStringList{"'x'"};
        QTest::newRow("line numbers after a BOM") << QByteArray("\xEF\xBB\xBF" "1,2\n3\n") << line << 2
                                                  << QStringList{"expected 2 values, found 1"};
        QTest::newRow("last line without newline") << QByteArray("1,2\n3,4\n5,6,7") << line << 3
                                                   << QStringList{"expected 2 values, found 3"};
        QTest::newRow("empty file") << QByteArray() << nowhere << 0 << QStringList{"empty file"};
        QTest::newRow("BOM only") << QByteArray("\xEF\xBB\xBF") << nowhere << 0 << QStringList{"empty file"};
        QTest::newRow("only comments and blanks") << QByteArray("# nothing\n\n   \n") << nowhere << 0
                                                  << QStringList{"no data rows"};
        QTest::newRow("header only") << QByteArray("x,y\n") << line << 1 << QStringList{"only a header row"};
        QTest::newRow("header only, comments after") << QByteArray("x,y\n# no data\n\n") << line << 1
                                                     << QStringList{"only a header row"};
        QTest::newRow("header names vs columns") << QByteArray("x,y,z\n1,2\n") << line << 1
                                                 << QStringList{"header row has 3 names", "line 2 has 2 values"};
        QTest::newRow("bad row after header") << QByteArray("x,y\n1,oops\n") << line << 2
                                              << QStringList{"'oops'"};
        QTest::newRow("two text lines") << QByteArray("hello world\nstill words\n") << line << 2
                                        << QStringList{"not a number", "'still'"};
        QTest::newRow("partly numeric first line") << QByteArray("1,abc\n2,3\n") << line << 1
                                                   << QStringList{"'abc'"};
        QTest::newRow("comma and semicolon on the first line") << QByteArray("1,5;2,5\n") << line << 1
                                                               << QStringList{"ambiguous"};
        QTest::newRow("UTF-16") << QByteArray("\xFF\xFE" "1\0,\0" "2\0", 8) << byte << 0 << QStringList{"UTF-16"};
        QTest::newRow("binary garbage") << QByteArray("\x01\x02\xFF\x00 7", 6) << line << 1
                                        << QStringList{"not a number", "\\x01\\x02\\xFF\\x00"};
        QTest::newRow("old Mac line endings") << QByteArray("1,2\r3,4\r5,6\r") << line << 1
                                              << QStringList{"carriage return"};
    }

    void text_errors() {
        QFETCH(QByteArray, content);
        QFETCH(int, where);
        QFETCH(int, position);
        QFETCH(QStringList, words);
        const std::string path = write_file(content);
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, static_cast<Where>(where),
                               static_cast<std::uint64_t>(position), words);
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_matrix(path); }, path, static_cast<Where>(where),
                               static_cast<std::uint64_t>(position), words);
    }

    // A rank reads only the lines that start in its share of the bytes, then its block's rows.
    void text_blocks_equal_the_whole_load_data() { text_formats_data(); }
    void text_blocks_equal_the_whole_load() {
        QFETCH(QByteArray, content);
        verify_blocks_equal_whole_load(write_file(content));
    }
    void text_blocks_of_large_files_equal_the_whole_load() {
        // Several parse chunks per block, comment and blank lines at share boundaries, CRLF.
        QByteArray text = many_lines(120'000, nullptr, nullptr);
        verify_blocks_equal_whole_load(write_file(text));
        text.replace("\n", "\r\n");
        verify_blocks_equal_whole_load(write_file("x,y\r\n" + text));
        // Comments longer than the first look at the file (1 MiB): a header after 1.5 MiB of
        // comment lines, and data after one 3 MiB comment line.
        QByteArray comments;
        while (comments.size() < 3 * (1 << 19)) comments += "# a comment line of the kind exports write at the top\n";
        verify_blocks_equal_whole_load(write_file(comments + "x,y\n" + many_lines(5000, nullptr, nullptr)));
        verify_blocks_equal_whole_load(write_file("#" + QByteArray(3 << 20, 'c') + "\n" + many_lines(5000, nullptr, nullptr)));
    }
    void text_block_errors_equal_the_whole_load_data() { text_errors_data(); }
    void text_block_errors_equal_the_whole_load() {
        QFETCH(QByteArray, content);
        verify_block_error_equals_whole_load(write_file(content));
    }
    void text_block_errors_deep_in_a_file_name_their_line() {
        // One bad row in the first, a middle or the last block, and two bad rows (the first one is named).
        const QByteArray text = many_lines(40'000, nullptr, nullptr);
        const QList<QList<qsizetype>> bad_rows{{3}, {17'000}, {39'999}, {25'000, 12'000}, {39'000, 38'999}};
        for (const QList<qsizetype>& rows : bad_rows) {
            QByteArray broken = text;
            for (const qsizetype row : rows) {  // "ROW.25,-ROW.5" becomes "ROW.25,-ROW.5,1": three values
                const QByteArray line = QByteArray::number(row) + ".25,-" + QByteArray::number(row) + ".5\n";
                const qsizetype at = broken.indexOf("\n" + line);
                QVERIFY(at >= 0);
                broken.insert(at + line.size(), ",1");
            }
            verify_block_error_equals_whole_load(write_file(broken));
        }
    }
    void text_blocks_refuse_what_cannot_be_read_by_position() {
        const std::string fifo = (std::filesystem::temp_directory_path() / ("kms_block_fifo_" + std::to_string(::getpid()))).string();
        ::unlink(fifo.c_str());
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        const BlockOutcome out = load_blocks(fifo, 2, splits(2)[0].second);
        ::unlink(fifo.c_str());
        QCOMPARE(out.kinds, (std::vector<int>{1, 2}));
        QVERIFY2(out.errors[0].find("must be a regular text or .npy file") != std::string::npos, out.errors[0].c_str());
        const BlockOutcome missing = load_blocks(dir_.filePath("no-such-file.csv").toStdString(), 3, splits(3)[0].second);
        QCOMPARE(missing.kinds, (std::vector<int>{1, 2, 2}));
        QVERIFY2(missing.errors[0].find("cannot open") != std::string::npos, missing.errors[0].c_str());
    }

    void missing_file_is_refused_with_the_os_reason() {
        const std::string path = dir_.filePath("does-not-exist.csv").toStdString();
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Nowhere, 0, "cannot open",
                               "No such file or directory");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(path); }, path, Where::Nowhere, 0, "cannot open");
    }

    void directory_is_refused() {
        const std::string path = dir_.path().toStdString();
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Nowhere, 0, "is a directory");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(path); }, path, Where::Nowhere, 0, "is a directory");
    }

    void unreadable_file_is_refused_with_the_os_reason() {
        if (::geteuid() == 0) QSKIP("running as root: file permissions do not stop reads");
        const std::string path = write_file("1,2\n");
        QVERIFY(QFile::setPermissions(QString::fromStdString(path), QFileDevice::WriteOwner));
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Nowhere, 0, "cannot open",
                               "Permission denied");
    }

    // ---------------------------------------------------------------- large files, parallel chunks
    void large_file_loads_exactly_across_chunks() {
        std::vector<double> expected;
        std::size_t file_lines = 0;
        const QByteArray text = many_lines(700'000, &expected, &file_lines);
        QVERIFY(text.size() > 3 * (4 << 20));  // several parse chunks
        const std::string path = write_file(text);
        const kms::Matrix<double> matrix = kms::load_matrix(path);
        QCOMPARE(matrix.rows(), std::size_t{700'000});
        QCOMPARE(matrix.cols(), std::size_t{2});
        QVERIFY(matrix.values() == expected);
    }

    void error_deep_in_a_large_file_fails_the_whole_load_with_its_line() {
        std::size_t file_lines = 0;
        QByteArray text = many_lines(700'000, nullptr, &file_lines);
        // Two faults in different chunks: the earlier one is reported, whatever thread finds which first.
        const qsizetype late = text.size() - 2;  // inside the last line, which loses its newline below
        text.chop(1);
        text.insert(late, "z");
        QByteArray with_middle_fault = text;
        // Replace a '.' by 'q' at about 60% of the file, then find its line number.
        qsizetype middle = with_middle_fault.indexOf(".25,", with_middle_fault.size() * 6 / 10);
        QVERIFY(middle > 0);
        with_middle_fault[middle] = 'q';
        const std::uint64_t middle_line = static_cast<std::uint64_t>(with_middle_fault.left(middle).count('\n')) + 1;

        const std::string last_path = write_file(text);
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(last_path); }, last_path, Where::Line, file_lines,
                               "not a number");
        const std::string middle_path = write_file(with_middle_fault);
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(middle_path); }, middle_path, Where::Line, middle_line,
                               "not a number", "q25");
    }

    // The output is sized from the byte count, not lines × first-line width: a
    // 1.4 MB file must not ask for 10^5 × 10^6 values before finding its error.
    void wide_first_line_then_many_blank_lines_is_refused_cheaply() {
        QByteArray text;
        for (int i = 0; i < 100'000; ++i) text += i ? " 0" : "0";
        text += '\n';
        text += QByteArray(1'000'000, '\n');
        text += "1\n";
        const std::string path = write_file(text);
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Line, 1'000'002,
                               "expected 100000 values, found 1");
        // The same with only valid rows after the blanks loads.
        text.chop(2);
        text += text.left(text.indexOf('\n') + 1);
        const kms::Matrix<double> matrix = kms::load_matrix(write_file(text));
        QCOMPARE(matrix.rows(), std::size_t{2});
        QCOMPARE(matrix.cols(), std::size_t{100'000});
    }

    void progress_is_reported_and_reaches_the_total() {
        const QByteArray text = many_lines(700'000, nullptr, nullptr);
        const std::string path = write_file(text);
        const int threads = omp_get_max_threads();
        // One thread: a report after every 4 MB chunk. All threads: only the calling
        // thread reports, so at least the final one.
        for (const int use_threads : {1, threads}) {
            omp_set_num_threads(use_threads);
            std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
            kms::LoadOptions options;
            options.progress = [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); };
            const kms::Dataset dataset = kms::load_dataset(path, options);
            QCOMPARE(dataset.n(), std::size_t{700'000});
            const std::size_t at_least = use_threads == 1 ? static_cast<std::size_t>(text.size() / (4 << 20)) + 1 : 1;
            QVERIFY2(calls.size() >= at_least, qPrintable(QString("only %1 progress calls").arg(calls.size())));
            for (std::size_t i = 0; i < calls.size(); ++i) {
                QCOMPARE(calls[i].second, static_cast<std::uint64_t>(text.size()));
                QVERIFY(calls[i].first <= calls[i].second);
                if (i) QVERIFY(calls[i].first >= calls[i - 1].first);
            }
            QCOMPARE(calls.back().first, static_cast<std::uint64_t>(text.size()));
        }
        omp_set_num_threads(threads);
    }

    void cancellation_stops_the_load() {
        const std::string path = write_file(many_lines(700'000, nullptr, nullptr));
        // Before the start.
        std::stop_source early;
        early.request_stop();
        kms::LoadOptions options;
        options.cancel = early.get_token();
        try {
            kms::load_dataset(path, options);
            QFAIL("a cancelled load returned data");
        } catch (const kms::InputError& error) {
            QFAIL(qPrintable(QString("cancellation reported as bad input: ") + error.what()));
        } catch (const kms::Error& error) {
            QVERIFY(QString(error.what()).contains(QString::fromStdString(path) + ": loading cancelled"));
        }
        // From the progress callback, i.e. in the middle of parsing.
        std::stop_source midway;
        kms::LoadOptions midway_options;
        midway_options.cancel = midway.get_token();
        int calls = 0;
        midway_options.progress = [&](std::uint64_t, std::uint64_t) {
            ++calls;
            midway.request_stop();
        };
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::load_dataset(path, midway_options));
        QCOMPARE(calls, 1);
        // A throwing progress callback propagates its exception (no terminate from inside a parallel loop).
        kms::LoadOptions throwing;
        throwing.progress = [](std::uint64_t, std::uint64_t) { throw std::runtime_error("stop here"); };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, kms::load_dataset(path, throwing));
    }

    // ---------------------------------------------------------------- .npy
    void npy_formats_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("columns");
        QTest::addColumn<QList<double>>("values");

        QTest::newRow("<f8 2-D") << npy_file(npy_dict("<f8", "(2, 2)"), raw_items<double>({0.1, -2, 1.0 / 3, 1e-300}))
                                 << 2 << 2 << QList<double>{0.1, -2, 1.0 / 3, 1e-300};
        QTest::newRow("<f4") << npy_file(npy_dict("<f4", "(1, 3)"), raw_items<float>({0.1f, 2.5f, -3.f})) << 1 << 3
                             << QList<double>{static_cast<double>(0.1f), 2.5, -3};
        QTest::newRow("<i4") << npy_file(npy_dict("<i4", "(2, 1)"), raw_items<std::int32_t>({-7, 2147483647})) << 2
                             << 1 << QList<double>{-7, 2147483647};
        QTest::newRow("<i8") << npy_file(npy_dict("<i8", "(1, 2)"), raw_items<std::int64_t>({-5, 1LL << 40})) << 1
                             << 2 << QList<double>{-5, 1099511627776.0};
        QTest::newRow("1-D is n x 1") << npy_file(npy_dict("<f8", "(3,)"), raw_items<double>({1, 2, 3})) << 3 << 1
                                      << QList<double>{1, 2, 3};
        QTest::newRow(">f8 big-endian") << npy_file(npy_dict(">f8", "(1, 2)"), raw_items<double>({0.1, -7.5}, true))
                                        << 1 << 2 << QList<double>{0.1, -7.5};
        QTest::newRow(">i4 big-endian") << npy_file(npy_dict(">i4", "(1, 2)"), raw_items<std::int32_t>({-2, 70000}, true))
                                        << 1 << 2 << QList<double>{-2, 70000};
        QTest::newRow("=f8 native") << npy_file(npy_dict("=f8", "(1, 1)"), raw_items<double>({42.5})) << 1 << 1
                                    << QList<double>{42.5};
        QTest::newRow("|u1") << npy_file(npy_dict("|u1", "(1, 2)"), raw_items<std::uint8_t>({200, 7})) << 1 << 2
                             << QList<double>{200, 7};
        QTest::newRow("|i1") << npy_file(npy_dict("|i1", "(1, 2)"), raw_items<std::int8_t>({-100, 7})) << 1 << 2
                             << QList<double>{-100, 7};
        QTest::newRow("version 2.0") << npy_file(npy_dict("<f8", "(1, 2)"), raw_items<double>({1.5, 2.5}), 2) << 1
                                     << 2 << QList<double>{1.5, 2.5};
        QTest::newRow("version 3.0") << npy_file(npy_dict("<f8", "(2,)"), raw_items<double>({-0.0, 9}), 3) << 2 << 1
                                     << QList<double>{-0.0, 9};
        QTest::newRow("key order, double quotes, no trailing comma, Python 2 long")
            << npy_file("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f8\"}",
                        raw_items<double>({3, 4}))
            << 1 << 2 << QList<double>{3, 4};
    }

    // Memory scale-out: a rank reads only its rows of a .npy file (kms::load_matrix_rows),
    // every format; each sub-range equals that slice of the whole file's load.
    void npy_rows_read_by_position_data() { npy_formats_data(); }
    void npy_rows_read_by_position() {
        QFETCH(QByteArray, content);
        QFETCH(int, rows);
        QFETCH(int, columns);
        const std::string path = write_file(content, QString("rows_%1.npy").arg(++file_counter_));
        const kms::Matrix<double> whole = kms::load_dataset(path).points;
        const kms::MatrixFileShape shape = kms::matrix_file_shape(path);
        QCOMPARE(shape.rows, static_cast<std::size_t>(rows));
        QCOMPARE(shape.cols, static_cast<std::size_t>(columns));
        for (std::size_t first = 0; first <= shape.rows; ++first)
            for (std::size_t count = 0; first + count <= shape.rows; ++count) {
                const kms::Matrix<double> part = kms::load_matrix_rows(path, first, count);
                QCOMPARE(part.rows(), count);
                for (std::size_t i = 0; i < count * shape.cols; ++i)
                    QVERIFY(same_bits(part.values()[i], whole.values()[first * shape.cols + i]));
            }
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::load_matrix_rows(path, 0, shape.rows + 1));
    }

    // The ANN benchmarks' headerless formats (by extension): loaded whole, by blocks of rows and as
    // a row source, the same values; a row whose dimension differs is named when its block is read.
    void headerless_formats() {
        const auto word = [](std::int32_t v) { return QByteArray(reinterpret_cast<const char*>(&v), 4); };
        QByteArray fvecs, ivecs, bvecs, fbin = word(5) + word(3), u8bin = word(5) + word(3);
        for (int i = 0; i < 5; ++i) {
            fvecs += word(3) + raw_items<float>({i + 0.5f, -1.25f * i, 1e6f + i});
            ivecs += word(3) + raw_items<std::int32_t>({i, -i, 1000000 * i});
            bvecs += word(3) + QByteArray(1, static_cast<char>(i)) + QByteArray(1, '\xff') + QByteArray(1, '\x80');
            fbin += raw_items<float>({i + 0.5f, -1.25f * i, 1e6f + i});
            u8bin += QByteArray(1, static_cast<char>(i)) + QByteArray(1, '\xff') + QByteArray(1, '\x80');
        }
        const std::string fvecs_path = write_file(fvecs, "points.FVECS"), fbin_path = write_file(fbin, "points.fbin");
        const std::string ivecs_path = write_file(ivecs, "points.ivecs"), bvecs_path = write_file(bvecs, "points.bvecs");
        const std::string u8bin_path = write_file(u8bin, "points.u8bin");
        const kms::Matrix<double> f = kms::load_dataset(fvecs_path).points;
        QCOMPARE(f.rows(), std::size_t{5});
        QCOMPARE(f.cols(), std::size_t{3});
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(f(i, 0), static_cast<double>(i + 0.5f));
            QCOMPARE(f(i, 1), static_cast<double>(-1.25f * static_cast<float>(i)));
            QCOMPARE(f(i, 2), static_cast<double>(1e6f + static_cast<float>(i)));
            QCOMPARE(kms::load_dataset(ivecs_path).points(i, 2), 1e6 * static_cast<double>(i));
            QCOMPARE(kms::load_dataset(bvecs_path).points(i, 1), 255.0);
            QCOMPARE(kms::load_dataset(u8bin_path).points(i, 0), static_cast<double>(i));
        }
        QVERIFY(kms::load_dataset(fbin_path).points == f);
        for (const std::string& path : {fvecs_path, fbin_path}) {
            QVERIFY(kms::is_binary_matrix_file(path));
            QCOMPARE(kms::matrix_file_shape(path).rows, std::size_t{5});
            QCOMPARE(kms::matrix_file_shape(path).cols, std::size_t{3});
            const kms::Matrix<double> block = kms::load_matrix_rows(path, 1, 3);
            for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t j = 0; j < 3; ++j) QCOMPARE(block(i, j), f(i + 1, j));
            std::vector<float> floats(6);
            kms::open_matrix_rows(path, false)->read(3, 2, floats.data());
            for (std::size_t j = 0; j < 6; ++j) QCOMPARE(static_cast<double>(floats[j]), f(3 + j / 3, j % 3));
        }
        QVERIFY(!kms::is_binary_matrix_file(write_file("1,2\n", "points.csv")));
        // A FIFO is looked at without waiting for a writer: not a binary matrix file.
        const std::string fifo = dir_.filePath("points-fifo.npy").toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        QVERIFY(!kms::is_binary_matrix_file(fifo));
        ::unlink(fifo.c_str());
        // Row 3 of 5 says 2 values (the file still divides into rows of 3): the blocks before it read,
        // the one holding it is refused naming the row and its byte.
        QByteArray mixed = fvecs;
        mixed.replace(3 * 16, 4, word(2));
        const std::string mixed_path = write_file(mixed, "mixed.fvecs");
        QCOMPARE(kms::load_matrix_rows(mixed_path, 0, 3).rows(), std::size_t{3});
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_matrix_rows(mixed_path, 2, 2); }, mixed_path, Where::Byte, 48,
                               "row 3 has dimension 2, the first row 3");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(mixed_path); }, mixed_path, Where::Byte, 48,
                               "row 3 has dimension 2, the first row 3");
        // A NaN is named by its element and byte (row 4's second value: 4 rows of 16 bytes, its prefix, one float).
        QByteArray nan = fbin;
        nan.replace(8 + 4 * 12 + 4, 4, raw_items<float>({std::nanf("")}));
        const std::string nan_path = write_file(nan, "nan.fbin");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_matrix_rows(nan_path, 0, 5); }, nan_path, Where::Byte, 60,
                               "NaN is not a valid coordinate (element [4, 1])");
        std::vector<double> doubles(15);
        const auto source = kms::open_matrix_rows(nan_path, false);
        KMS_EXPECT_INPUT_ERROR([&] { source->read(0, 5, doubles.data()); }, nan_path, Where::Byte, 60,
                               "NaN is not a valid coordinate (element [4, 1])");
        // (a converted format checks as it reads, the unchecked half too)
        KMS_EXPECT_INPUT_ERROR([&] { source->read_unchecked(0, 5, doubles.data()); }, nan_path, Where::Byte, 60,
                               "NaN is not a valid coordinate (element [4, 1])");
        // Labels are not read from these formats.
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(ivecs_path); }, ivecs_path, Where::Nowhere, 0,
                               "labels are read from text or a .npy file, not from .ivecs");
    }

    void npy_rows_refusals() {
        // A big file, read in part: the NaN far into it is named by its element, the file's own index.
        std::vector<double> values(3 * 70000, 1.0);
        values[3 * 69999 + 2] = std::nan("");
        QByteArray data(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(values.size() * 8));
        const std::string path = write_file(npy_file(npy_dict("<f8", "(70000, 3)"), data), "rows_nan.npy");
        QCOMPARE(kms::load_matrix_rows(path, 0, 65536).rows(), std::size_t{65536});
        try {
            kms::load_matrix_rows(path, 65536, 70000 - 65536);
            QFAIL("a NaN was read");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("element [69999, 2]") != std::string::npos, error.what());
        }
        // Truncated data and trailing bytes: the whole file's messages.
        const std::string cut = write_file(npy_file(npy_dict("<f8", "(4, 2)"), raw_items<double>({1, 2, 3})), "rows_cut.npy");
        try {
            kms::matrix_file_shape(cut);
            QFAIL("a truncated file was accepted");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("truncated .npy file") != std::string::npos, error.what());
        }
        const std::string text = write_file("1,2\n3,4\n", "rows_text.npy");
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::matrix_file_shape(text));
        // Not a regular file: refused, never waited on.
        const std::string fifo = (std::filesystem::temp_directory_path() / ("kms_rows_fifo_" + std::to_string(::getpid()))).string();
        ::unlink(fifo.c_str());
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        try {
            kms::load_matrix_rows(fifo, 0, 1);
            QFAIL("a FIFO was read");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("regular file") != std::string::npos, error.what());
        }
        ::unlink(fifo.c_str());
    }

    void npy_formats() {
        QFETCH(QByteArray, content);
        QFETCH(int, rows);
        QFETCH(int, columns);
        QFETCH(QList<double>, values);
        // Detected by the magic, not by the extension.
        const std::string path = write_file(content, QString("array_%1.bin").arg(++file_counter_));
        const kms::Matrix<double> matrix = kms::load_dataset(path).points;
        QCOMPARE(matrix.rows(), static_cast<std::size_t>(rows));
        QCOMPARE(matrix.cols(), static_cast<std::size_t>(columns));
        for (qsizetype i = 0; i < values.size(); ++i)
            QVERIFY2(same_bits(matrix.values()[static_cast<std::size_t>(i)], values[i]),
                     qPrintable(QString("value %1: got %2, expected %3")
                                    .arg(i)
                                    .arg(matrix.values()[static_cast<std::size_t>(i)], 0, 'g', 17)
                                    .arg(values[i], 0, 'g', 17)));
    }

    void npy_errors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("offset");
        QTest::addColumn<QStringList>("words");
        const QByteArray two = raw_items<double>({1, 2});
        const QByteArray good = npy_file(npy_dict("<f8", "(1, 2)"), two);

        QTest::newRow("version 4.0") << (QByteArray(good).replace(6, 1, "\x04")) << 6
                                     << QStringList{"unsupported .npy format version 4.0"};
        QTest::newRow("version 1.1") << (QByteArray(good).replace(7, 1, "\x01")) << 6
                                     << QStringList{"version 1.1"};
        QTest::newRow("cut inside the length") << good.left(9) << 9 << QStringList{"truncated", "header"};
        QTest::newRow("cut inside the header") << good.left(40) << 40 << QStringList{"truncated", "header"};
        QTest::newRow("truncated data") << good.left(good.size() - 3) << static_cast<int>(good.size() - 3)
                                        << QStringList{"truncated", "needs 16 data bytes", "found 13"};
        QTest::newRow("trailing bytes") << (good + "xyz") << static_cast<int>(good.size())
                                        << QStringList{"3 unexpected bytes after the array data"};
        QTest::newRow("fortran order") << npy_file(npy_dict("<f8", "(1, 2)", true), two) << 44
                                       << QStringList{"Fortran-order", "not supported"};
        QTest::newRow("complex dtype") << npy_file(npy_dict("<c16", "(1, 1)"), two) << 20
                                       << QStringList{"unsupported dtype '<c16'"};
        QTest::newRow("half floats") << npy_file(npy_dict("<f2", "(1, 1)"), QByteArray(2, '\0')) << 20
                                     << QStringList{"unsupported dtype '<f2'"};
        QTest::newRow("no byte order on 8-byte items") << npy_file(npy_dict("|f8", "(1, 2)"), two) << 20
                                                       << QStringList{"'|f8'", "no byte order"};
        QTest::newRow("structured dtype")
            << npy_file("{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (1,), }", two) << 20
            << QStringList{"structured dtypes"};
        QTest::newRow("unknown key") << npy_file("{'descr': '<f8', 'colour': 'red', 'shape': (1, 2), }", two) << 27
                                     << QStringList{"unexpected key 'colour'"};
        QTest::newRow("missing shape") << npy_file("{'descr': '<f8', 'fortran_order': False}", two) << 10
                                       << QStringList{"missing key 'shape'"};
        QTest::newRow("not a dict") << npy_file("['descr', '<f8']", two) << 10 << QStringList{"expected '{'"};
        QTest::newRow("bad shape") << npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1, x), }", two)
                                   << 64 << QStringList{"non-negative integer in the shape"};
        QTest::newRow("3-D") << npy_file(npy_dict("<f8", "(1, 1, 2)"), two) << 60 << QStringList{"1-D or 2-D"};
        QTest::newRow("scalar") << npy_file(npy_dict("<f8", "()"), raw_items<double>({1})) << 60
                                << QStringList{"1-D or 2-D"};
        QTest::newRow("no rows") << npy_file(npy_dict("<f8", "(0, 2)"), QByteArray()) << 60
                                 << QStringList{"empty array"};
        // Data starts at byte 128 (the header is padded to a multiple of 64); element [1, 0] is item 2.
        QTest::newRow("NaN") << npy_file(npy_dict("<f8", "(2, 2)"), raw_items<double>({1, 2, std::nan(""), 4})) << 144
                             << QStringList{"NaN is not a valid coordinate", "element [1, 0]"};
        QTest::newRow("Inf in float32") << npy_file(npy_dict("<f4", "(1, 2)"), raw_items<float>({1, -INFINITY})) << 132
                                        << QStringList{"infinite value is not a valid coordinate", "element [0, 1]"};
    }

    void npy_errors() {
        QFETCH(QByteArray, content);
        QFETCH(int, offset);
        QFETCH(QStringList, words);
        const std::string path = write_file(content, QString("bad_%1.npy").arg(++file_counter_));
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Byte,
                               static_cast<std::uint64_t>(offset), words);
    }

    void npy_extension_without_magic_is_refused() {
        const std::string path = write_file("1,2\n", "looks_like_text.npy");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(path); }, path, Where::Byte, 0, "not a NumPy .npy file",
                               "magic");
        // Wrong magic in a file without the extension: it is text, and not numbers.
        const std::string other = write_file(QByteArray("\x93NUMPZ\x01\x00", 8), "wrong_magic.dat");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(other); }, other, Where::Line, 1, "not a number", "\\x93NUMPZ");
    }

    // numpy itself writes the files; its shortest repr() of each value is the reference.
    void npy_written_by_numpy_matches() {
        const std::string python = kms::test::python();
        if (python.empty()) {
            if (kms::test::in_ci()) QFAIL("CI is set but KMS_PYTHON (python3 with numpy) was not found");
            QSKIP("KMS_PYTHON is empty: no python3 with numpy to write reference .npy files");
        }
        const QString folder = dir_.filePath("numpy");
        QVERIFY(QDir().mkpath(folder));
        const char* script = R"(
import numpy as np, os, sys
d = sys.argv[1]
rng = np.random.default_rng(7)
a = rng.normal(size=(37, 3)) * 1000
cases = {'f8': a, 'f4': a.astype('<f4'), 'f8be': a.astype('>f8'), 'f4be': a.astype('>f4'),
         'i4': a.astype('<i4'), 'i8be': a.astype('>i8'), 'u2': np.abs(a).astype('<u2'),
         'i1': (a / 100).astype('i1'), 'vector': a[:, 0].copy(), 'sliced': a[::2, 1:]}
for name, array in cases.items():
    np.save(os.path.join(d, name + '.npy'), array)
    with open(os.path.join(d, name + '.csv'), 'w') as f:
        for row in array.astype('f8').reshape(array.shape[0], -1):
            f.write(','.join(repr(float(v)) for v in row) + '\n')
np.save(os.path.join(d, 'fortran.npy'), np.asfortranarray(a))
labels = rng.integers(0, 9, size=41)
np.save(os.path.join(d, 'labels.npy'), labels.astype('<i8'))
np.save(os.path.join(d, 'labels_u1.npy'), labels.astype('u1'))
with open(os.path.join(d, 'labels.txt'), 'w') as f:
    f.write(''.join('%d\n' % v for v in labels))
)";
        QProcess process;
        process.start(QString::fromStdString(python), {"-c", script, folder});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        for (const char* name : {"f8", "f4", "f8be", "f4be", "i4", "i8be", "u2", "i1", "vector", "sliced"}) {
            const std::string base = QDir(folder).filePath(name).toStdString();
            const kms::Matrix<double> from_npy = kms::load_matrix(base + ".npy");
            const kms::Matrix<double> from_text = kms::load_matrix(base + ".csv");
            QCOMPARE(from_npy.rows(), from_text.rows());
            QCOMPARE(from_npy.cols(), from_text.cols());
            for (std::size_t i = 0; i < from_npy.size(); ++i)
                QVERIFY2(same_bits(from_npy.values()[i], from_text.values()[i]),
                         qPrintable(QString("%1 item %2").arg(name).arg(i)));
        }
        const std::string fortran = QDir(folder).filePath("fortran.npy").toStdString();
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_matrix(fortran); }, fortran, Where::Byte, 44, "Fortran-order");
        const auto expected = kms::load_labels(QDir(folder).filePath("labels.txt").toStdString());
        QCOMPARE(expected.size(), std::size_t{41});
        QVERIFY(kms::load_labels(QDir(folder).filePath("labels.npy").toStdString()) == expected);
        QVERIFY(kms::load_labels(QDir(folder).filePath("labels_u1.npy").toStdString()) == expected);
    }

    // ---------------------------------------------------------------- labels
    void labels_load_as_read() {
        QVERIFY(kms::load_labels(write_file("0\n1\n2\n1\n")) == (std::vector<std::int32_t>{0, 1, 2, 1}));
        // Not re-based: 1-based files stay 1-based here.
        QVERIFY(kms::load_labels(write_file("1\n2\n2")) == (std::vector<std::int32_t>{1, 2, 2}));
        QVERIFY(kms::load_labels(write_file("\xEF\xBB\xBF# labels\r\nlabel\r\n3\r\n\r\n-1 # noise\r\n+4\r\n")) ==
                (std::vector<std::int32_t>{3, -1, 4}));
        QVERIFY(kms::load_labels(write_file("  2147483647\n-2147483648\n")) ==
                (std::vector<std::int32_t>{INT32_MAX, INT32_MIN}));
        const QByteArray npy = npy_file(npy_dict("<i4", "(3,)"), raw_items<std::int32_t>({5, 0, 7}));
        QVERIFY(kms::load_labels(write_file(npy, "labels_a.npy")) == (std::vector<std::int32_t>{5, 0, 7}));
        const QByteArray column = npy_file(npy_dict(">i8", "(2, 1)"), raw_items<std::int64_t>({9, 1}, true));
        QVERIFY(kms::load_labels(write_file(column, "labels_b.npy")) == (std::vector<std::int32_t>{9, 1}));
    }

    void label_errors() {
        const std::string decimal = write_file("1\n2\n1.5\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(decimal); }, decimal, Where::Line, 3, "not an integer label",
                               "'1.5'");
        const std::string two_first = write_file("1 2\n3 4\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(two_first); }, two_first, Where::Line, 1,
                               "expected 1 label per line, found 2");
        const std::string two_later = write_file("1\n2\n\n3,4\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(two_later); }, two_later, Where::Line, 4, "'3,4'");
        const std::string two_later_spaces = write_file("1\n2\n3 4\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(two_later_spaces); }, two_later_spaces, Where::Line, 3,
                               "expected 1 label, found 2");
        const std::string too_big = write_file("1\n3000000000\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(too_big); }, too_big, Where::Line, 2, "32-bit",
                               "'3000000000'");
        const std::string empty = write_file("");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(empty); }, empty, Where::Nowhere, 0, "empty file");
        const std::string header_only = write_file("label\n");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(header_only); }, header_only, Where::Line, 1,
                               "only a header row");
        const std::string floats = write_file(npy_file(npy_dict("<f8", "(2,)"), raw_items<double>({1, 2})), "f.npy");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(floats); }, floats, Where::Byte, 20, "must be integers",
                               "'<f8'");
        const std::string matrix =
            write_file(npy_file(npy_dict("<i4", "(1, 2)"), raw_items<std::int32_t>({1, 2})), "m.npy");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(matrix); }, matrix, Where::Byte, 60, "1-D array", "(1, 2)");
        const std::string wide =
            write_file(npy_file(npy_dict("<u8", "(2,)"), raw_items<std::uint64_t>({1, 1ULL << 63})), "w.npy");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(wide); }, wide, Where::Byte, 136, "32-bit", "element 1");
        const std::string cut =
            write_file(npy_file(npy_dict("<i4", "(3,)"), raw_items<std::int32_t>({1, 2})), "cut.npy");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_labels(cut); }, cut, Where::Byte, 136, "truncated");
    }

    // ---------------------------------------------------------------- ground truth
    void ground_truth_is_attached() {
        QVERIFY(QDir(dir_.path()).mkpath("truth"));
        const QString folder = dir_.filePath("truth");
        const std::string data = write_file("1 1\n1 2\n9 9\n8 9\n", "truth/pts.txt");
        write_file("1\n1\n2\n2", "truth/pts-labels.txt");
        write_file("1 1.5\n8.5 9\n", "truth/pts-gt.txt");
        const kms::Dataset dataset = kms::load_dataset(data);
        QCOMPARE(dataset.name, data);
        QVERIFY(dataset.truth_labels == (std::vector<std::int32_t>{0, 0, 1, 1}));
        QCOMPARE(dataset.truth_centroids.rows(), std::size_t{2});
        QVERIFY(dataset.truth_centroids.values() == (std::vector<double>{1, 1.5, 8.5, 9}));

        kms::LoadOptions without;
        without.attach_ground_truth = false;
        const kms::Dataset plain = kms::load_dataset(data, without);
        QVERIFY(plain.truth_labels.empty());
        QCOMPARE(plain.truth_centroids.rows(), std::size_t{0});
        // load_matrix never attaches anything and accepts the same file.
        QCOMPARE(kms::load_matrix(data).rows(), std::size_t{4});

        // NAME.csv works too; 0-based labels are kept; no -gt file means no centroids.
        const std::string csv = write_file("x,y\n0,0\n5,5\n", "truth/other.csv");
        write_file("0\n1\n", "truth/other-labels.txt");
        const kms::Dataset other = kms::load_dataset(csv);
        QVERIFY(other.truth_labels == (std::vector<std::int32_t>{0, 1}));
        QCOMPARE(other.truth_centroids.rows(), std::size_t{0});
        Q_UNUSED(folder);
    }

    void ground_truth_errors() {
        QVERIFY(QDir(dir_.path()).mkpath("badtruth"));
        const std::string data = write_file("1 1\n1 2\n9 9\n", "badtruth/short.txt");
        const std::string labels = write_file("1\n2\n", "badtruth/short-labels.txt");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(data); }, labels, Where::Nowhere, 0, "has 2 labels",
                               "3 points", QString::fromStdString(data));

        const std::string data2 = write_file("1 1\n1 2\n", "badtruth/dims.txt");
        write_file("1\n2\n", "badtruth/dims-labels.txt");
        const std::string centroids = write_file("1 1 1\n", "badtruth/dims-gt.txt");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(data2); }, centroids, Where::Nowhere, 0,
                               "have 3 coordinates", "has 2");

        const std::string data3 = write_file("1 1\n1 2\n", "badtruth/neg.txt");
        const std::string negative = write_file("-1\n0\n", "badtruth/neg-labels.txt");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(data3); }, negative, Where::Nowhere, 0, "negative");

        const std::string data4 = write_file("1 1\n1 2\n", "badtruth/broken.txt");
        const std::string broken = write_file("1\nx\n", "badtruth/broken-labels.txt");
        KMS_EXPECT_INPUT_ERROR([&] { kms::load_dataset(data4); }, broken, Where::Line, 2, "not an integer label");
    }

    // ---------------------------------------------------------------- writers
    void labels_round_trip() {
        const std::string path = dir_.filePath("out-labels.txt").toStdString();
        const std::vector<std::int32_t> labels{0, 3, 1, 1, 2, 0, 14, INT32_MAX};
        kms::write_labels(path, labels);
        QVERIFY(kms::load_labels(path) == labels);
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("0\n3\n1\n1\n2\n0\n14\n2147483647\n"));
    }

    void centroids_round_trip_bit_exactly() {
        const std::vector<double> values{0.1, 1e-300, -0.0, 1.0 / 3.0, 5e-324, DBL_MAX, -DBL_MIN,
                                         123456789.123, 2.0 / 3.0, -1e22, 0.0, 3.0};
        const kms::Matrix<double> centroids(4, 3, values);
        const std::string path = dir_.filePath("out-centroids.csv").toStdString();
        kms::write_centroids_csv(path, centroids);
        const kms::Matrix<double> back = kms::load_matrix(path);
        QCOMPARE(back.rows(), std::size_t{4});
        QCOMPARE(back.cols(), std::size_t{3});
        for (std::size_t i = 0; i < values.size(); ++i)
            QVERIFY2(same_bits(back.values()[i], values[i]), qPrintable(QString("item %1").arg(i)));
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readLine(), QByteArray("0.1,1e-300,-0\n"));
    }

    void writers_refuse_non_finite_centroids() {
        const std::string path = dir_.filePath("nan-centroids.csv").toStdString();
        const kms::Matrix<double> centroids(1, 2, std::vector<double>{1.0, std::nan("")});
        try {
            kms::write_centroids_csv(path, centroids);
            QFAIL("a NaN centroid was written");
        } catch (const kms::Error& error) {
            QVERIFY(QString(error.what()).contains(QString::fromStdString(path)));
            QVERIFY(QString(error.what()).contains("not a finite number"));
        }
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
    }

    void writers_replace_atomically() {
        QVERIFY(QDir(dir_.path()).mkpath("atomic"));
        const QString folder = dir_.filePath("atomic");
        const std::string path = QDir(folder).filePath("report.json").toStdString();
        kms::write_text_file(path, "old contents, longer than the new ones\n");
        kms::write_text_file(path, "{}\n");
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("{}\n"));
        QCOMPARE(entries(folder), QStringList{"report.json"});  // no temporary file left behind
        // An empty file is a valid result too.
        kms::write_text_file(path, "");
        QCOMPARE(QFileInfo(QString::fromStdString(path)).size(), 0);
    }

    void writer_failures_name_the_path_and_leave_nothing_behind() {
        QVERIFY(QDir(dir_.path()).mkpath("failures/target-is-a-folder"));
        const QString folder = dir_.filePath("failures");
        const std::string into_folder = QDir(folder).filePath("target-is-a-folder").toStdString();
        const std::string missing_folder = QDir(folder).filePath("no/such/folder/labels.txt").toStdString();
        const std::vector<std::int32_t> labels{1, 2};
        for (const auto& [path, reason] : {std::pair{into_folder, QString("Is a directory")},
                                           std::pair{missing_folder, QString("No such file or directory")}}) {
            try {
                kms::write_labels(path, labels);
                QFAIL(qPrintable("writing to " + QString::fromStdString(path) + " succeeded"));
            } catch (const kms::Error& error) {
                const QString what = error.what();
                QVERIFY2(what.contains(QString::fromStdString(path)), qPrintable(what));
                QVERIFY2(what.contains(reason), qPrintable(what));
            }
        }
        QCOMPARE(entries(folder), QStringList{});  // the temporary file was removed
        QVERIFY(QFileInfo(QString::fromStdString(into_folder)).isDir());
    }

    // ---------------------------------------------------------------- published benchmark sets
    void benchmark_sets_load_with_their_readme_sizes() {
        const std::string root = kms::test::datasets_dir();
        if (root.empty() || !std::filesystem::is_directory(root))
            QSKIP("KMS_DATASETS is empty or absent: the published benchmark sets are not available here");
        struct Set {
            std::string name;
            std::size_t n, d, k;
            bool centroids;
        };
        std::vector<Set> sets{{"s1", 5000, 2, 15, true},       {"a1", 3000, 2, 20, true},
                              {"aggregation", 788, 2, 7, false}, {"compound", 399, 2, 6, false},
                              {"d31", 3100, 2, 31, false},       {"r15", 600, 2, 15, false},
                              {"flame", 240, 2, 2, false},       {"jain", 373, 2, 2, false},
                              {"pathbased", 300, 2, 3, false},   {"spiral", 312, 2, 3, false}};
        for (int sd = 10; sd <= 100; sd += 10) sets.push_back({"g2-2-" + std::to_string(sd), 2048, 2, 2, false});
        std::size_t data_files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(root)) {
            const std::string file = entry.path().filename().string();
            if (entry.path().extension() == ".txt" && file.find("-labels") == std::string::npos &&
                file.find("-gt") == std::string::npos)
                ++data_files;
        }
        QCOMPARE(data_files, sets.size());  // a new data file needs a row in the README and here
        for (const Set& set : sets) {
            const std::string path = root + "/" + set.name + ".txt";
            const kms::Dataset dataset = kms::load_dataset(path);
            const QString label = QString::fromStdString(path);
            QVERIFY2(dataset.n() == set.n, qPrintable(label));
            QVERIFY2(dataset.d() == set.d, qPrintable(label));
            QVERIFY2(dataset.truth_labels.size() == set.n, qPrintable(label));
            const auto [low, high] = std::minmax_element(dataset.truth_labels.begin(), dataset.truth_labels.end());
            QVERIFY2(*low == 0 && *high == static_cast<std::int32_t>(set.k) - 1, qPrintable(label));
            QVERIFY2(dataset.truth_centroids.rows() == (set.centroids ? set.k : 0), qPrintable(label));
            if (set.centroids) QVERIFY2(dataset.truth_centroids.cols() == set.d, qPrintable(label));
            // Every file also loads on its own (the -labels files as labels, the -gt files as matrices).
            QCOMPARE(kms::load_labels(root + "/" + set.name + "-labels.txt").size(), set.n);
        }
        // Spot values, as printed in the files.
        const kms::Dataset s1 = kms::load_dataset(root + "/s1.txt");
        QCOMPARE(s1.points(0, 0), 664159.0);
        QCOMPARE(s1.points(0, 1), 550946.0);
        QCOMPARE(s1.truth_centroids(0, 0), 604328.0);
        QCOMPARE(s1.truth_centroids(0, 1), 574379.0);
        const kms::Dataset aggregation = kms::load_dataset(root + "/aggregation.txt");
        QCOMPARE(aggregation.points(0, 0), 15.55);
        QCOMPARE(aggregation.points(0, 1), 28.65);
    }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
