#pragma once
// Reading small credential files (kubeconfig, tokens, certificates).
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::client {

/// The whole content of the file at `path`. Error: "cannot read <path>: <reason>".
Result<std::string> read_file_text(const std::string& path);

/// `text` without leading and trailing whitespace (spaces, tabs, CR, LF), as client-go trims token files.
std::string trim_space(std::string_view text);

}  // namespace cfo::client
