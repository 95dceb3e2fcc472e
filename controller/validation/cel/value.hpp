#pragma once
// Runtime values of the CEL evaluator. A value read from the object under validation is a view of the RapidJSON
// value (and of its schema node, when known): reading a field, an element or a key copies no data. Only values that
// an expression builds (a list from map()/filter(), a concatenated string, a conversion) and error messages own
// memory, through one shared owner.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.hpp"

namespace cfo::validation::cel {

/// The CEL types the evaluator knows. `Error` is CEL's error value: it flows through expressions and is absorbed
/// only where CEL absorbs it (`&&`, `||`, `all`, `exists`).
enum class Type : std::uint8_t { Null, Bool, Int, Uint, Double, String, List, Map, Error };

/// CEL's name of a type, for messages ("int", "string", "map", ...).
const char* type_name(Type t);

class Value;
using ValueList = std::vector<Value>;
using MapEntries = std::vector<std::pair<Value, Value>>;

/// One CEL value. Cheap to copy: scalars and views are copied, owned data is shared.
class Value {
 public:
  /// null.
  Value() : i_(0) {}

  static Value null() { return Value(); }
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value uinteger(std::uint64_t u);
  static Value dbl(double d);
  /// A string that views `s`; the caller keeps the characters alive for as long as the value is used.
  static Value borrowed_string(std::string_view s);
  /// A string that owns its characters.
  static Value owned_string(std::string s);
  static Value list(std::shared_ptr<const ValueList> items);
  static Value map(std::shared_ptr<const MapEntries> entries);
  /// An error value with a one-line message ("no such key: name").
  static Value error(std::string message);
  /// An error that means "this evaluator cannot decide", not "the object is wrong" (e.g. an input too long for
  /// std::regex). A rule whose result is such an error is skipped instead of reported.
  static Value unsupported(std::string message);

  /// A view of a JSON value. `schema` is the structural-schema node describing it, or nullptr; it decides that a
  /// JSON integer of a `type: number` field is a double, and how lists compare (`x-kubernetes-list-type`).
  static Value from_json(const json::Value& v, const json::Value* schema);

  Type type() const { return type_; }
  bool is_error() const { return type_ == Type::Error; }
  bool is_unsupported() const { return type_ == Type::Error && unsupported_; }

  bool as_bool() const { return b_; }
  std::int64_t as_int() const { return i_; }
  std::uint64_t as_uint() const { return u_; }
  double as_double() const { return d_; }
  /// The characters of a String, or the message of an Error.
  std::string_view as_string() const { return s_; }

  /// The JSON value behind a List or Map read from the object, else nullptr.
  const json::Value* json() const { return json_; }
  /// The schema node of a value read from the object, else nullptr.
  const json::Value* schema() const { return schema_; }

  /// Number of elements of a List or entries of a Map (0 for other types).
  std::size_t size() const;
  /// Element `i` of a List (i < size()).
  Value list_at(std::size_t i) const { return list_at(i, items_schema_of_this()); }
  /// list_at() with the element schema given (element_schema()), for loops over many elements.
  Value list_at(std::size_t i, const json::Value* element_schema) const;
  /// The schema of the elements of a List read from the object, or nullptr.
  const json::Value* element_schema() const { return items_schema_of_this(); }
  /// Key `i` of a Map, in the map's order (i < size()); the keys of a JSON object are strings.
  Value map_key_at(std::size_t i) const;
  /// Looks up `key` in a Map. Returns false when the key is absent (or cannot be a key of this map).
  bool map_find(const Value& key, Value& out) const;
  /// Looks up a string key (a field) in a Map; false when absent.
  bool map_field(std::string_view name, Value& out) const;
  /// True when a Map has the string key `name` (what has() asks; reads no value).
  bool has_field(std::string_view name) const;

  /// The x-kubernetes-list-type of a List read from the object ("atomic" when unknown).
  std::string_view list_type() const;

 private:
  const json::Value* items_schema_of_this() const;

  Type type_ = Type::Null;
  bool unsupported_ = false;
  union {
    bool b_;
    std::int64_t i_;
    std::uint64_t u_;
    double d_;
  };
  std::string_view s_;
  const json::Value* json_ = nullptr;
  const json::Value* schema_ = nullptr;
  std::shared_ptr<const void> owner_;  // std::string, ValueList or MapEntries when the value owns data
};

// ---- schema helpers (structural schemas as RapidJSON values) ------------------------------------------------

/// The schema of property `name` of an object schema: `properties[name]`, else an object `additionalProperties`,
/// else nullptr.
const json::Value* child_schema(const json::Value* schema, std::string_view name);
/// The schema of the items of an array schema, or nullptr.
const json::Value* items_schema(const json::Value* schema);

}  // namespace cfo::validation::cel
