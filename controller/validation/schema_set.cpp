#include "validation/schema_set.hpp"

#include <mutex>

#include <rapidjson/pointer.h>

#include <rapidjson/stringbuffer.h>

#include "validation/schema_regex.hpp"  // <rapidjson/schema.h> with RE2 checking every `pattern`

#include <algorithm>
#include <iterator>
#include <atomic>
#include <cstring>
#include <deque>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "core/json_numbers.hpp"
#include "core/read_file.hpp"
#include "core/yaml.hpp"
#include "validation/regex.hpp"
#include "validation/schema_cel.hpp"
#include "validation/schema_defaults.hpp"
#include "validation/schema_formats.hpp"
#include "validation/schema_nulls.hpp"
#include "validation/schema_plan.hpp"
#include "validation/schema_walk.hpp"

// How Kubernetes structural schemas are mapped onto RapidJSON's draft-04 validator:
//
// * Each served version's openAPIV3Schema is copied once and preprocessed (`prepare_schema`):
//   - `nullable: true` becomes `type: [T, "null"]` (and null joins an `enum`), since draft-04 has no nullable;
//   - `x-kubernetes-int-or-string: true` without `anyOf` gets `anyOf: [{type: integer}, {type: string}]`;
//   - a property listed in `required` that has a `default` is dropped from `required`: the apiserver applies
//     defaults before it validates;
//   - `description` is removed; `nullable` and `x-kubernetes-validations` stay for the plan (below);
//   - every `pattern` is compiled with RE2 (Go regexp syntax, as kube-apiserver): one that RE2 refuses makes add_crd
//     fail, naming the CRD, the schema location and RE2's reason (the apiserver refuses such a CRD too).
//   The result is compiled once into rapidjson::SchemaDocuments, from a copy without `nullable` and
//   `x-kubernetes-validations` in which identical sub-schemas are stored once, each compiled as a document of its
//   own and referenced with a remote `$ref` (`SchemaSharer`, `SharedSchemas`; RapidJSON's compile time grows with the
//   square of the number of schema objects in one document, and the KubeRay CRDs repeat whole PodSpecs).
// * From the prepared schema a plan is built once (schema_plan.hpp): the `default`s and the compiled CEL rules
//   (validation/cel/), on a tree pruned to the branches that hold them.
// * validate(): as kube-apiserver prepares a custom resource, `status` is dropped when the version has the status
//   subresource, null properties that are neither nullable nor defaulted are removed (schema_nulls.hpp) and the
//   defaults are applied (schema_defaults.hpp), each to a copy of the object made only when needed; every check
//   below runs on the result. A finding inside a defaulted value becomes a Warning naming the default.
// * RapidJSON stops at the first error; that error becomes one FieldError ("schema:<keyword>"). It checks
//   `pattern`s with RE2 (schema_regex.hpp): linear time, no recursion, whatever the string's length.
// * One walk (schema_walk.hpp, along a plan of the schema made once) then goes over the object and reports what
// draft-04
//   cannot express: every unknown field ("schema:unknownField", which the apiserver would prune silently), every
//   duplicate entry of an `x-kubernetes-list-type: map` / `set` list ("schema:duplicate") and every value that
//   breaks its `format` (date-time, int32, int64: "schema:format"; schema_formats.hpp).
// * Last, the CEL rules run over the defaulted copy (schema_cel.hpp), with the old object on updates, unless a
//   finding so far is one that makes kube-apiserver skip them (`blocks_cel`).

namespace cfo::validation {

namespace {

using json::Value;
using SchemaDocument = rapidjson::SchemaDocument;
using SchemaValidator = rapidjson::SchemaValidator;

constexpr int kMaxDocumentDepth = 300;

std::string dq(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string string_of(const Value& v) { return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : ""; }

bool is_true(const Value& obj, std::string_view key) {
  const Value* v = json::find(obj, key);
  return v && v->IsBool() && v->GetBool();
}

using structural::preview;

int depth_of(const Value& v, int limit) {
  if (limit <= 0) return 1;
  int best = 0;
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) best = std::max(best, depth_of(it->value, limit - 1));
  } else if (v.IsArray()) {
    for (auto it = v.Begin(); it != v.End(); ++it) best = std::max(best, depth_of(*it, limit - 1));
  }
  return best + 1;
}

// ---- schema preprocessing -------------------------------------------------------------------------------

struct PrepareContext {
  json::Allocator& alloc;
  std::set<std::string> patterns_ok;  // CRDs repeat their patterns: each is compiled once
};

Result<void> prepare_schema(Value& node, const std::string& where, PrepareContext& ctx);

Result<void> prepare_list(Value& node, const std::string& where, PrepareContext& ctx) {
  if (!node.IsArray()) return fail(where + ": expected a list of schemas");
  for (rapidjson::SizeType i = 0; i < node.Size(); ++i)
    if (auto r = prepare_schema(node[i], index_path(where, i), ctx); !r) return r;
  return {};
}

Result<void> prepare_schema(Value& node, const std::string& where, PrepareContext& ctx) {
  if (!node.IsObject()) return fail(where + ": a schema must be an object, found " + json::type_name(node));
  node.RemoveMember("description");
  // Draft-04 keywords that kube-apiserver refuses in a CRD schema. RapidJSON would honour them: `$ref` cycles made it
  // recurse without end, and a `$ref` would collide with the ones SchemaSharer adds.
  for (const char* k : {"$ref", "definitions", "$schema", "id", "patternProperties", "dependencies", "additionalItems"})
    if (json::find(node, k))
      return fail(where + "." + k + ": not allowed in a CustomResourceDefinition schema (kube-apiserver refuses it)");

  Value* type = json::find(node, "type");
  if (type && !type->IsString()) return fail(where + ".type: must be a string");
  // apiextensions-apiserver ValidateCustomResourceDefinitionOpenAPISchema: the OpenAPI types, or none (with
  // x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields).
  if (type) {
    const std::string t = string_of(*type);
    static constexpr std::string_view kTypes[] = {"", "array", "boolean", "integer", "number", "object", "string"};
    if (std::find(std::begin(kTypes), std::end(kTypes), t) == std::end(kTypes))
      return fail(where + ".type: " + dq(t) +
                  " is not a type kube-apiserver accepts (array, boolean, integer, number, object or string)");
  }

  if (Value* props = json::find(node, "properties")) {
    if (!props->IsObject()) return fail(where + ".properties: must be a map of schemas");
    for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it)
      if (auto r = prepare_schema(it->value, key_path(where + ".properties", string_of(it->name)), ctx); !r) return r;
  }
  if (Value* add = json::find(node, "additionalProperties")) {
    if (add->IsObject()) {
      if (auto r = prepare_schema(*add, where + ".additionalProperties", ctx); !r) return r;
    } else if (!add->IsBool()) {
      return fail(where + ".additionalProperties: must be a schema or a boolean");
    }
  }
  if (Value* items = json::find(node, "items")) {
    if (items->IsObject()) {
      if (auto r = prepare_schema(*items, where + ".items", ctx); !r) return r;
    } else if (auto r = prepare_list(*items, where + ".items", ctx); !r) {
      return r;
    }
  }
  for (const char* k : {"allOf", "anyOf", "oneOf"})
    if (Value* list = json::find(node, k))
      if (auto r = prepare_list(*list, where + "." + k, ctx); !r) return r;
  if (Value* n = json::find(node, "not"))
    if (auto r = prepare_schema(*n, where + ".not", ctx); !r) return r;

