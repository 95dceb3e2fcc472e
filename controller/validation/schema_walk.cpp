#include "validation/schema_walk.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "validation/schema_formats.hpp"

namespace cfo::validation::structural {

namespace {

using json::Value;

// Deeper schemas are refused when they are added (SchemaSet::add_crd); the plan stops there too.
constexpr int kMaxSchemaDepth = 300;

// `s` in double quotes (built by appending: GCC 12 at -O3 takes "\"" + std::string(s) for an overlapping copy,
// a -Wrestrict false positive that -Werror turns into an error).
std::string dq(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

// One walk: the findings, and the path of the value being walked (each level appends its key to the one buffer and
// cuts it back after the child).
class Walk {
 public:
  Walk(const std::string& path, const std::string& source, FieldErrors& out)
      : path_(path), source_(source), out_(out) {}

  void value(const WalkNode& node, const Value& doc) {
    if (!node.object) return;
    if (doc.IsObject()) {
      object(node, doc);
    } else if (doc.IsArray()) {
      array(node, doc);
    } else if (node.has_format) {
      if (auto reason = format_violation(*node.schema, doc))
        out_.push_back({path_, "schema:format", source_, std::move(*reason)});
    }
  }

 private:
  void object(const WalkNode& node, const Value& doc) {
    const std::size_t length = path_.size();
    for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
      const std::string_view key(it->name.GetString(), it->name.GetStringLength());
      const WalkNode* sub = node.has_properties ? node.property(key) : nullptr;
      if (!sub) sub = node.additional;
      if (sub) {
        append_key(path_, key);
        value(*sub, it->value);
        path_.resize(length);
      } else if (node.embedded && (key == "apiVersion" || key == "kind" || key == "metadata")) {
        // An embedded resource always admits its TypeMeta and ObjectMeta.
      } else if (node.has_properties && !node.preserve && !node.additional_given) {
        out_.push_back({key_path(path_, std::string(key)), "schema:unknownField", source_,
                        "field " + dq(key) + " is not declared in the schema; the apiserver would drop it"});
      }
    }
  }

  void array(const WalkNode& node, const Value& doc) {
    if (node.list_type == WalkNode::ListType::kMap && node.items) map_keys(*node.schema, *node.items, doc);
    if (node.list_type == WalkNode::ListType::kSet) set_values(doc);
    if (!node.item) return;
    const std::size_t length = path_.size();
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
      append_index(path_, i);
      value(*node.item, doc[i]);
      path_.resize(length);
    }
  }

  // Entries of a list-map must be unique by their key fields; absent keys take their schema default. The key values
  // are compared as JSON values; their text is made only for a duplicate's message.
  void map_keys(const Value& schema, const Value& items, const Value& doc) {
    const Value* keys = json::find(schema, "x-kubernetes-list-map-keys");
    if (!keys || !keys->IsArray() || keys->Empty()) return;
    const Value* item_props = json::find(items, "properties");
    const rapidjson::SizeType width = keys->Size();
    // The key values of entry i at [i * width, (i + 1) * width); nullptr for an unset key without a default.
    std::vector<const Value*> values(std::size_t{doc.Size()} * width, nullptr);
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
      if (!doc[i].IsObject()) continue;
      for (rapidjson::SizeType k = 0; k < width; ++k) {
        const Value& key = (*keys)[k];
        const std::string_view name = key.IsString() ? std::string_view(key.GetString(), key.GetStringLength()) : "";
        const Value* v = json::find(doc[i], name);
        if (!v && item_props)
          if (const Value* prop = json::find(*item_props, name)) v = json::find(*prop, "default");
        values[std::size_t{i} * width + k] = v;
      }
      for (rapidjson::SizeType j = 0; j < i; ++j) {
        if (!doc[j].IsObject() || !same_keys(values, i, j, width)) continue;
        std::string tuple;
        for (rapidjson::SizeType k = 0; k < width; ++k) {
          const Value& key = (*keys)[k];
          const Value* v = values[std::size_t{i} * width + k];
          if (!tuple.empty()) tuple += ", ";
          tuple += (key.IsString() ? std::string(key.GetString(), key.GetStringLength()) : std::string()) + "=" +
                   (v ? json::dump(*v) : "<unset>");
        }
        out_.push_back({index_path(path_, i), "schema:duplicate", source_,
                        "duplicate entry: (" + tuple + ") is already used by entry [" + std::to_string(j) + "]"});
        break;
      }
    }
  }

