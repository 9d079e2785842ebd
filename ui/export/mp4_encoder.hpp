#pragma once
// The run as an MP4 video for slides: H.264 (libx264 through libavcodec), 4:2:0,
// BT.709, moov atom first ("faststart"), so browsers, PowerPoint and phones play
// it. One video frame per animation frame, each shown as long as the GIF shows it
// (variable frame durations in a 1/100 s time base). Frames of odd width or height
// get one more column / row copied from the edge: H.264 4:2:0 needs even sizes.
// Encoded in memory; the caller writes the bytes atomically (write_studio_file).
// No Qt. Built only with FFmpeg (KMS_HAVE_FFMPEG); otherwise the constructor
// throws, saying what to install.
#include <cstdint>
#include <memory>
#include <string>

namespace kms::ui {

// Whether this build can write MP4 (libavcodec found at configure time and an
// H.264 encoder present at run time); when not, `reason` says why and what to install.
bool mp4_export_available(std::string* reason = nullptr);

class Mp4Encoder {
public:
    // Throws kms::Error when MP4 is unavailable (see mp4_export_available) or the
    // encoder refuses the size.
    Mp4Encoder(int width, int height);
    ~Mp4Encoder();
    Mp4Encoder(const Mp4Encoder&) = delete;
    Mp4Encoder& operator=(const Mp4Encoder&) = delete;

    // One frame of width × height pixels, 0xAARRGGBB (alpha ignored), rows `stride`
    // pixels apart; shown for `duration_centiseconds`.
    void add_frame(const std::uint32_t* pixels, int stride, int duration_centiseconds);
    int frames() const { return frames_; }
    // The encoded size (even: the frame padded by at most one column and one row).
    int encoded_width() const { return (width_ + 1) & ~1; }
    int encoded_height() const { return (height_ + 1) & ~1; }
    // The whole file.
    std::string finish();

private:
    struct State;
    int width_, height_;
    int frames_ = 0;
    std::unique_ptr<State> state_;
};

}  // namespace kms::ui