  if (Value* e = json::find(node, "enum"); e && !e->IsArray()) return fail(where + ".enum: must be a list");
  if (Value* keys = json::find(node, "x-kubernetes-list-map-keys")) {
    if (!keys->IsArray()) return fail(where + ".x-kubernetes-list-map-keys: must be a list of field names");
    for (auto it = keys->Begin(); it != keys->End(); ++it)
      if (!it->IsString()) return fail(where + ".x-kubernetes-list-map-keys: must be a list of field names");
  }

  // nullable: true -> type [T, "null"]; null joins the enum too.
  if (is_true(node, "nullable")) {
    if (type) {
      Value both(rapidjson::kArrayType);
      both.PushBack(Value(*type, ctx.alloc), ctx.alloc);
      both.PushBack(json::str("null", ctx.alloc), ctx.alloc);
      *type = std::move(both);
    }
    if (Value* e = json::find(node, "enum")) e->PushBack(Value(rapidjson::kNullType), ctx.alloc);
  }

  // x-kubernetes-int-or-string without anyOf -> anyOf integer / string.
  if (is_true(node, "x-kubernetes-int-or-string") && !json::find(node, "anyOf")) {
    Value any(rapidjson::kArrayType);
    for (const char* t : {"integer", "string"}) {
      Value alt(rapidjson::kObjectType);
      alt.AddMember("type", json::str(t, ctx.alloc), ctx.alloc);
      any.PushBack(std::move(alt), ctx.alloc);
    }
    node.AddMember("anyOf", std::move(any), ctx.alloc);
  }

  // Defaults are applied before validation, so a required property with a default can never be missing.
  if (Value* req = json::find(node, "required")) {
    if (!req->IsArray()) return fail(where + ".required: must be a list of field names");
    const Value* props = json::find(node, "properties");
    Value kept(rapidjson::kArrayType);
    for (auto it = req->Begin(); it != req->End(); ++it) {
      if (!it->IsString()) return fail(where + ".required: must be a list of field names");
      const Value* prop = props ? json::find(*props, string_of(*it)) : nullptr;
      if (prop && json::find(*prop, "default")) continue;
      kept.PushBack(Value(*it, ctx.alloc), ctx.alloc);
    }
    *req = std::move(kept);
  }

  if (Value* pat = json::find(node, "pattern")) {
    if (!pat->IsString()) return fail(where + ".pattern: must be a string");
    const std::string text = string_of(*pat);
    if (!ctx.patterns_ok.contains(text)) {
      if (auto re = Regex::compile(text); !re)
        return fail(where + ".pattern: " + dq(text) +
                    " is not a valid RE2 (Go regexp) regular expression: " + re.error().message);
      ctx.patterns_ok.insert(text);
    }
  }
  return {};
}

// ---- sharing repeated sub-schemas -------------------------------------------------------------------------

// RapidJSON 1.1.0 finds each compiled sub-schema by pointer in a flat list while it compiles a SchemaDocument,
// which is quadratic in the number of objects of the document. The KubeRay CRDs repeat large subtrees (a PodSpec per
// group, a Container schema per container list), so RapidJSON is given a copy in which identical sub-schemas are
// stored once, as separate documents, and referenced with a remote `$ref` ("s<N>/#", resolved by SharedSchemas):
// each document is compiled alone, so the cost is the sum of the squares of the documents' sizes (for KubeRay's
// RayCluster about 0.47 M against 8.2 M in one document). The walker and the messages use the full schema.
class SchemaSharer {
 public:
  explicit SchemaSharer(json::Document& doc) : doc_(doc), a_(doc.GetAllocator()) {}

  /// Shares the repeated sub-schemas of the document; returns the shared ones, the N-th referenced as "s<N>/#"
  /// (their values live in the document's allocator).
  std::deque<Value> run() {
    for_each_child_schema(doc_, [&](Value& child) { count(child); });
    for_each_child_schema(doc_, [&](Value& child) { share(child, 1); });
    return std::move(defs_);
  }

  /// The index N of a reference "s<N>/#" from the start of its URI (RapidJSON 1.1.0 hands the provider the URI
  /// without its last character before '#': "s<N>"); nullopt for anything else.
  static std::optional<std::size_t> ref_index(std::string_view uri) {
    if (uri.size() < 2 || uri[0] != 's') return std::nullopt;
    std::size_t n = 0, i = 1;
    for (; i < uri.size() && uri[i] >= '0' && uri[i] <= '9'; ++i) n = n * 10 + static_cast<std::size_t>(uri[i] - '0');
    if (i == 1 || (i < uri.size() && uri.substr(i) != "/")) return std::nullopt;
    return n;
  }

