#pragma once
// Every file the studio writes goes through here: written whole to a temporary
// and renamed (kms::write_files_atomically), and never through a symbolic link
// or onto a device, FIFO or folder (an existing destination must be a regular file).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kms::ui {

// Throws kms::Error "cannot write PATH: REASON".
void write_studio_file(const std::string& path, std::string_view contents);
// Several files, all or none (each checked as above before anything is written).
void write_studio_files(const std::vector<std::pair<std::string, std::string>>& path_and_contents);

}  // namespace kms::ui
