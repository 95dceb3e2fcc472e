#pragma once
// Reading small credential files (kubeconfig, tokens, certificates), with size limits.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::client {

/// Most bytes of a file named in a kubeconfig (certificate-authority, client-certificate, client-key, tokenFile)
/// or of an in-cluster service-account file (token, ca.crt, namespace): 1 MiB, far above any real certificate
/// bundle or token, so that `certificate-authority: /dev/zero` is an error instead of exhausting memory.
inline constexpr std::size_t kMaxCredentialFileBytes = 1u << 20;

/// Most bytes of a kubeconfig file itself: 16 MiB.
inline constexpr std::size_t kMaxKubeconfigBytes = 16u << 20;

/// The whole content of the file at `path`, at most `max_bytes` bytes.
/// Errors: "cannot read <path>: <reason>", or "cannot read <path>: larger than 1 MiB (the limit for this file)".
Result<std::string> read_file_text(const std::string& path, std::size_t max_bytes = kMaxCredentialFileBytes);

/// `text` without leading and trailing whitespace (spaces, tabs, CR, LF), as client-go trims token files.
std::string trim_space(std::string_view text);

}  // namespace cfo::client