 private:
  static constexpr std::size_t kMinShared = 12;  // nodes; smaller subtrees are not worth a $ref

  struct Info {
    uint64_t hash = 0;
    std::size_t size = 0;
  };

  static std::string def_name(std::size_t i) { return "s" + std::to_string(i); }

  /// Calls f on every direct sub-schema of `node` (properties, additionalProperties, items, allOf/anyOf/oneOf, not).
  template <class F>
  static void for_each_child_schema(Value& node, F f) {
    if (!node.IsObject()) return;
    if (Value* props = json::find(node, "properties"); props && props->IsObject())
      for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) f(it->value);
    if (Value* add = json::find(node, "additionalProperties"); add && add->IsObject()) f(*add);
    if (Value* items = json::find(node, "items")) {
      if (items->IsObject()) f(*items);
      if (items->IsArray())
        for (auto it = items->Begin(); it != items->End(); ++it) f(*it);
    }
    for (const char* k : {"allOf", "anyOf", "oneOf"})
      if (Value* list = json::find(node, k); list && list->IsArray())
        for (auto it = list->Begin(); it != list->End(); ++it) f(*it);
    if (Value* n = json::find(node, "not"); n && n->IsObject()) f(*n);
  }

  static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }
  static uint64_t hash_text(const char* s, std::size_t n) { return std::hash<std::string_view>{}({s, n}); }

  /// Content hash and node count of any JSON value (memoized by address for objects: each is asked for again by
  /// count() and share(); the values inside are hashed once, with the object that holds them).
  Info info(const Value& v) {
    if (v.IsObject())
      if (auto it = memo_.find(&v); it != memo_.end()) return it->second;
    Info r{static_cast<uint64_t>(v.GetType()) + 1, 1};
    if (v.IsObject()) {
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        Info c = info(it->value);
        r.hash = mix(mix(r.hash, hash_text(it->name.GetString(), it->name.GetStringLength())), c.hash);
        r.size += c.size;
      }
    } else if (v.IsArray()) {
      for (auto it = v.Begin(); it != v.End(); ++it) {
        Info c = info(*it);
        r.hash = mix(r.hash, c.hash);
        r.size += c.size;
      }
    } else if (v.IsString()) {
      r.hash = mix(r.hash, hash_text(v.GetString(), v.GetStringLength()));
    } else if (v.IsNumber()) {
      const double d = v.GetDouble();
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      r.hash = mix(r.hash, bits);
    }
    if (v.IsObject()) memo_.emplace(&v, r);
    return r;
  }

  void count(Value& node) {
    Info i = info(node);
    if (i.size >= kMinShared) ++counts_[i.hash];
    for_each_child_schema(node, [&](Value& child) { count(child); });
  }

  /// Moves `node` into the definitions when it occurs more often than its enclosing shared subtree (which would
  /// otherwise turn every node of a shared subtree into a reference of its own).
  void share(Value& node, int enclosing_count) {
    Info i = info(node);
    const int n = counts_[i.hash];
    if (i.size >= kMinShared && n >= 2 && n > enclosing_count) {
      for (std::size_t d : by_hash_[i.hash])
        if (defs_[d] == node) {
          replace_with_ref(node, d);
          return;
        }
      const std::size_t d = defs_.size();
      defs_.emplace_back(node, a_);  // deep copy; its sub-schemas are shared in turn
      by_hash_[i.hash].push_back(d);
      replace_with_ref(node, d);
      for_each_child_schema(defs_[d], [&](Value& child) { share(child, n); });
      return;
    }
    for_each_child_schema(node, [&](Value& child) { share(child, enclosing_count); });
  }

  void replace_with_ref(Value& node, std::size_t d) {
    Value ref(rapidjson::kObjectType);
    ref.AddMember("$ref", json::str(def_name(d) + "/#", a_), a_);
    node = std::move(ref);
  }

  json::Document& doc_;
  json::Allocator& a_;
  std::unordered_map<const Value*, Info> memo_;
  std::unordered_map<uint64_t, int> counts_;
  std::unordered_map<uint64_t, std::vector<std::size_t>> by_hash_;
  std::deque<Value> defs_;  // stable addresses while sharing
};

/// The compiled form of a shared schema: the root's SchemaDocument and one per shared sub-schema, each compiled when a
/// reference to it is first met (while the root compiles, so all of them before the root is used). The SchemaDocuments
/// point at each other's compiled sub-schemas: they are kept, and dropped, together.
class SharedSchemas final : public rapidjson::IRemoteSchemaDocumentProvider {
 public:
  SharedSchemas(const Value& root, std::deque<Value> shared) : shared_(std::move(shared)), docs_(shared_.size()) {
    root_ = std::make_unique<SchemaDocument>(root, this);
  }
  SharedSchemas(const SharedSchemas&) = delete;
  SharedSchemas& operator=(const SharedSchemas&) = delete;
  ~SharedSchemas() override = default;

  const SchemaDocument& root() const { return *root_; }

  /// RapidJSON's lookup of "s<N>/#": the N-th shared sub-schema, compiled on first use; nullptr for another URI
  /// (never made here: the schemas hold no `$ref` of their own, prepare_schema refuses it).
  const SchemaDocument* GetRemoteDocument(const char* uri, rapidjson::SizeType length) override {
    const auto n = SchemaSharer::ref_index(std::string_view(uri, length));
    if (!n || *n >= docs_.size()) return nullptr;
    if (!docs_[*n]) docs_[*n] = std::make_unique<SchemaDocument>(shared_[*n], this);
    return docs_[*n].get();
  }

 private:
  std::deque<Value> shared_;  // in the shared copy's allocator
  std::vector<std::unique_ptr<SchemaDocument>> docs_;
  std::unique_ptr<SchemaDocument> root_;
};

// ---- mapping RapidJSON's first error --------------------------------------------------------------------

