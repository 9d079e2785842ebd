#include "export/gif_encoder.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <unordered_map>

namespace kms::ui {

namespace {

// Bits packed least significant first into 255-byte sub-blocks.
class BitWriter {
public:
    void write(std::uint32_t code, int bits) {
        buffer_ |= code << filled_;
        filled_ += bits;
        while (filled_ >= 8) {
            put(std::uint8_t(buffer_ & 0xFF));
            buffer_ >>= 8;
            filled_ -= 8;
        }
    }
    std::string finish() {
        if (filled_ > 0) put(std::uint8_t(buffer_ & 0xFF));
        flush_block();
        out_.push_back('\0');  // block terminator
        return std::move(out_);
    }

private:
    void put(std::uint8_t byte) {
        block_.push_back(char(byte));
        if (block_.size() == 255) flush_block();
    }
    void flush_block() {
        if (block_.empty()) return;
        out_.push_back(char(block_.size()));
        out_ += block_;
        block_.clear();
    }
    std::uint32_t buffer_ = 0;
    int filled_ = 0;
    std::string block_, out_;
};

struct Quantised {
    std::vector<std::uint32_t> palette;  // 0xRRGGBB, at most 256
    std::vector<std::uint8_t> indices;
};

// Exact colours when there are at most 256; otherwise the commonest 5-bit-per-channel
// cells (their mean colours) and a colour cube, each pixel to its cell's nearest.
Quantised quantise(const std::uint32_t* pixels, int width, int height, int stride) {
    Quantised result;
    result.indices.resize(std::size_t(width) * std::size_t(height));
    std::unordered_map<std::uint32_t, std::uint8_t> exact;
    bool fits = true;
    for (int y = 0; y < height && fits; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint32_t rgb = pixels[std::size_t(y) * std::size_t(stride) + std::size_t(x)] & 0xFFFFFF;
            auto it = exact.find(rgb);
            if (it == exact.end()) {
                if (exact.size() == 256) {
                    fits = false;
                    break;
                }
                it = exact.emplace(rgb, std::uint8_t(exact.size())).first;
                result.palette.push_back(rgb);
            }
            result.indices[std::size_t(y) * std::size_t(width) + std::size_t(x)] = it->second;
        }
    if (fits) return result;

    const auto cell_of = [](std::uint32_t rgb) {
        return ((rgb >> 19) & 31) << 10 | ((rgb >> 11) & 31) << 5 | ((rgb >> 3) & 31);
    };
    struct Cell {
        std::uint64_t count = 0, r = 0, g = 0, b = 0;
    };
    std::vector<Cell> cells(1 << 15);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint32_t rgb = pixels[std::size_t(y) * std::size_t(stride) + std::size_t(x)] & 0xFFFFFF;
            Cell& cell = cells[cell_of(rgb)];
            ++cell.count;
            cell.r += (rgb >> 16) & 0xFF;
            cell.g += (rgb >> 8) & 0xFF;
            cell.b += rgb & 0xFF;
        }
    std::vector<std::uint32_t> used;
    for (std::uint32_t c = 0; c < cells.size(); ++c)
        if (cells[c].count > 0) used.push_back(c);
    std::sort(used.begin(), used.end(), [&](auto a, auto b) { return cells[a].count > cells[b].count; });
    const auto mean = [&](std::uint32_t c) {
        const Cell& cell = cells[c];
        return std::uint32_t(cell.r / cell.count) << 16 | std::uint32_t(cell.g / cell.count) << 8 |
               std::uint32_t(cell.b / cell.count);
    };
    // The 40 commonest colours (background, clusters, markers) exactly, and a
    // 6×6×6 cube for the rest, so no colour is more than half a cube step off.
    result.palette.clear();
    for (std::size_t i = 0; i < std::min<std::size_t>(40, used.size()); ++i) result.palette.push_back(mean(used[i]));
    for (std::uint32_t r = 0; r < 6; ++r)
        for (std::uint32_t g = 0; g < 6; ++g)
            for (std::uint32_t b = 0; b < 6; ++b) result.palette.push_back((r * 51) << 16 | (g * 51) << 8 | (b * 51));
    std::vector<std::uint8_t> cell_index(cells.size(), 0);
    for (std::uint32_t c : used) {
        const std::uint32_t colour = mean(c);
        int best = 0;
        long best_distance = -1;
        for (std::size_t p = 0; p < result.palette.size(); ++p) {
            const long dr = long((colour >> 16) & 0xFF) - long((result.palette[p] >> 16) & 0xFF);
            const long dg = long((colour >> 8) & 0xFF) - long((result.palette[p] >> 8) & 0xFF);
            const long db = long(colour & 0xFF) - long(result.palette[p] & 0xFF);
            const long distance = dr * dr + dg * dg + db * db;
            if (best_distance < 0 || distance < best_distance) {
                best_distance = distance;
                best = int(p);
            }
        }
        cell_index[c] = std::uint8_t(best);
    }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            result.indices[std::size_t(y) * std::size_t(width) + std::size_t(x)] =
                cell_index[cell_of(pixels[std::size_t(y) * std::size_t(stride) + std::size_t(x)] & 0xFFFFFF)];
    return result;
}

}  // namespace

