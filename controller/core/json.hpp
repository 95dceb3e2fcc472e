#pragma once
// RapidJSON helpers: the project's in-memory form of every Kubernetes object is a rapidjson::Document.
#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::json {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

/// Most levels of nested objects and arrays json::parse accepts (Go's encoding/json allows 10000; the objects of the
/// apiserver nest a few dozen levels).
inline constexpr int kMaxJsonDepth = 1000;

/// Parses JSON text (UTF-8, any size the caller allows; nested at most kMaxJsonDepth levels). Numbers keep the
/// apiserver's JSON semantics: an integer (no fraction or exponent) that fits int64 is an int64, a larger non-negative
/// one up to 2^64-1 a uint64; any other number is the correctly rounded double (std::from_chars; one below the smallest
/// denormal reads as 0). Errors name the byte offset and the reason (syntax, a number too large for a double, too
/// deep). Safe for any input: no recursion, exact number conversion.
Result<Document> parse(std::string_view text);

/// Serialises compactly (no whitespace).
std::string dump(const Value& v);

/// The pool of a compact document: one block sized to its value.
using Pool = rapidjson::MemoryPoolAllocator<>;

/// A copy of `v` in a document whose memory is one block sized to it (`pool`, set here; it must outlive the returned
/// document and stay where it is: keep the two together, pool first). A RapidJSON document otherwise reserves a
/// 64 KiB block of which a small object uses a few KiB: this is for what is held long, e.g. every input document of
/// `validate`, whose RSS was 45 KB per small workload. The document may still grow (its pool adds blocks as needed).
Document compact_copy(const Value& v, std::unique_ptr<Pool>& pool);

/// Serialises with two-space indentation.
std::string dump_pretty(const Value& v);

/// Deep copy into a new document.
Document clone(const Value& v);

/// Member lookup that tolerates non-objects: nullptr when `obj` is not an object or has no such member.
const Value* find(const Value& obj, std::string_view key);
Value* find(Value& obj, std::string_view key);

/// Walks a dotted path of member names ("metadata.name"); nullptr when any step is missing.
const Value* find_path(const Value& obj, std::string_view dotted);

/// The string at a dotted path ("metadata.labels"), or "" when a step is missing or the value is not a string.
std::string string_at(const Value& obj, std::string_view dotted);

/// String member or std::nullopt (also when the member is not a string).
std::optional<std::string> get_string(const Value& obj, std::string_view key);

/// Integer member or std::nullopt.
std::optional<int64_t> get_int(const Value& obj, std::string_view key);

/// Bool member or std::nullopt.
std::optional<bool> get_bool(const Value& obj, std::string_view key);

/// A string Value that owns a copy of `s`.
Value str(std::string_view s, Allocator& a);

/// Sets (adds or replaces) member `key` of object `obj`.
void set(Value& obj, std::string_view key, Value v, Allocator& a);

/// Converts a JSON Pointer ("/spec/workerGroupSpecs/0/template") to a field path
/// ("spec.workerGroupSpecs[0].template"); numeric segments become indices.
std::string pointer_to_path(std::string_view pointer);

/// Name of a JSON type, for messages: "string", "integer", "number", "boolean", "object", "array", "null".
const char* type_name(const Value& v);

}  // namespace cfo::json