/// The schema node that describes the value at `doc_ptr` (an object's location as RapidJSON reports it): the tokens
/// followed through `properties`, then `additionalProperties` (map values), then `items` (list entries); nullptr when
/// the schema does not describe that location.
const Value* schema_at(const Value& root, const rapidjson::Pointer& doc_ptr) {
  const Value* node = &root;
  for (std::size_t i = 0; i < doc_ptr.GetTokenCount() && node; ++i) {
    const auto& token = doc_ptr.GetTokens()[i];
    const Value* next = nullptr;
    if (const Value* props = json::find(*node, "properties"); props && props->IsObject()) {
      const auto it = props->FindMember(Value(rapidjson::StringRef(token.name, token.length)));
      if (it != props->MemberEnd()) next = &it->value;
    }
    if (!next)
      if (const Value* add = json::find(*node, "additionalProperties"); add && add->IsObject()) next = add;
    if (!next && token.index != rapidjson::kPointerInvalidIndex)
      if (const Value* items = json::find(*node, "items"); items && items->IsObject()) next = items;
    node = next;
  }
  return node;
}

std::string pointer_string(const rapidjson::Pointer& p) {
  rapidjson::StringBuffer sb;
  p.Stringify(sb);
  return {sb.GetString(), sb.GetSize()};
}

std::string list_values(const Value& arr) {
  std::string s;
  for (auto it = arr.Begin(); it != arr.End(); ++it) {
    if (!s.empty()) s += ", ";
    s += it->IsString() ? string_of(*it) : json::dump(*it);
  }
  return s;
}

std::string expected_types(const Value& schema) {
  const Value* t = json::find(schema, "type");
  if (!t) return "a different type";
  if (t->IsString()) return std::string("of type ") + string_of(*t);
  std::string s;
  for (auto it = t->Begin(); it != t->End(); ++it) s += (s.empty() ? "" : " or ") + string_of(*it);
  return "of type " + s;
}

std::string anyof_types(const Value& schema) {
  const Value* any = json::find(schema, "anyOf");
  std::string s;
  if (any && any->IsArray())
    for (auto it = any->Begin(); it != any->End(); ++it)
      if (const Value* t = json::find(*it, "type"); t && t->IsString()) s += (s.empty() ? "" : " or ") + string_of(*t);
  return s;
}

std::string number_text(const Value* v) { return v ? json::dump(*v) : "?"; }

FieldError first_error(const SchemaValidator& validator, const Value& schema_root, const Value& obj,
                       const std::string& source) {
  const std::string keyword = validator.GetInvalidSchemaKeyword() ? validator.GetInvalidSchemaKeyword() : "invalid";
  const rapidjson::Pointer doc_ptr = validator.GetInvalidDocumentPointer();
  // The failing schema is the one at the value's location (RapidJSON's own schema pointer is relative to the shared
  // document it lies in, which SharedSchemas does not tell).
  const Value* snode = doc_ptr.IsValid() ? schema_at(schema_root, doc_ptr) : nullptr;
  const Value* dnode = doc_ptr.IsValid() ? doc_ptr.Get(obj) : nullptr;
  static const Value kEmpty(rapidjson::kObjectType);
  const Value& s = snode ? *snode : kEmpty;
  std::string path = json::pointer_to_path(pointer_string(doc_ptr));
  std::string reason;

  if (keyword == "required") {
    const Value* req = json::find(s, "required");
    std::string missing;
    if (req && req->IsArray() && dnode && dnode->IsObject())
      for (auto it = req->Begin(); it != req->End() && missing.empty(); ++it)
        if (!json::find(*dnode, string_of(*it))) missing = string_of(*it);
    if (!missing.empty()) {
      path = key_path(path, missing);
      reason = "required field " + dq(missing) + " is missing";
    } else {
      reason = "a required field is missing";
    }
  } else if (keyword == "type") {
    reason = "must be " + expected_types(s) + ", found " + (dnode ? json::type_name(*dnode) : "another type");
    if (dnode && !dnode->IsObject() && !dnode->IsArray()) reason += " " + preview(*dnode);
    // A whole number past 64 bits is read as a number, by the apiserver too (the thirty-eighth user trial:
    // "found number 9.999999999999999e22" for the literal 99999999999999999999999).
    if (dnode && json::is_whole_beyond_int64(*dnode) && expected_types(s).find("integer") != std::string::npos)
      reason += " (a whole number beyond the 64-bit integers a Kubernetes API field holds)";
  } else if (keyword == "enum") {
    const Value* e = json::find(s, "enum");
    reason = "value " + (dnode ? preview(*dnode) : std::string("?")) +
             " is not one of the allowed values: " + (e ? list_values(*e) : std::string("?"));
  } else if (keyword == "pattern") {
    reason = "value " + (dnode ? preview(*dnode) : std::string("?")) + " does not match the pattern " +
             (json::find(s, "pattern") ? string_of(*json::find(s, "pattern")) : std::string("?"));
  } else if (keyword == "anyOf" || keyword == "oneOf" || keyword == "allOf") {
    std::string alts = anyof_types(s);
    reason = "value " + (dnode ? preview(*dnode) : std::string("?")) + " does not match the allowed forms" +
             (alts.empty() ? "" : " (" + alts + ")");
  } else if (keyword == "minLength" || keyword == "maxLength") {
    reason = "string length must be " + std::string(keyword == "minLength" ? "at least " : "at most ") +
             number_text(json::find(s, keyword));
  } else if (keyword == "minimum" || keyword == "maximum") {
    bool exclusive = is_true(s, keyword == "minimum" ? "exclusiveMinimum" : "exclusiveMaximum");
    reason =
        "value " + (dnode ? preview(*dnode) : std::string("?")) + " must be " +
        (keyword == "minimum" ? (exclusive ? "greater than " : "at least ") : (exclusive ? "less than " : "at most ")) +
        number_text(json::find(s, keyword));
  } else if (keyword == "minItems" || keyword == "maxItems") {
    reason = "list must have " + std::string(keyword == "minItems" ? "at least " : "at most ") +
             number_text(json::find(s, keyword)) + " items";
  } else if (keyword == "minProperties" || keyword == "maxProperties") {
    reason = "map must have " + std::string(keyword == "minProperties" ? "at least " : "at most ") +
             number_text(json::find(s, keyword)) + " entries";
  } else if (keyword == "uniqueItems") {
    reason = "list items must be unique";
  } else if (keyword == "multipleOf") {
    reason = "value must be a multiple of " + number_text(json::find(s, "multipleOf"));
  } else {
    reason = "violates the schema keyword " + dq(keyword);
  }
  return {path, "schema:" + keyword, source, reason};
}

