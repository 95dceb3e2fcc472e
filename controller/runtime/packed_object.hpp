#pragma once
// Cached objects held deflated: for caches of many objects that are read by key now and then (a workload's children),
// where a RapidJSON document costs about twice the object's JSON text and the text deflates several times over.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/json.hpp"
#include "runtime/store.hpp"

namespace cfo::runtime {

/// Packs objects into deflated compact JSON (zlib raw deflate, level 6) and back. A preset dictionary (at most
/// kMaxDictionaryBytes of JSON text; the first object a Store packs) lets each further object of the same kind cost
/// little more than what differs from it: a RayCluster of 2.2 KB of JSON packs into about 150 bytes (make
/// bench-reconcile). The dictionary is fixed for the packer's life: a blob unpacks only with the dictionary it was
/// packed with. Thread-safe (const). One zlib stream of each direction is kept for the next call (about 270 KiB for
/// deflate, 40 KiB for inflate): setting one up and tearing it down took about 48 us of the 56 us a RayCluster's pack
/// took.
class ObjectPacker {
 public:
  static constexpr std::size_t kMaxDictionaryBytes = 32u << 10;  // deflate's window

  /// `dictionary`: JSON text (or any bytes) likely to recur in the objects; its last kMaxDictionaryBytes are used.
  explicit ObjectPacker(std::string dictionary = {});
  ~ObjectPacker();
  ObjectPacker(const ObjectPacker&) = delete;
  ObjectPacker& operator=(const ObjectPacker&) = delete;

  /// The blob of `object`: 4 bytes of its JSON text's length (little-endian) and that text deflated. Throws
  /// std::bad_alloc only.
  std::string pack(const json::Value& object) const;
  /// The object of a blob pack() made (a compact copy, as compact_object makes), or nullptr for bytes pack() did not
  /// make (truncated, another dictionary).
  ObjectPtr unpack(std::string_view blob) const;

  const std::string& dictionary() const { return dictionary_; }

 private:
  /// Streams of each direction kept between calls (a store is mostly packed by its informer's thread); a thread that
  /// finds none free makes its own for the call, as before.
  static constexpr std::size_t kKeptStreams = 1;
  struct Streams;  // the kept zlib streams (zlib.h stays out of this header)

  std::string dictionary_;
  std::unique_ptr<Streams> streams_;
};

}  // namespace cfo::runtime
