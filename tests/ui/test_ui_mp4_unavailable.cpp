// The MP4 encoder as built without FFmpeg (this test compiles ui/export/mp4_encoder.cpp
// itself, without KMS_HAVE_FFMPEG, whatever the studio was built with): MP4 is
// reported unavailable with what to install, and the encoder refuses to start.
#include <QtTest>

#include "export/mp4_encoder.hpp"
#include "kms/error.hpp"

class TestUiMp4Unavailable : public QObject {
    Q_OBJECT
private slots:
    void says_what_to_install() {
        std::string reason;
        QVERIFY(!kms::ui::mp4_export_available(&reason));
        for (const char* package : {"libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", ".gif"})
            QVERIFY2(reason.find(package) != std::string::npos, reason.c_str());
        try {
            kms::ui::Mp4Encoder encoder(320, 240);
            QFAIL("the encoder started without FFmpeg");
        } catch (const kms::Error& error) {
            QCOMPARE(std::string(error.what()), reason);
        }
    }
};

QTEST_GUILESS_MAIN(TestUiMp4Unavailable)
#include "test_ui_mp4_unavailable.moc"
