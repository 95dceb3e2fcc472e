#include "runtime/packed_object.hpp"

#include <zlib.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "runtime/cached_object.hpp"

namespace cfo::runtime {

namespace {
constexpr int kRawDeflate = -15;  // windowBits: a raw stream (no zlib header or checksum), 32 KiB window
constexpr std::size_t kLengthBytes = 4;
// Objects larger than this are not something an apiserver stores (1.5 MiB per object): a blob claiming more is bad.
constexpr std::uint32_t kMaxTextBytes = 64u << 20;
}  // namespace

namespace {
struct DeflateEnd {
  void operator()(z_stream* z) const {
    deflateEnd(z);
    delete z;
  }
};
struct InflateEnd {
  void operator()(z_stream* z) const {
    inflateEnd(z);
    delete z;
  }
};
using DeflateStream = std::unique_ptr<z_stream, DeflateEnd>;
using InflateStream = std::unique_ptr<z_stream, InflateEnd>;

// A kept stream of `pool` (under `mu`), or nullptr when none is free.
template <class Stream>
Stream take(std::mutex& mu, std::vector<Stream>& pool) {
  std::lock_guard lock(mu);
  if (pool.empty()) return nullptr;
  Stream s = std::move(pool.back());
  pool.pop_back();
  return s;
}

// Keeps `s` for the next call, unless `keep` streams are kept already (then it is freed).
template <class Stream>
void give_back(std::mutex& mu, std::vector<Stream>& pool, Stream s, std::size_t keep) {
  std::lock_guard lock(mu);
  if (pool.size() < keep) pool.push_back(std::move(s));
}
}  // namespace

struct ObjectPacker::Streams {
  std::mutex mu;
  std::vector<DeflateStream> deflaters;
  std::vector<InflateStream> inflaters;
};

ObjectPacker::ObjectPacker(std::string dictionary)
    : dictionary_(std::move(dictionary)), streams_(std::make_unique<Streams>()) {
  if (dictionary_.size() > kMaxDictionaryBytes) dictionary_.erase(0, dictionary_.size() - kMaxDictionaryBytes);
}

ObjectPacker::~ObjectPacker() = default;

std::string ObjectPacker::pack(const json::Value& object) const {
  const std::string text = json::dump(object);
  DeflateStream kept = take(streams_->mu, streams_->deflaters);
  if (kept) {
    if (deflateReset(kept.get()) != Z_OK) throw std::bad_alloc();
  } else {
    kept.reset(new z_stream{});
    if (deflateInit2(kept.get(), 6, Z_DEFLATED, kRawDeflate, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      delete kept.release();  // deflateEnd is for an initialised stream only
      throw std::bad_alloc();
    }
  }
  z_stream& z = *kept;
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
  give_back(streams_->mu, streams_->deflaters, std::move(kept), kKeptStreams);
  return blob;
}

ObjectPtr ObjectPacker::unpack(std::string_view blob) const {
  if (blob.size() < kLengthBytes) return nullptr;
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(blob[i])) << (8 * i);
  if (length > kMaxTextBytes) return nullptr;
  std::string text(length, '\0');
  InflateStream kept = take(streams_->mu, streams_->inflaters);
  if (kept) {
    if (inflateReset(kept.get()) != Z_OK) return nullptr;
  } else {
    kept.reset(new z_stream{});
    if (inflateInit2(kept.get(), kRawDeflate) != Z_OK) {
      delete kept.release();  // inflateEnd is for an initialised stream only
      return nullptr;
    }
  }
  z_stream& z = *kept;
  if (!dictionary_.empty() && inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary_.data()),
                                                   static_cast<uInt>(dictionary_.size())) != Z_OK)
    return nullptr;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(blob.data() + kLengthBytes));
  z.avail_in = static_cast<uInt>(blob.size() - kLengthBytes);
  z.next_out = reinterpret_cast<Bytef*>(text.data());
  z.avail_out = static_cast<uInt>(text.size());
  const bool whole = inflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out == length;
  give_back(streams_->mu, streams_->inflaters, std::move(kept), kKeptStreams);
  if (!whole) return nullptr;
  auto doc = json::parse(text);
  return doc ? compact_object(*doc) : nullptr;
}

}  // namespace cfo::runtime