/// Removes the keywords the plan uses but RapidJSON does not need (`nullable`, `x-kubernetes-validations`) from a
/// schema and its sub-schemas.
void strip_plan_keywords(Value& node, int depth = 0) {
  if (!node.IsObject() || depth > kMaxDocumentDepth) return;
  node.RemoveMember("nullable");
  node.RemoveMember("x-kubernetes-validations");
  if (Value* props = json::find(node, "properties"); props && props->IsObject())
    for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) strip_plan_keywords(it->value, depth + 1);
  for (const char* k : {"additionalProperties", "items", "not"})
    if (Value* sub = json::find(node, k)) strip_plan_keywords(*sub, depth + 1);
  for (const char* k : {"items", "allOf", "anyOf", "oneOf"})
    if (Value* list = json::find(node, k); list && list->IsArray())
      for (auto it = list->Begin(); it != list->End(); ++it) strip_plan_keywords(*it, depth + 1);
}

/// True when `path` is `base` or lies below it.
bool is_within(const std::string& path, const std::string& base) {
  if (!path.starts_with(base)) return false;
  return base.empty() || path.size() == base.size() || path[base.size()] == '.' || path[base.size()] == '[';
}

/// The defaulted path that `path` lies in, or nullptr.
const std::string* defaulted_at(const std::string& path, const std::vector<std::string>& defaulted) {
  for (const auto& d : defaulted)
    if (is_within(path, d)) return &d;
  return nullptr;
}

/// A copy of `v` in a document of its own (json::clone): only the live values, none of the dead space (removed
/// members, replaced values) that a RapidJSON pool allocator keeps until the whole document goes.
std::unique_ptr<json::Document> compacted(const Value& v) { return std::make_unique<json::Document>(json::clone(v)); }

/// One compiled schema: the preprocessed JSON (for the walkers, the plan and messages), the shared form RapidJSON
/// compiled, the SchemaDocument, and the plan of defaults and CEL rules. The preprocessing (which finds every error a
/// schema can have) is done when the schema is added; the rest, most of the cost, on first use (`ensure_built`,
/// once, safe from any thread): a run that judges only RayClusters compiles no Kueue schema.
struct Compiled {
  std::unique_ptr<json::Document> schema;
  std::string source;  // "crd:<group>/<version>/<Kind>"
  // What ensure_built() builds: the plan too (with the object's apiVersion and kind) or only the SchemaDocument (the
  // strict PodSpec decoding applies no defaults and no rules).
  bool with_plan = false;
  std::string api_version, kind;
  // Built by ensure_built(), once, from whichever thread judges the kind first; written only there, under
  // lazy->once, and read only after it (so a const Compiled, shared by every thread, is built on first use).
  mutable std::unique_ptr<json::Document> shared;
  mutable std::unique_ptr<SharedSchemas> document;          // RapidJSON's compiled form of `shared`
  mutable std::unique_ptr<structural::WalkPlan> walk_plan;  // the walk of what draft-04 cannot express
  mutable std::unique_ptr<structural::PlanNode> plan;       // nullptr: no defaults and no rules (or not wanted)
  mutable std::vector<CelRuleInfo> rules;                   // every x-kubernetes-validations rule of the schema

  /// Builds the SchemaDocument (and the plan, when with_plan) the first time; later calls return at once.
  void ensure_built() const {
    std::call_once(lazy->once, [this] {
      build_now();
      lazy->done.store(true, std::memory_order_release);
    });
  }

  /// True once ensure_built() has finished (on any thread); then the built members may be read.
  bool built() const { return lazy->done.load(std::memory_order_acquire); }

  /// The plan's defaults applied to a copy of `obj` in `copy`; returns the object to check (`obj` itself when no
  /// default applies). `defaulted` gets the paths set, when given.
  const Value* defaulted(const Value& obj, json::Document& copy, structural::DefaultedPaths* paths) const {
    if (!plan || !structural::needs_defaults(*plan, obj)) return &obj;
    copy.CopyFrom(obj, copy.GetAllocator());
    structural::apply_defaults(*plan, copy, copy.GetAllocator(), paths);
    return &copy;
  }

  /// `obj`, or a copy of it in `copy` without the nulls kube-apiserver prunes. The result lives as long as both; a
  /// temporary `obj` is refused (the deleted overload), which is what clang-tidy's check is about.
  const Value& without_prunable_nulls(Value&& obj, json::Document& copy) const = delete;
  // NOLINTNEXTLINE(bugprone-return-const-ref-from-parameter)
  const Value& without_prunable_nulls(const Value& obj, json::Document& copy) const {
    if (!structural::has_prunable_nulls(*schema, obj)) return obj;
    copy.CopyFrom(obj, copy.GetAllocator());
    structural::prune_nulls(*schema, copy);
    return copy;
  }

