#include "runtime/packed_object.hpp"

#include <zlib.h>

#include <cstdint>
#include <memory>
#include <new>

#include "runtime/cached_object.hpp"

namespace cfo::runtime {

namespace {
constexpr int kRawDeflate = -15;  // windowBits: a raw stream (no zlib header or checksum), 32 KiB window
constexpr std::size_t kLengthBytes = 4;
// Objects larger than this are not something an apiserver stores (1.5 MiB per object): a blob claiming more is bad.
constexpr std::uint32_t kMaxTextBytes = 64u << 20;
}  // namespace

ObjectPacker::ObjectPacker(std::string dictionary) : dictionary_(std::move(dictionary)) {
  if (dictionary_.size() > kMaxDictionaryBytes) dictionary_.erase(0, dictionary_.size() - kMaxDictionaryBytes);
}

std::string ObjectPacker::pack(const json::Value& object) const {
  const std::string text = json::dump(object);
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, kRawDeflate, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
  std::unique_ptr<z_stream, decltype(&deflateEnd)> guard(&z, &deflateEnd);
  if (!dictionary_.empty())
    deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary_.data()), static_cast<uInt>(dictionary_.size()));
  const auto length = static_cast<std::uint32_t>(text.size());
  std::string blob(kLengthBytes + deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  for (std::size_t i = 0; i < kLengthBytes; ++i) blob[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(blob.data() + kLengthBytes);
  z.avail_out = static_cast<uInt>(blob.size() - kLengthBytes);
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::bad_alloc();  // deflateBound leaves room for everything
  blob.resize(kLengthBytes + z.total_out);
  blob.shrink_to_fit();
  return blob;
}

ObjectPtr ObjectPacker::unpack(std::string_view blob) const {
  if (blob.size() < kLengthBytes) return nullptr;
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(blob[i])) << (8 * i);
  if (length > kMaxTextBytes) return nullptr;
  std::string text(length, '\0');
  z_stream z{};
  if (inflateInit2(&z, kRawDeflate) != Z_OK) return nullptr;
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&z, &inflateEnd);
  if (!dictionary_.empty() && inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary_.data()),
                                                   static_cast<uInt>(dictionary_.size())) != Z_OK)
    return nullptr;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(blob.data() + kLengthBytes));
  z.avail_in = static_cast<uInt>(blob.size() - kLengthBytes);
  z.next_out = reinterpret_cast<Bytef*>(text.data());
  z.avail_out = static_cast<uInt>(text.size());
  if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out != length) return nullptr;
  auto doc = json::parse(text);
  return doc ? compact_object(*doc) : nullptr;
}

}  // namespace cfo::runtime