std::string gif_lzw_image_data(const std::vector<std::uint8_t>& indices, int min_code_size) {
    const std::uint32_t clear = 1u << min_code_size, end_of_information = clear + 1;
    BitWriter bits;
    std::string out(1, char(min_code_size));
    int code_size = min_code_size + 1;
    std::uint32_t last_code = end_of_information;  // highest code assigned so far
    std::unordered_map<std::uint32_t, std::uint32_t> table;  // (prefix code << 8 | byte) -> code
    table.reserve(8192);
    bits.write(clear, code_size);
    if (indices.empty()) {
        bits.write(end_of_information, code_size);
        return out + bits.finish();
    }
    std::uint32_t current = indices[0];
    for (std::size_t i = 1; i < indices.size(); ++i) {
        const std::uint32_t key = current << 8 | indices[i];
        if (const auto it = table.find(key); it != table.end()) {
            current = it->second;
            continue;
        }
        bits.write(current, code_size);
        table.emplace(key, ++last_code);
        // The decoder, one entry behind, widens its codes at the same point.
        if (last_code >= (1u << code_size) && code_size < 12) ++code_size;
        if (last_code == 4095) {  // table full: start again
            bits.write(clear, code_size);
            table.clear();
            code_size = min_code_size + 1;
            last_code = end_of_information;
        }
        current = indices[i];
    }
    bits.write(current, code_size);
    // The decoder adds an entry for that last code too, and may widen before the end code.
    if (++last_code >= (1u << code_size) && code_size < 12) ++code_size;
    bits.write(end_of_information, code_size);
    return out + bits.finish();
}

GifEncoder::GifEncoder(int width, int height) : width_(width), height_(height) {
    if (width < 1 || height < 1 || width > 65535 || height > 65535) throw std::invalid_argument("GIF size out of range");
    bytes_ = "GIF89a";
    write_word(width);
    write_word(height);
    bytes_ += char(0x00);  // no global colour table: each frame has its own
    bytes_ += char(0x00);  // background colour index
    bytes_ += char(0x00);  // pixel aspect ratio: unspecified
    // NETSCAPE2.0 application extension: loop for ever.
    bytes_ += std::string("\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00", 19);
}

void GifEncoder::write_word(int value) {
    bytes_ += char(value & 0xFF);
    bytes_ += char((value >> 8) & 0xFF);
}

void GifEncoder::add_frame(const std::uint32_t* pixels, int stride, int delay_centiseconds) {
    const Quantised frame = quantise(pixels, width_, height_, stride);
    // Graphic control extension: the delay; no transparency, no disposal.
    bytes_ += std::string("\x21\xF9\x04\x00", 4);
    write_word(std::clamp(delay_centiseconds, 0, 65535));
    bytes_ += std::string("\x00\x00", 2);
    // Image descriptor with a local colour table of 2^(size+1) entries.
    bytes_ += char(0x2C);
    write_word(0);
    write_word(0);
    write_word(width_);
    write_word(height_);
    int table_bits = 1;
    while ((1u << table_bits) < frame.palette.size()) ++table_bits;
    bytes_ += char(0x80 | (table_bits - 1));
    for (std::size_t i = 0; i < (std::size_t(1) << table_bits); ++i) {
        const std::uint32_t rgb = i < frame.palette.size() ? frame.palette[i] : 0;
        bytes_ += char((rgb >> 16) & 0xFF);
        bytes_ += char((rgb >> 8) & 0xFF);
        bytes_ += char(rgb & 0xFF);
    }
    bytes_ += gif_lzw_image_data(frame.indices, std::max(2, table_bits));
    ++frames_;
}

std::string GifEncoder::finish() {
    std::string out = bytes_;
    out += char(0x3B);  // trailer
    return out;
}

}  // namespace kms::ui