  /// Null pruning and defaults, then RapidJSON's first error, the walker's findings and the CEL rules (with `old` on
  /// updates).
  FieldErrors check(const Value& obj, const Value* old = nullptr) const {
    ensure_built();
    FieldErrors out;
    if (depth_of(obj, kMaxDocumentDepth + 1) > kMaxDocumentDepth) {
      out.push_back({"", "schema:depth", source,
                     "object is nested deeper than " + std::to_string(kMaxDocumentDepth) + " levels"});
      return out;
    }
    if (old && depth_of(*old, kMaxDocumentDepth + 1) > kMaxDocumentDepth) old = nullptr;
    json::Document pruned, old_pruned, copy, old_copy;
    const Value& input = without_prunable_nulls(obj, pruned);
    structural::DefaultedPaths defaulted_at_segments;
    const Value* doc = defaulted(input, copy, &defaulted_at_segments);
    const Value* old_doc = old ? defaulted(without_prunable_nulls(*old, old_pruned), old_copy, nullptr) : nullptr;
    std::vector<std::string> defaulted_paths;  // rendered once there is a finding to compare with
    auto render_defaulted = [&] {
      if (defaulted_paths.empty() && !defaulted_at_segments.empty()) defaulted_paths = defaulted_at_segments.render();
    };

    {
      SchemaValidator validator(document->root());
      if (!doc->Accept(validator)) {
        out.push_back(first_error(validator, *schema, *doc, source));
        render_defaulted();
        // RapidJSON stops at its first error. When that lies in a defaulted value, the object's own first error
        // (if any) is looked for in the object as written.
        if (defaulted_at(out.back().path, defaulted_paths)) {
          SchemaValidator own(document->root());
          if (!input.Accept(own)) {
            FieldError e = first_error(own, *schema, input, source);
            if (e.path != out.back().path || e.rule != out.back().rule) out.push_back(std::move(e));
          }
        }
      }
    }
    walk_plan->walk(*doc, "", source, out);
    if (!out.empty()) render_defaulted();
    blame_defaults(out, 0, defaulted_paths);

    if (plan && plan->rules_below) {
      if (blocks_cel(out)) {
        if (structural::cel_rules_apply(*plan, *doc, old_doc))
          out.push_back({"", "cel:notEvaluated", source,
                         "the x-kubernetes-validations rules were not evaluated because of the schema errors above "
                         "(the apiserver skips them too); fix those first",
                         Severity::Warning});
      } else {
        const std::size_t first_cel = out.size();
        structural::run_cel_rules(*plan, *doc, old_doc, source, out);
        if (out.size() > first_cel) render_defaulted();
        blame_defaults(out, first_cel, defaulted_paths);
      }
    }
    return out;
  }

  /// Findings (from `from` on) inside a value that only a default supplied become warnings that say so.
  static void blame_defaults(FieldErrors& out, std::size_t from, const std::vector<std::string>& defaulted_paths) {
    for (std::size_t i = from; i < out.size(); ++i)
      if (const std::string* d = defaulted_at(out[i].path, defaulted_paths)) {
        out[i].severity = Severity::Warning;
        out[i].reason += " (the value at " + (d->empty() ? std::string("the root") : *d) +
                         " comes from the CRD's default, so the CRD is at fault, not the object)";
      }
  }

  /// kube-apiserver evaluates no CEL rule of an object that has a wrong type, a value outside its enum, a missing
  /// required field, or a too long string or too many items or properties: those make rules fail spuriously.
  static bool blocks_cel(const FieldErrors& out) {
    static constexpr std::string_view kBlocking[] = {"schema:type",      "schema:enum",     "schema:required",
                                                     "schema:maxLength", "schema:maxItems", "schema:maxProperties",
                                                     "schema:anyOf",     "schema:oneOf"};
    for (const auto& f : out)
      if (f.severity == Severity::Error)
        for (auto k : kBlocking)
          if (f.rule == k) return true;
    return false;
  }

 private:
  // The once-only state, behind a pointer so that a Compiled can move (Result<Compiled>) before it is shared.
  struct Lazy {
    std::once_flag once;
    std::atomic<bool> done{false};
  };
  std::unique_ptr<Lazy> lazy = std::make_unique<Lazy>();

  void build_now() const {
    auto draft = std::make_unique<json::Document>();
    draft->CopyFrom(*schema, draft->GetAllocator());
    strip_plan_keywords(*draft);
    std::deque<Value> draft_parts = SchemaSharer(*draft).run();
    // The sharer leaves every subtree it moved out, and every keyword stripped, as dead space in the draft's pool
    // allocator (RapidJSON never frees inside a pool): the form that is kept is a fresh copy of the live values.
    shared = compacted(*draft);
    std::deque<Value> shared_parts;
    for (const Value& part : draft_parts) shared_parts.emplace_back(part, shared->GetAllocator());
    draft_parts.clear();
    draft.reset();
    document = std::make_unique<SharedSchemas>(*shared, std::move(shared_parts));
    walk_plan = std::make_unique<structural::WalkPlan>(*schema);
    if (with_plan) plan = structural::build_plan(*schema, api_version, kind, rules);
  }
};

/// The path of the first object member named "$ref" anywhere in `v` (values such as `default` and `enum` entries
/// included), or nullopt. RapidJSON resolves "$ref" in every object of a schema document, wherever it sits.
std::optional<std::string> find_ref_key(const Value& v, const std::string& path, int depth = 0) {
  if (depth > kMaxDocumentDepth) return std::nullopt;
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      const std::string key = string_of(it->name);
      if (key == "$ref") return key_path(path, key);
      if (auto found = find_ref_key(it->value, key_path(path, key), depth + 1)) return found;
    }
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      if (auto found = find_ref_key(v[i], index_path(path, i), depth + 1)) return found;
  }
  return std::nullopt;
}

Result<Compiled> compile(const Value& source_schema, const std::string& where, const std::string& source) {
  if (depth_of(source_schema, kMaxDocumentDepth + 1) > kMaxDocumentDepth)
    return fail(where + ": nested deeper than " + std::to_string(kMaxDocumentDepth) + " levels");
  if (auto ref = find_ref_key(source_schema, where))
    return fail(*ref + ": a \"$ref\" key is not supported in a CustomResourceDefinition schema");
  Compiled c;
  c.schema = std::make_unique<json::Document>();
  c.schema->CopyFrom(source_schema, c.schema->GetAllocator());
  PrepareContext ctx{c.schema->GetAllocator(), {}};
  if (auto r = prepare_schema(*c.schema, where, ctx); !r) return std::unexpected(r.error());
  // The descriptions removed and the keywords rewritten stay as dead space in the copy's pool allocator (for a CRD
  // served by the apiserver, descriptions included, most of it): keep a fresh copy of what is left.
  c.schema = compacted(*c.schema);
  c.source = source;
  return c;
}

