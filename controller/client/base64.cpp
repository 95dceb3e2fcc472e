#include "client/base64.hpp"

#include <openssl/evp.h>

#include <memory>
#include <vector>

namespace cfo::client {

Result<std::string> decode_base64(std::string_view text) {
  std::string compact;
  compact.reserve(text.size());
  for (char c : text)
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') compact += c;
  if (compact.empty()) return std::string{};
  if (compact.size() % 4 != 0) return fail("invalid base64: length is not a multiple of 4");

  std::unique_ptr<EVP_ENCODE_CTX, decltype(&EVP_ENCODE_CTX_free)> ctx(EVP_ENCODE_CTX_new(), EVP_ENCODE_CTX_free);
  if (!ctx) return fail("invalid base64: cannot allocate a decoder");
  EVP_DecodeInit(ctx.get());
  std::vector<unsigned char> out(compact.size() / 4 * 3 + 3);
  int written = 0;
  if (EVP_DecodeUpdate(ctx.get(), out.data(), &written, reinterpret_cast<const unsigned char*>(compact.data()),
                       static_cast<int>(compact.size())) < 0)
    return fail("invalid base64: a character is outside the alphabet or padding is misplaced");
  int tail = 0;
  if (EVP_DecodeFinal(ctx.get(), out.data() + written, &tail) < 0) return fail("invalid base64: truncated input");
  return std::string(reinterpret_cast<const char*>(out.data()), static_cast<std::size_t>(written + tail));
}

std::string encode_base64(std::string_view bytes) {
  if (bytes.empty()) return {};
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

}  // namespace cfo::client
