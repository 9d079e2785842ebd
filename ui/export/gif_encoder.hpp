#pragma once
// A small animated-GIF (GIF89a) writer: each frame quantised to its own colour
// table (exact when the frame has at most 256 colours, as the studio's flat
// drawings mostly do), LZW-compressed, looping. No Qt, no external library.
#include <cstdint>
#include <string>
#include <vector>

namespace kms::ui {

class GifEncoder {
public:
    GifEncoder(int width, int height);

    // One frame of width × height pixels, 0xAARRGGBB (alpha ignored), rows `stride`
    // pixels apart; shown for `delay_centiseconds`.
    void add_frame(const std::uint32_t* pixels, int stride, int delay_centiseconds);
    int frames() const { return frames_; }
    // The whole file (header, frames, trailer).
    std::string finish();

private:
    void write_word(int value);

    int width_, height_;
    int frames_ = 0;
    std::string bytes_;
};

// LZW codes of `indices` (palette indices < 2^min_code_size) as GIF data
// sub-blocks, preceded by the minimum code size and ended by a zero block.
std::string gif_lzw_image_data(const std::vector<std::uint8_t>& indices, int min_code_size);

}  // namespace kms::ui
