// MP4 export of the studio's animations (issue 11), decoded back with FFmpeg's
// own libraries: the encoder pads odd sizes to even ones by repeating the edge and
// keeps the GIF's frame durations; a scripted run exported as GIF and as MP4 gives
// one video frame per half-step, of --size, each resembling the GIF's frame; bad
// destinations (missing folder, a file as folder, a read-only folder, a symbolic
// link) exit 1 naming the file and leave nothing behind. Built without FFmpeg, an
// .mp4 is refused saying what to install. The scripted runs need an X server
// (xvfb-run) and skip without an OpenGL 3.3 context.
#include <QtTest>

#include <QApplication>
#include <QDir>
#include <QImageReader>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QProcess>
#include <QSurfaceFormat>
#include <QTemporaryDir>

#include <unistd.h>

#include <cmath>
#include <vector>

#include "ui/gl_test_support.hpp"
#include "export/mp4_encoder.hpp"
#include "kms/error.hpp"

#ifdef KMS_HAVE_FFMPEG
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}
#endif

using namespace kms::ui;

using kms::test::core_33;

namespace {

using kms::test::have_gl_33;

// Mean over pixels of the mean absolute difference of R, G and B (0–255).
double mean_abs_difference(const QImage& a, const QImage& b) {
    double sum = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            sum += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) + std::abs(qBlue(p) - qBlue(q));
        }
    return sum / (3.0 * a.width() * a.height());
}

std::vector<QImage> gif_frames(const QString& path) {
    QImageReader reader(path, "gif");
    std::vector<QImage> frames;
    for (QImage frame; reader.read(&frame);) frames.push_back(frame.convertToFormat(QImage::Format_RGB32));
    return frames;
}

QStringList leftovers(const QString& dir) {
    return QDir(dir).entryList(QStringList{QStringLiteral("*.tmp-*")}, QDir::Files | QDir::Hidden);
}

#ifdef KMS_HAVE_FFMPEG
struct DecodedVideo {
    std::vector<QImage> frames;   // RGB, full range
    std::vector<double> seconds;  // each frame's presentation time
    double duration = 0;          // of the stream, seconds
    QString codec;
};

// Decodes every frame with libavformat / libavcodec, converted back to RGB with the
// BT.709 limited-range matrix the file is tagged with.
DecodedVideo decode(const QString& path) {
    DecodedVideo video;
    AVFormatContext* format = nullptr;
    if (avformat_open_input(&format, path.toUtf8().constData(), nullptr, nullptr) < 0) return video;
    avformat_find_stream_info(format, nullptr);
    const AVCodec* decoder = nullptr;
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index < 0) {
        avformat_close_input(&format);
        return video;
    }
    AVStream* stream = format->streams[index];
    AVCodecContext* codec = avcodec_alloc_context3(decoder);
    avcodec_parameters_to_context(codec, stream->codecpar);
    avcodec_open2(codec, decoder, nullptr);
    video.codec = QString::fromUtf8(decoder->name);
    video.duration = double(stream->duration) * av_q2d(stream->time_base);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    SwsContext* convert = nullptr;
    auto drain = [&] {
        while (avcodec_receive_frame(codec, frame) == 0) {
            QImage image(frame->width, frame->height, QImage::Format_RGB32);
            convert = sws_getCachedContext(convert, frame->width, frame->height, AVPixelFormat(frame->format),
                                           frame->width, frame->height, AV_PIX_FMT_RGB32, SWS_BILINEAR | SWS_ACCURATE_RND,
                                           nullptr, nullptr, nullptr);
            sws_setColorspaceDetails(convert, sws_getCoefficients(SWS_CS_ITU709), 0, sws_getCoefficients(SWS_CS_ITU709),
                                     1, 0, 1 << 16, 1 << 16);
            std::uint8_t* out[1] = {image.bits()};
            const int out_stride[1] = {int(image.bytesPerLine())};
            sws_scale(convert, frame->data, frame->linesize, 0, frame->height, out, out_stride);
            video.frames.push_back(image);
            video.seconds.push_back(double(frame->best_effort_timestamp) * av_q2d(stream->time_base));
        }
    };
    while (av_read_frame(format, packet) >= 0) {
        if (packet->stream_index == index && avcodec_send_packet(codec, packet) == 0) drain();
        av_packet_unref(packet);
    }
    avcodec_send_packet(codec, nullptr);
    drain();
    sws_freeContext(convert);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
    return video;
}
#endif

}  // namespace

