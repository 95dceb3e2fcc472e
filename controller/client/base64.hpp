#pragma once
// Standard base64 decoding of the kubeconfig's `*-data` fields.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::client {

/// Decodes standard base64 (RFC 4648 section 4, with `=` padding; line breaks and spaces are ignored) into raw
/// bytes, using OpenSSL's EVP decoder. Errors: characters outside the alphabet, or a truncated final group.
Result<std::string> decode_base64(std::string_view text);

}  // namespace cfo::client
