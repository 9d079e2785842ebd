#include "export/mp4_encoder.hpp"

#include <vector>

#include "kms/error.hpp"

#ifdef KMS_HAVE_FFMPEG
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <cstring>
#endif

namespace kms::ui {

#ifndef KMS_HAVE_FFMPEG

bool mp4_export_available(std::string* reason) {
    if (reason)
        *reason = "MP4 export needs FFmpeg's libraries, which this build of kmeans-studio was made without: install "
                  "libavcodec-dev libavformat-dev libavutil-dev libswscale-dev (scripts/install-deps.sh does) and "
                  "build again, or export a .gif";
    return false;
}

struct Mp4Encoder::State {};

Mp4Encoder::Mp4Encoder(int width, int height) : width_(width), height_(height) {
    std::string reason;
    mp4_export_available(&reason);
    throw Error(reason);
}
Mp4Encoder::~Mp4Encoder() = default;
void Mp4Encoder::add_frame(const std::uint32_t*, int, int) {}
std::string Mp4Encoder::finish() { return {}; }

#else

namespace {

std::string av_error_text(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

void check(int code, const char* what) {
    if (code < 0) throw Error(std::string("MP4 encoding failed: ") + what + ": " + av_error_text(code));
}

// libx264 (Debian's libavcodec59 always has it); an OpenH264 build as a fallback.
const AVCodec* h264_encoder() {
    if (const AVCodec* codec = avcodec_find_encoder_by_name("libx264")) return codec;
    return avcodec_find_encoder_by_name("libopenh264");
}

// The muxer writes into memory: the file is then written all or none by the
// studio's atomic writer, like every other output.
struct MemoryFile {
    std::string bytes;
    std::size_t position = 0;
};

#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WriteBuffer = const std::uint8_t*;
#else
using WriteBuffer = std::uint8_t*;
#endif

int memory_write(void* opaque, WriteBuffer buffer, int size) {
    auto& file = *static_cast<MemoryFile*>(opaque);
    if (file.position + std::size_t(size) > file.bytes.size()) file.bytes.resize(file.position + std::size_t(size));
    std::memcpy(file.bytes.data() + file.position, buffer, std::size_t(size));
    file.position += std::size_t(size);
    return size;
}

// The faststart pass reads the file back while writing it, as it would a file on disk.
struct MemoryReader {
    const MemoryFile* file;
    std::size_t position = 0;
};

int memory_read(void* opaque, std::uint8_t* buffer, int size) {
    auto& reader = *static_cast<MemoryReader*>(opaque);
    const std::size_t end = reader.file->bytes.size();
    if (reader.position >= end) return AVERROR_EOF;
    const std::size_t count = std::min(end - reader.position, std::size_t(size));
    std::memcpy(buffer, reader.file->bytes.data() + reader.position, count);
    reader.position += count;
    return int(count);
}

std::int64_t seek_in(std::size_t& position, std::size_t size, std::int64_t offset, int whence) {
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return std::int64_t(size);
    std::int64_t target = offset;
    if (whence == SEEK_CUR) target += std::int64_t(position);
    else if (whence == SEEK_END) target += std::int64_t(size);
    else if (whence != SEEK_SET) return AVERROR(EINVAL);
    if (target < 0) return AVERROR(EINVAL);
    position = std::size_t(target);
    return target;
}

std::int64_t memory_write_seek(void* opaque, std::int64_t offset, int whence) {
    auto& file = *static_cast<MemoryFile*>(opaque);
    return seek_in(file.position, file.bytes.size(), offset, whence);
}

std::int64_t memory_read_seek(void* opaque, std::int64_t offset, int whence) {
    auto& reader = *static_cast<MemoryReader*>(opaque);
    return seek_in(reader.position, reader.file->bytes.size(), offset, whence);
}

constexpr int kIoBufferSize = 1 << 16;

// The muxer's second look at its own output (movflags=faststart).
int open_for_faststart(AVFormatContext* format, AVIOContext** io, const char*, int flags, AVDictionary**) {
    if (flags & AVIO_FLAG_WRITE) return AVERROR(EPERM);
    auto* reader = new MemoryReader{static_cast<const MemoryFile*>(format->opaque)};
    auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferSize));
    *io = buffer ? avio_alloc_context(buffer, kIoBufferSize, 0, reader, memory_read, nullptr, memory_read_seek) : nullptr;
    if (!*io) {
        av_free(buffer);
        delete reader;
        return AVERROR(ENOMEM);
    }
    return 0;
}

int close_faststart_reader(AVFormatContext*, AVIOContext* io) {
    delete static_cast<MemoryReader*>(io->opaque);
    av_freep(&io->buffer);
    avio_context_free(&io);
    return 0;
}

}  // namespace