class TestUiAnimationMp4 : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { studio_ = qEnvironmentVariable("KMS_STUDIO"); }

    // Frames of 33×21 (odd): encoded as 34×22, the extra column and row a copy of
    // the edge; 3 frames shown 2 s, 0.7 s and 2 s as in the GIF; colours kept.
    void encoder_pads_to_even_and_keeps_the_frame_durations() {
#ifndef KMS_HAVE_FFMPEG
        std::string reason;
        QVERIFY(!mp4_export_available(&reason));
        QVERIFY(reason.find("libavcodec-dev") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(kms::Error, Mp4Encoder(34, 22));
#else
        const int w = 33, h = 21;
        std::vector<QImage> sources;
        for (const QRgb background : {qRgb(250, 250, 250), qRgb(30, 90, 200), qRgb(220, 60, 40)}) {
            QImage image(w, h, QImage::Format_RGB32);
            image.fill(background);
            for (int y = 4; y < 12; ++y)
                for (int x = 6; x < 18; ++x) image.setPixel(x, y, qRgb(20, 160, 60));  // a block of another colour
            for (int y = 0; y < h; ++y) image.setPixel(w - 1, y, qRgb(0, 0, 0));        // a dark right edge
            sources.push_back(image);
        }
        Mp4Encoder encoder(w, h);
        QCOMPARE(encoder.encoded_width(), 34);
        QCOMPARE(encoder.encoded_height(), 22);
        const int durations[] = {200, 70, 200};
        for (std::size_t i = 0; i < sources.size(); ++i)
            encoder.add_frame(reinterpret_cast<const std::uint32_t*>(sources[i].constBits()),
                              int(sources[i].bytesPerLine() / 4), durations[i]);
        const std::string bytes = encoder.finish();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("pad.mp4"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.data(), qint64(bytes.size()));
        file.close();
        // The index (moov) comes before the frames (mdat): players start at once.
        QVERIFY(bytes.find("moov") < bytes.find("mdat"));

        const DecodedVideo video = decode(path);
        QCOMPARE(video.codec, QStringLiteral("h264"));
        QCOMPARE(int(video.frames.size()), 3);
        QCOMPARE(video.frames[0].size(), QSize(34, 22));
        const double starts[] = {0.0, 2.0, 2.7};
        for (int i = 0; i < 3; ++i) QVERIFY2(std::abs(video.seconds[i] - starts[i]) < 1e-3, qPrintable(QString::number(video.seconds[i])));
        QVERIFY2(std::abs(video.duration - 4.7) < 1e-3, qPrintable(QString::number(video.duration)));
        for (int i = 0; i < 3; ++i) {
            const QImage decoded = video.frames[std::size_t(i)];
            const double difference = mean_abs_difference(decoded.copy(0, 0, w, h), sources[std::size_t(i)]);
            QVERIFY2(difference < 4.0, qPrintable(QStringLiteral("frame %1: %2").arg(i).arg(difference)));
            // Padding repeats the edge: the added column is dark like the last one, the added row like the last row.
            QVERIFY(qGray(decoded.pixel(33, 10)) < 60);
            QVERIFY(std::abs(qGray(decoded.pixel(10, 21)) - qGray(sources[std::size_t(i)].pixel(10, h - 1))) < 20);
        }
        // The comparison can fail: a frame against another frame's source differs a lot.
        QVERIFY(mean_abs_difference(video.frames[1].copy(0, 0, w, h), sources[2]) > 40.0);
#endif
    }

    // A short scripted run, as GIF and as MP4 at 320×240, half-steps: 1 + 2 × 3 frames each.
    void scripted_run_as_mp4_matches_the_gif() {
        if (studio_.isEmpty()) QSKIP("KMS_STUDIO not set (run through CTest)");
        QTemporaryDir dir;
        const QStringList run = {QStringLiteral("--generate"), QStringLiteral("blobs:n=1500,k=4,d=2"), QStringLiteral("--seed"),
                                 QStringLiteral("3"), QStringLiteral("--k"), QStringLiteral("4"), QStringLiteral("--init"),
                                 QStringLiteral("random"), QStringLiteral("--steps"), QStringLiteral("3"),
                                 QStringLiteral("--half-steps"), QStringLiteral("--size"), QStringLiteral("320x240")};
        const QString mp4_path = dir.filePath(QStringLiteral("run.mp4"));
#ifndef KMS_HAVE_FFMPEG
        QProcess refused;
        refused.start(studio_, run + QStringList{QStringLiteral("--export-animation"), mp4_path});
        QVERIFY(refused.waitForFinished(60000));
        QCOMPARE(refused.exitCode(), 1);
        QVERIFY(QString::fromUtf8(refused.readAllStandardError()).contains(QStringLiteral("libavcodec-dev")));
        QVERIFY(!QFile::exists(mp4_path));
#else
        if (!have_gl_33()) QSKIP("no OpenGL 3.3 context on this display: the studio cannot render frames");
        const QString gif_path = dir.filePath(QStringLiteral("run.gif"));
        for (const QString& path : {gif_path, mp4_path}) {
            QProcess process;
            process.start(studio_, run + QStringList{QStringLiteral("--export-animation"), path});
            QVERIFY(process.waitForFinished(120000));
            QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
            QVERIFY(QString::fromUtf8(process.readAllStandardOutput()).contains(QStringLiteral("(7 frames)")));
        }
        const std::vector<QImage> gif = gif_frames(gif_path);
        const DecodedVideo video = decode(mp4_path);
        QCOMPARE(int(gif.size()), 7);  // iteration 0, then assignment and update of 3 iterations
        QCOMPARE(int(video.frames.size()), 7);
        QCOMPARE(video.frames[0].size(), QSize(320, 240));
        QCOMPARE(gif[0].size(), QSize(320, 240));
        // Same timing as the GIF: 2 s on iteration 0, 0.7 s per half-step, 2 s on the last.
        QVERIFY2(std::abs(video.seconds[1] - 2.0) < 1e-3 && std::abs(video.seconds[6] - 5.5) < 1e-3,
                 qPrintable(QStringLiteral("%1 %2").arg(video.seconds[1]).arg(video.seconds[6])));
        QVERIFY2(std::abs(video.duration - 7.5) < 1e-3, qPrintable(QString::number(video.duration)));
        double worst = 0;
        for (std::size_t i = 0; i < gif.size(); ++i) {
            const double difference = mean_abs_difference(video.frames[i], gif[i]);
            QVERIFY2(difference < 4.0, qPrintable(QStringLiteral("frame %1: mean |difference| %2").arg(i).arg(difference)));
            worst = std::max(worst, difference);
        }
        // The measure tells frames apart: iteration 0 (no labels yet) is far from the converged last frame.
        const double unlike = mean_abs_difference(video.frames[0], gif.back());
        QVERIFY2(unlike > 2.0 * mean_abs_difference(video.frames[0], gif[0]) && unlike > 1.0,
                 qPrintable(QString::number(unlike)));
        qInfo("MP4 vs GIF, mean |difference| per channel: at most %.3f per frame; first MP4 frame vs last GIF frame %.3f "
              "(%lld bytes of MP4, %lld of GIF)", worst, unlike, QFileInfo(mp4_path).size(), QFileInfo(gif_path).size());
        QVERIFY(leftovers(dir.path()).isEmpty());
#endif
    }

    // Bad destinations exit 1 (an unknown extension: 2, a usage error), name the file and the reason, and leave nothing behind.
    void bad_destinations_are_refused() {
        if (studio_.isEmpty()) QSKIP("KMS_STUDIO not set (run through CTest)");
        QTemporaryDir dir;
        QFile plain(dir.filePath(QStringLiteral("plain.txt")));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.write("not a folder\n");
        plain.close();
        auto refuse = [&](const QString& path, const QString& reason, int exit_code = 1) {
            QProcess process;
            process.start(studio_, {QStringLiteral("--generate"), QStringLiteral("blobs:n=200,k=2,d=2"), QStringLiteral("--k"),
                                    QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("1"),
                                    QStringLiteral("--size"), QStringLiteral("320x240"), QStringLiteral("--export-animation"), path});
            QVERIFY(process.waitForFinished(120000));
            const QString error = QString::fromUtf8(process.readAllStandardError());
            QVERIFY2(process.exitCode() == exit_code, qPrintable(error));
            QVERIFY2(error.contains(path) && error.contains(reason), qPrintable(error));
        };
        refuse(dir.filePath(QStringLiteral("missing/run.mp4")), QStringLiteral("No such file or directory"));
        refuse(dir.filePath(QStringLiteral("plain.txt/run.mp4")), QStringLiteral("Not a directory"));
        refuse(dir.filePath(QStringLiteral("run.webm")), QStringLiteral(".gif or .mp4"), 2);  // a usage error
        if (::geteuid() != 0) {  // root writes into read-only folders
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("locked")));
            QFile::setPermissions(dir.filePath(QStringLiteral("locked")), QFile::ReadOwner | QFile::ExeOwner);
            refuse(dir.filePath(QStringLiteral("locked/run.mp4")), QStringLiteral("Permission denied"));
        }
#ifdef KMS_HAVE_FFMPEG
        if (!have_gl_33()) QSKIP("no OpenGL 3.3 context on this display: the symbolic-link case needs a rendered run");
        // A symbolic link is not followed: the export is refused and its target keeps its contents.
        const QString link = dir.filePath(QStringLiteral("link.mp4"));
        QVERIFY(QFile::link(plain.fileName(), link));
        refuse(link, QStringLiteral("symbolic link"));
        QVERIFY(plain.open(QIODevice::ReadOnly));
        QCOMPARE(plain.readAll(), QByteArray("not a folder\n"));
#endif
        QVERIFY(leftovers(dir.path()).isEmpty());
    }

private:
    QString studio_;
};

int main(int argc, char** argv) {
    QSurfaceFormat::setDefaultFormat(core_33());
    QApplication app(argc, argv);
    TestUiAnimationMp4 test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_ui_animation_mp4.moc"
