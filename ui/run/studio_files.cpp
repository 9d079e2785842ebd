#include "run/studio_files.hpp"

#include <filesystem>

#include "kms/error.hpp"
#include "kms/io.hpp"

namespace kms::ui {

namespace {
void check_destination(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) throw Error("cannot write an unnamed file");
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    if (!error && fs::exists(status)) {
        if (fs::is_symlink(status)) throw Error("cannot write " + path + ": it is a symbolic link (not followed)");
        if (!fs::is_regular_file(status))
            throw Error("cannot write " + path + ": it is not a regular file (a device, FIFO or folder)");
    }
}
}  // namespace

void write_studio_file(const std::string& path, std::string_view contents) {
    check_destination(path);
    write_files_atomically({{path, std::string(contents)}});
}

void write_studio_files(const std::vector<std::pair<std::string, std::string>>& path_and_contents) {
    for (const auto& [path, contents] : path_and_contents) check_destination(path);
    write_files_atomically(path_and_contents);
}

}  // namespace kms::ui