bool mp4_export_available(std::string* reason) {
    if (h264_encoder()) return true;
    if (reason)
        *reason = "MP4 export needs an H.264 encoder, and this system's libavcodec has none (Debian's libavcodec59 "
                  "comes with libx264): install libavcodec59 from Debian, or export a .gif";
    return false;
}

struct Mp4Encoder::State {
    MemoryFile file;
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVStream* stream = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    SwsContext* convert = nullptr;
    std::vector<std::uint32_t> padded;
    std::vector<int> durations;  // of each frame, by its presentation time stamp's order
    std::int64_t next_pts = 0;

    ~State() {
        sws_freeContext(convert);
        av_packet_free(&packet);
        av_frame_free(&frame);
        avcodec_free_context(&codec);
        if (format) {
            if (format->pb) {
                av_freep(&format->pb->buffer);
                avio_context_free(&format->pb);
            }
            avformat_free_context(format);
        }
    }

    // Sends `input` (nullptr: flush) and muxes every packet the encoder hands back.
    void encode(const AVFrame* input) {
        check(avcodec_send_frame(codec, input), "sending a frame to the encoder");
        for (;;) {
            const int received = avcodec_receive_packet(codec, packet);
            if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
            check(received, "encoding a frame");
            // No B-frames: packets come in presentation order, pts = the frame's start in 1/100 s.
            packet->duration = duration_at(packet->pts);
            av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            check(av_interleaved_write_frame(format, packet), "writing a frame");
        }
    }

    int duration_at(std::int64_t pts) const {
        std::int64_t start = 0;
        for (const int duration : durations) {
            if (start == pts) return duration;
            start += duration;
        }
        return durations.empty() ? 1 : durations.back();
    }
};

