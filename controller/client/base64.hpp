#pragma once
// Standard base64 (RFC 4648 section 4): decoding the kubeconfig's `*-data` fields, encoding Secret data and CA bundles.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::client {

/// Decodes standard base64 (RFC 4648 section 4, with `=` padding; line breaks and spaces are ignored) into raw
/// bytes, using OpenSSL's EVP decoder. Errors: characters outside the alphabet, or a truncated final group.
Result<std::string> decode_base64(std::string_view text);

/// Encodes raw bytes as standard base64 with `=` padding and no line breaks (how the apiserver writes `[]byte`
/// fields such as Secret data and a webhook's caBundle), using OpenSSL's EVP encoder.
std::string encode_base64(std::string_view bytes);

}  // namespace cfo::client