struct Entry {
  std::string api_version;
  std::string kind;
  bool namespaced = true;
  bool deprecated = false;
  bool status_subresource = false;  // `status` is dropped on create and kept from the old object on update
  std::string deprecation_warning;
  Compiled compiled;
};

using Key = std::pair<std::string, std::string>;  // apiVersion, kind

Result<std::vector<json::Document>> read_documents(const std::filesystem::path& file) {
  auto text = read_file(file.string(), yaml::kMaxStreamBytes);
  if (!text) return std::unexpected(text.error());
  if (file.extension() == ".json") {
    auto doc = json::parse(*text);
    if (!doc) return fail(file.string() + ": " + doc.error().message);
    std::vector<json::Document> docs;
    docs.push_back(std::move(*doc));
    return docs;
  }
  auto docs = yaml::to_json(*text);
  if (!docs) return fail(file.string() + ": " + docs.error().message);
  return docs;
}

/// `obj`, or a copy of it in `copy` without its `status`. The result lives as long as both; a temporary `obj` is
/// refused (the deleted overload), which is what clang-tidy's check is about.
const Value& without_status(Value&& obj, json::Document& copy) = delete;
// NOLINTNEXTLINE(bugprone-return-const-ref-from-parameter)
const Value& without_status(const Value& obj, json::Document& copy) {
  if (!json::find(obj, "status")) return obj;
  copy.CopyFrom(obj, copy.GetAllocator());
  copy.RemoveMember("status");
  return copy;
}

}  // namespace

struct SchemaSet::Impl {
  std::map<Key, Entry> entries;
  std::vector<Key> order;              // keys in load order, for cel_rules()
  std::unique_ptr<Compiled> pod_spec;  // core/v1 PodSpec, from ray.io/v1 RayCluster

  FieldErrors validate(const json::Value& obj, const json::Value* old) const {
    FieldErrors out;
    if (!obj.IsObject()) {
      out.push_back({"", "schema:type", "crd", std::string("an object must be a map, found ") + json::type_name(obj)});
      return out;
    }
    const std::string api_version = json::get_string(obj, "apiVersion").value_or("");
    const std::string kind = json::get_string(obj, "kind").value_or("");
    auto it = entries.find({api_version, kind});
    if (it == entries.end()) {
      out.push_back({kind.empty() ? "kind" : "apiVersion", "schema:unknownKind", "crd",
                     "no schema is loaded for " + (api_version.empty() ? std::string("<no apiVersion>") : api_version) +
                         " " + (kind.empty() ? std::string("<no kind>") : kind)});
      return out;
    }
    const Entry& e = it->second;
    if (e.deprecated)
      out.push_back(
          {"apiVersion", "schema:deprecatedVersion", e.compiled.source,
           e.deprecation_warning.empty() ? api_version + " " + kind + " is deprecated" : e.deprecation_warning,
           Severity::Warning});
    // With the status subresource, kube-apiserver drops `status` from a create and keeps the old one on an update of
    // the main resource: whatever `status` the object carries is not judged.
    json::Document no_status, old_no_status;
    const Value& judged = e.status_subresource ? without_status(obj, no_status) : obj;
    const Value* judged_old = old && e.status_subresource ? &without_status(*old, old_no_status) : old;
    FieldErrors found = e.compiled.check(judged, judged_old);
    out.insert(out.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    return out;
  }
};

SchemaSet::SchemaSet() : impl_(std::make_unique<Impl>()) {}
SchemaSet::~SchemaSet() = default;
SchemaSet::SchemaSet(SchemaSet&&) noexcept = default;
SchemaSet& SchemaSet::operator=(SchemaSet&&) noexcept = default;

Result<void> SchemaSet::add_crd(const json::Value& crd) {
  if (!crd.IsObject()) return fail("CustomResourceDefinition: expected an object");
  const std::string api_version = json::get_string(crd, "apiVersion").value_or("");
  const std::string kind_of_doc = json::get_string(crd, "kind").value_or("");
  if (kind_of_doc != "CustomResourceDefinition")
    return fail("not a CustomResourceDefinition (kind " + dq(kind_of_doc) + ")");
  if (api_version != "apiextensions.k8s.io/v1")
    return fail("CustomResourceDefinition: apiVersion " + dq(api_version) +
                " is not supported; only apiextensions.k8s.io/v1 is");
  const Value* name_node = json::find_path(crd, "metadata.name");
  const std::string crd_name =
      name_node && name_node->IsString() ? name_node->GetString() : std::string("<unnamed CRD>");
  const Value* spec = json::find(crd, "spec");
  if (!spec || !spec->IsObject()) return fail(crd_name + ": spec is missing");
  const std::string group = json::get_string(*spec, "group").value_or("");
  const Value* names = json::find(*spec, "names");
  const std::string kind = names ? json::get_string(*names, "kind").value_or("") : "";
  if (group.empty()) return fail(crd_name + ": spec.group is missing");
  if (kind.empty()) return fail(crd_name + ": spec.names.kind is missing");
  const bool namespaced = json::get_string(*spec, "scope").value_or("Namespaced") != "Cluster";
  const Value* versions = json::find(*spec, "versions");
  if (!versions || !versions->IsArray() || versions->Empty()) return fail(crd_name + ": spec.versions is missing");

  std::vector<Entry> added;
  for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
    const Value& v = (*versions)[i];
    const std::string where = index_path("spec.versions", i);
    const std::string name = json::get_string(v, "name").value_or("");
    if (name.empty()) return fail(crd_name + ": " + where + ".name is missing");
    if (json::get_bool(v, "served") == false) continue;
    const Value* schema = json::find_path(v, "schema.openAPIV3Schema");
    if (!schema) return fail(crd_name + ": " + where + ".schema.openAPIV3Schema is missing (version " + name + ")");
    const std::string source = "crd:" + group + "/" + name + "/" + kind;
    auto compiled = compile(*schema, where + ".schema.openAPIV3Schema", source);
    if (!compiled) return fail(crd_name + ": " + compiled.error().message);
    Entry e;
    e.api_version = group + "/" + name;
    e.kind = kind;
    e.namespaced = namespaced;
    e.deprecated = json::get_bool(v, "deprecated").value_or(false);
    e.deprecation_warning = json::get_string(v, "deprecationWarning").value_or("");
    e.status_subresource = json::find_path(v, "subresources.status") != nullptr;
    e.compiled = std::move(*compiled);
    e.compiled.with_plan = true;
    e.compiled.api_version = e.api_version;
    e.compiled.kind = e.kind;
    added.push_back(std::move(e));
  }

