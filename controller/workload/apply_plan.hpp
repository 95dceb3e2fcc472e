#pragma once
// Deciding whether a child needs a write at all. A server-side apply of an unchanged object still bumps its
// resourceVersion whenever the server's copy differs in any detail (a defaulted key, managedFields' time), and every
// such write wakes the workload again through the child's watch: a write loop. So each desired object carries a
// hash of itself, and it is applied only when the live object lacks that hash or differs in a field we set.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace cfo::workload {

/// Annotation holding the hash of what the operator last applied (16 hex digits).
inline constexpr const char* kSpecHashAnnotation = "codeflare.dev/spec-hash";

/// Adds kSpecHashAnnotation to `obj`'s metadata.annotations: a 64-bit FNV-1a hash of the object's JSON without that
/// annotation. Equal objects get equal hashes; a removed field changes the hash. Returns the size in bytes of the
/// compact JSON that was hashed (the object without the annotation), so that callers need not serialise it again;
/// 0 when `obj` has no metadata object (then nothing is stamped).
std::size_t stamp_spec_hash(json::Document& obj);

/// The 64-bit FNV-1a hash of `text`, as 16 lower-case hex digits (the form of kSpecHashAnnotation's value).
std::string content_hash(std::string_view text);

/// True when every field of `desired` is in `live` with the same value (objects: each desired member present and
/// applied; arrays: same length and each element applied; numbers compared by value; strings and booleans equal).
/// With the hash stamped on `desired`, this means the live object is what the last apply left and nobody changed a
/// field we own, so no write is needed.
bool is_applied(const json::Value& desired, const json::Value& live);

}  // namespace cfo::workload
