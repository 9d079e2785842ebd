#pragma once
// Errors the engine reports to users. InputError always names the source
// (file path or generator spec), where in it (line or byte offset), and why.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kms {

// Any error the engine reports to a user (bad option, unavailable back end, ...).
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A bad option or option value: clients print it with a usage hint and exit 2.
class UsageError : public Error {
public:
    using Error::Error;
};

// A stop request ended the work (a step, a load, an initialisation). Whatever the
// throwing object holds is the state before that work began.
class Cancelled : public Error {
public:
    using Error::Error;
};

// Malformed or unusable input data. what() reads "SOURCE:LINE: REASON",
// "SOURCE: byte OFFSET: REASON" or "SOURCE: REASON".
class InputError : public Error {
public:
    enum class Where { Nowhere, Line, Byte };

    static InputError at_line(std::string source, std::uint64_t line, std::string reason) {
        return InputError(std::move(source), Where::Line, line, std::move(reason));
    }
    static InputError at_byte(std::string source, std::uint64_t offset, std::string reason) {
        return InputError(std::move(source), Where::Byte, offset, std::move(reason));
    }
    static InputError whole(std::string source, std::string reason) {
        return InputError(std::move(source), Where::Nowhere, 0, std::move(reason));
    }

    const std::string& source() const noexcept { return source_; }
    Where where() const noexcept { return where_; }
    std::uint64_t position() const noexcept { return position_; }  // line (1-based) or byte offset
    const std::string& reason() const noexcept { return reason_; }

private:
    InputError(std::string source, Where where, std::uint64_t position, std::string reason)
        : Error(format(source, where, position, reason)),
          source_(std::move(source)), where_(where), position_(position), reason_(std::move(reason)) {}

    static std::string format(const std::string& source, Where where, std::uint64_t position,
                              const std::string& reason) {
        switch (where) {
            case Where::Line: return source + ":" + std::to_string(position) + ": " + reason;
            case Where::Byte: return source + ": byte " + std::to_string(position) + ": " + reason;
            case Where::Nowhere: break;
        }
        return source + ": " + reason;
    }

    std::string source_;
    Where where_;
    std::uint64_t position_;
    std::string reason_;
};

}  // namespace kms
