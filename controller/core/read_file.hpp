#pragma once
// Reading a whole file with a size limit (the content of special files such as /dev/zero has no end).
#include <cstddef>
#include <string>

#include "core/error.hpp"

namespace cfo {

/// The whole content of the file at `path`, as bytes, when it has at most `max_bytes` bytes. Reads at most
/// max_bytes + 1 bytes whatever the file is (a FIFO, /dev/zero), so memory stays bounded.
/// Errors: "cannot read <path>: <reason>" (missing, a directory, unreadable), and
/// "cannot read <path>: larger than <limit> (the limit for this file)" with the limit in bytes or MiB.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes);

/// `bytes` for messages: "1 MiB" for whole MiB, else "<n> bytes".
std::string size_text(std::size_t bytes);

}  // namespace cfo