Mp4Encoder::Mp4Encoder(int width, int height) : width_(width), height_(height), state_(std::make_unique<State>()) {
    const AVCodec* encoder = h264_encoder();
    if (!encoder) {
        std::string reason;
        mp4_export_available(&reason);
        throw Error(reason);
    }
    if (width < 16 || height < 16 || width > 8192 || height > 8192)
        throw Error("MP4 frames of " + std::to_string(width) + "x" + std::to_string(height) +
                    " pixels: choose 16x16 to 8192x8192");
    av_log_set_level(AV_LOG_ERROR);  // x264's banner and statistics are not for the studio's users
    State& s = *state_;
    check(avformat_alloc_output_context2(&s.format, nullptr, "mp4", nullptr), "setting up the MP4 container");
    s.stream = avformat_new_stream(s.format, nullptr);
    s.codec = avcodec_alloc_context3(encoder);
    s.frame = av_frame_alloc();
    s.packet = av_packet_alloc();
    if (!s.stream || !s.codec || !s.frame || !s.packet) throw Error("MP4 encoding failed: out of memory");

    AVCodecContext& codec = *s.codec;
    codec.width = encoded_width();
    codec.height = encoded_height();
    codec.pix_fmt = AV_PIX_FMT_YUV420P;  // 4:2:0, High profile: what browsers and PowerPoint decode
    codec.time_base = AVRational{1, 100};  // the GIF's centiseconds
    codec.framerate = AVRational{100, 70};  // nominal: one (half-)step every 0.7 s
    codec.gop_size = 10;
    codec.max_b_frames = 0;
    codec.color_range = AVCOL_RANGE_MPEG;
    codec.colorspace = AVCOL_SPC_BT709;
    codec.color_primaries = AVCOL_PRI_BT709;
    codec.color_trc = AVCOL_TRC_BT709;
    if (s.format->oformat->flags & AVFMT_GLOBALHEADER) codec.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (std::string_view(encoder->name) == "libx264") {
        av_opt_set(codec.priv_data, "preset", "medium", 0);
        av_opt_set(codec.priv_data, "tune", "animation", 0);  // flat colours, sharp edges
        av_opt_set(codec.priv_data, "crf", "18", 0);
        av_opt_set(codec.priv_data, "profile", "high", 0);
    } else {
        codec.bit_rate = std::int64_t(codec.width) * codec.height * 4;
    }
    check(avcodec_open2(s.codec, encoder, nullptr), "opening the H.264 encoder");
    check(avcodec_parameters_from_context(s.stream->codecpar, s.codec), "describing the video stream");
    s.stream->time_base = codec.time_base;

    auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferSize));
    s.format->pb = buffer ? avio_alloc_context(buffer, kIoBufferSize, 1, &s.file, nullptr, memory_write, memory_write_seek)
                          : nullptr;
    if (!s.format->pb) {
        av_free(buffer);
        throw Error("MP4 encoding failed: out of memory");
    }
    s.format->flags |= AVFMT_FLAG_CUSTOM_IO;
    s.format->opaque = &s.file;
    s.format->io_open = open_for_faststart;
    s.format->io_close2 = close_faststart_reader;
    AVDictionary* options = nullptr;
    av_dict_set(&options, "movflags", "+faststart", 0);
    const int written = avformat_write_header(s.format, &options);
    av_dict_free(&options);
    check(written, "writing the MP4 header");

    s.frame->format = codec.pix_fmt;
    s.frame->width = codec.width;
    s.frame->height = codec.height;
    check(av_frame_get_buffer(s.frame, 0), "allocating a frame");
    s.convert = sws_getContext(codec.width, codec.height, AV_PIX_FMT_RGB32, codec.width, codec.height, codec.pix_fmt,
                               SWS_BILINEAR | SWS_ACCURATE_RND, nullptr, nullptr, nullptr);
    if (!s.convert) throw Error("MP4 encoding failed: no RGB to YUV conversion");
    // Full-range RGB in, limited-range BT.709 out, as tagged above.
    sws_setColorspaceDetails(s.convert, sws_getCoefficients(SWS_CS_ITU709), 1, sws_getCoefficients(SWS_CS_ITU709), 0,
                             0, 1 << 16, 1 << 16);
    s.padded.resize(std::size_t(codec.width) * std::size_t(codec.height));
}

Mp4Encoder::~Mp4Encoder() = default;

void Mp4Encoder::add_frame(const std::uint32_t* pixels, int stride, int duration_centiseconds) {
    State& s = *state_;
    const int w = encoded_width(), h = encoded_height();
    // Copy into the even-sized frame; an added column / row repeats the edge (the view's background).
    for (int y = 0; y < h; ++y) {
        const std::uint32_t* row = pixels + std::size_t(std::min(y, height_ - 1)) * std::size_t(stride);
        std::uint32_t* out = s.padded.data() + std::size_t(y) * std::size_t(w);
        std::copy(row, row + width_, out);
        if (w > width_) out[width_] = row[width_ - 1];
    }
    check(av_frame_make_writable(s.frame), "preparing a frame");
    const std::uint8_t* source[1] = {reinterpret_cast<const std::uint8_t*>(s.padded.data())};
    const int source_stride[1] = {w * 4};
    sws_scale(s.convert, source, source_stride, 0, h, s.frame->data, s.frame->linesize);
    s.frame->pts = s.next_pts;
    s.durations.push_back(std::max(1, duration_centiseconds));
    s.next_pts += s.durations.back();
    s.encode(s.frame);
    ++frames_;
}

std::string Mp4Encoder::finish() {
    State& s = *state_;
    if (frames_ == 0) throw Error("MP4 encoding failed: no frames");
    s.encode(nullptr);
    check(av_write_trailer(s.format), "writing the MP4 index");
    avio_flush(s.format->pb);
    return std::move(s.file.bytes);
}

#endif

}  // namespace kms::ui