  static bool same_keys(const std::vector<const Value*>& values, rapidjson::SizeType i, rapidjson::SizeType j,
                        rapidjson::SizeType width) {
    for (rapidjson::SizeType k = 0; k < width; ++k) {
      const Value* a = values[std::size_t{i} * width + k];
      const Value* b = values[std::size_t{j} * width + k];
      if ((a == nullptr) != (b == nullptr) || (a && !(*a == *b))) return false;
    }
    return true;
  }

  void set_values(const Value& doc) {
    std::map<std::string, rapidjson::SizeType> seen;
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
      auto [it, fresh] = seen.emplace(json::dump(doc[i]), i);
      if (!fresh)
        out_.push_back({index_path(path_, i), "schema:duplicate", source_,
                        "duplicate value " + preview(doc[i]) + " in a set; it repeats entry [" +
                            std::to_string(it->second) + "]"});
    }
  }

  std::string path_;
  const std::string& source_;
  FieldErrors& out_;
};

}  // namespace

std::string preview(const json::Value& v) {
  std::string s = json::dump(v);
  if (s.size() <= 60) return s;
  std::size_t cut = 57;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

const WalkNode* WalkNode::property(std::string_view name) const {
  const auto it = std::lower_bound(properties.begin(), properties.end(), name,
                                   [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != properties.end() && it->first == name ? it->second : nullptr;
}

WalkPlan::WalkPlan(const json::Value& schema) : root_(add(schema, 0)) {}

const WalkNode* WalkPlan::add(const json::Value& schema, int depth) {
  WalkNode& node = nodes_.emplace_back();
  node.schema = &schema;
  node.object = schema.IsObject() && depth <= kMaxSchemaDepth;
  if (!node.object) return &node;
  if (const Value* props = json::find(schema, "properties"); props && props->IsObject()) {
    node.has_properties = true;
    node.properties.reserve(props->MemberCount());
    for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it)
      node.properties.emplace_back(std::string_view(it->name.GetString(), it->name.GetStringLength()),
                                   add(it->value, depth + 1));
    // A repeated name keeps its first schema, as the linear search of the schema found it.
    std::stable_sort(node.properties.begin(), node.properties.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  if (const Value* additional = json::find(schema, "additionalProperties")) {
    node.additional_given = true;
    if (additional->IsObject()) node.additional = add(*additional, depth + 1);
  }
  if (const Value* items = json::find(schema, "items")) {
    node.items = items;
    if (items->IsObject()) node.item = add(*items, depth + 1);
  }
  node.preserve = json::get_bool(schema, "x-kubernetes-preserve-unknown-fields").value_or(false);
  node.embedded = json::get_bool(schema, "x-kubernetes-embedded-resource").value_or(false);
  if (const Value* type = json::find(schema, "x-kubernetes-list-type"); type && type->IsString()) {
    const std::string_view t(type->GetString(), type->GetStringLength());
    if (t == "map") node.list_type = WalkNode::ListType::kMap;
    if (t == "set") node.list_type = WalkNode::ListType::kSet;
  }
  node.has_format = json::find(schema, "format") != nullptr;
  return &node;
}

void WalkPlan::walk(const json::Value& doc, const std::string& path, const std::string& source,
                    FieldErrors& out) const {
  Walk(path, source, out).value(*root_, doc);
}

}  // namespace cfo::validation::structural