  for (auto& e : added) {
    if (e.api_version == "ray.io/v1" && e.kind == "RayCluster") {
      const Value* pod = json::find_path(
          *e.compiled.schema, "properties.spec.properties.headGroupSpec.properties.template.properties.spec");
      if (pod && pod->IsObject()) {
        auto c = std::make_unique<Compiled>();
        c->schema = std::make_unique<json::Document>();
        c->schema->CopyFrom(*pod, c->schema->GetAllocator());
        c->source = "core/v1:PodSpec";
        impl_->pod_spec = std::move(c);
      }
    }
    Key key{e.api_version, e.kind};
    if (!impl_->entries.contains(key)) impl_->order.push_back(key);
    impl_->entries.insert_or_assign(std::move(key), std::move(e));
  }
  return {};
}

Result<SchemaSet> SchemaSet::load_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(dir + ": not a readable directory");
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension().string();
    if ((ext == ".yaml" || ext == ".yml" || ext == ".json") && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return fail(dir + ": cannot list the directory: " + ec.message());
  std::sort(files.begin(), files.end());

  SchemaSet set;
  for (const auto& file : files) {
    auto docs = read_documents(file);
    if (!docs) return std::unexpected(docs.error());
    for (std::size_t i = 0; i < docs->size(); ++i) {
      const Value& doc = (*docs)[i];
      if (json::get_string(doc, "kind") != "CustomResourceDefinition") continue;
      if (auto r = set.add_crd(doc); !r)
        return fail(file.string() + " (document " + std::to_string(i + 1) + "): " + r.error().message);
    }
  }
  return set;
}

namespace {
/// The null values of metadata.labels and metadata.annotations: each is given to `f`.
template <class V, class F>
void each_null_meta_value(V& obj, F f) {
  auto* meta = json::find(obj, "metadata");
  if (!meta || !meta->IsObject()) return;
  for (const char* key : {"labels", "annotations"})
    if (auto* m = json::find(*meta, key); m && m->IsObject())
      for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it)
        if (it->value.IsNull()) f(it->value);
}
}  // namespace

bool SchemaSet::prepare(const json::Value& obj, json::Document& out) const {
  if (!obj.IsObject()) return false;
  auto it = impl_->entries.find(
      {json::get_string(obj, "apiVersion").value_or(""), json::get_string(obj, "kind").value_or("")});
  if (it == impl_->entries.end()) return false;
  const Entry& e = it->second;
  const bool drop_status = e.status_subresource && json::find(obj, "status");
  const bool nulls = structural::has_prunable_nulls(*e.compiled.schema, obj);
  bool meta = false;
  each_null_meta_value(obj, [&](const json::Value&) { meta = true; });
  if (!drop_status && !nulls && !meta) return false;
  out.CopyFrom(obj, out.GetAllocator());
  if (drop_status) out.RemoveMember("status");
  if (nulls) structural::prune_nulls(*e.compiled.schema, out);
  if (meta) each_null_meta_value(out, [&](json::Value& v) { v.SetString("", out.GetAllocator()); });
  return true;
}

bool SchemaSet::has(const std::string& api_version, const std::string& kind) const {
  return impl_->entries.contains({api_version, kind});
}

bool SchemaSet::namespaced(const std::string& api_version, const std::string& kind) const {
  auto it = impl_->entries.find({api_version, kind});
  return it == impl_->entries.end() || it->second.namespaced;
}

FieldErrors SchemaSet::validate(const json::Value& obj) const { return impl_->validate(obj, nullptr); }

FieldErrors SchemaSet::validate_update(const json::Value& obj, const json::Value& old) const {
  const bool same_type = obj.IsObject() && old.IsObject() &&
                         json::get_string(obj, "apiVersion") == json::get_string(old, "apiVersion") &&
                         json::get_string(obj, "kind") == json::get_string(old, "kind");
  return impl_->validate(obj, same_type ? &old : nullptr);
}

std::vector<CelRuleInfo> SchemaSet::cel_rules(RulesOf which) const {
  std::vector<CelRuleInfo> out;
  for (const auto& key : impl_->order)
    if (auto it = impl_->entries.find(key); it != impl_->entries.end()) {
      const Compiled& c = it->second.compiled;
      if (which == RulesOf::kUsedKinds && !c.built()) continue;
      c.ensure_built();
      out.insert(out.end(), c.rules.begin(), c.rules.end());
    }
  return out;
}

std::vector<CelRuleInfo> SchemaSet::unsupported_cel_rules(RulesOf which) const {
  std::vector<CelRuleInfo> out;
  for (auto& r : cel_rules(which))
    if (!r.supported) out.push_back(std::move(r));
  return out;
}

bool SchemaSet::build(const std::string& api_version, const std::string& kind) const {
  auto it = impl_->entries.find({api_version, kind});
  if (it == impl_->entries.end()) return false;
  it->second.compiled.ensure_built();
  return true;
}

bool SchemaSet::has_pod_spec() const { return impl_->pod_spec != nullptr; }

FieldErrors SchemaSet::validate_pod_spec(const json::Value& pod_spec) const {
  if (!impl_->pod_spec) return {};
  return impl_->pod_spec->check(pod_spec);
}

std::vector<std::string> SchemaSet::kinds() const {
  std::vector<std::string> out;
  for (const auto& [key, e] : impl_->entries) out.push_back(key.first + "/" + key.second);
  return out;
}

}  // namespace cfo::validation
