#include "workload/strategic_merge.hpp"

#include <string_view>

#include "core/field_error.hpp"

namespace cfo::workload {

namespace {
// What a value is, for the merge: which of its members are lists merged by key, and of what.
enum class Shape { Template, Meta, PodSpec, Container, Keyed, Plain };

// How one list member merges: by `key` (items of `item_shape`, `retain_keys` for the oneOf-like items) or, with an
// empty key, replaced whole.
struct ListRule {
  std::string_view key;
  Shape item_shape = Shape::Plain;
  bool retain_keys = false;
};

ListRule list_rule(Shape parent, std::string_view field) {
  if (parent == Shape::PodSpec) {
    if (field == "containers" || field == "initContainers" || field == "ephemeralContainers")
      return {"name", Shape::Container};
    if (field == "volumes" || field == "resourceClaims") return {"name", Shape::Keyed, true};
    if (field == "imagePullSecrets" || field == "schedulingGates") return {"name", Shape::Keyed};
    if (field == "hostAliases") return {"ip", Shape::Keyed};
    if (field == "topologySpreadConstraints") return {"topologyKey", Shape::Keyed};
  } else if (parent == Shape::Container) {
    if (field == "env") return {"name", Shape::Keyed};
    if (field == "ports") return {"containerPort", Shape::Keyed};
    if (field == "volumeMounts") return {"mountPath", Shape::Keyed};
    if (field == "volumeDevices") return {"devicePath", Shape::Keyed};
  }
  return {};
}

// The shape of member `field` of an object of shape `parent` (objects only; lists use list_rule).
Shape member_shape(Shape parent, std::string_view field) {
  if (parent == Shape::Template)
    return field == "metadata" ? Shape::Meta : field == "spec" ? Shape::PodSpec : Shape::Plain;
  return Shape::Plain;
}

class Merger {
 public:
  Merger(json::Allocator& a, PathOrigins* out, const std::vector<std::string>& existing_only)
      : a_(a), out_(out), existing_only_(existing_only) {}

  void object(json::Value& base, const json::Value& patch, Shape shape, const std::string& bp, const std::string& pp) {
    for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      const std::string bkey = trace_ ? key_path(bp, key) : "", pkey = trace_ ? key_path(pp, key) : "";
      json::Value* have = json::find(base, key);
      const json::Value& want = it->value;
      if (have && have->IsObject() && want.IsObject()) {
        object(*have, want, member_shape(shape, key), bkey, pkey);
        continue;
      }
      if (have && have->IsArray() && want.IsArray()) {
        ListRule rule = list_rule(shape, key);
        if (!rule.key.empty()) {
          keyed_list(*have, want, rule, shape == Shape::PodSpec && key == "containers", bkey, pkey);
          continue;
        }
        if (shape == Shape::Meta && key == "finalizers") {
          string_set(*have, want, bkey, pkey);
          continue;
        }
      }
      record(bkey, pkey);
      json::set(base, key, json::Value(want, a_), a_);
    }
  }

  void trace(bool on) { trace_ = on; }

 private:
  void record(const std::string& child, const std::string& source) {
    if (trace_ && out_) out_->push_back(PathOrigin{child, source});
  }

  static const json::Value* item_key(const json::Value& item, std::string_view key) {
    return item.IsObject() ? json::find(item, key) : nullptr;
  }

  bool existing_only(const json::Value* key) const {
    if (!key || !key->IsString()) return false;
    for (const auto& n : existing_only_)
      if (n == std::string_view(key->GetString(), key->GetStringLength())) return true;
    return false;
  }

  void keyed_list(json::Value& base, const json::Value& patch, const ListRule& rule, bool containers,
                  const std::string& bp, const std::string& pp) {
    for (rapidjson::SizeType j = 0; j < patch.Size(); ++j) {
      const json::Value& item = patch[j];
      const std::string pitem = trace_ ? index_path(pp, j) : "";
      const json::Value* key = item_key(item, rule.key);
      rapidjson::SizeType match = base.Size();
      if (key)
        for (rapidjson::SizeType i = 0; i < base.Size(); ++i)
          if (const json::Value* k = item_key(base[i], rule.key); k && *k == *key) {
            match = i;
            break;
          }
      if (match == base.Size()) {  // a new item, appended
        if (containers && existing_only(key)) continue;
        record(trace_ ? index_path(bp, base.Size()) : "", pitem);
        base.PushBack(json::Value(item, a_), a_);
        continue;
      }
      const std::string bitem = trace_ ? index_path(bp, match) : "";
      if (!item.IsObject() || !base[match].IsObject()) {
        record(bitem, pitem);
        base[match] = json::Value(item, a_);
        continue;
      }
      if (rule.retain_keys) {  // the item is the patch's from now on; its members may still merge one level down
        drop_members_not_in(base[match], item);
        record(bitem, pitem);
      }
      object(base[match], item, rule.item_shape, bitem, pitem);
    }
  }

  // retainKeys: the merged item keeps only the members the patch item names (a volume's source is replaced, not
  // combined with the generated one).
  static void drop_members_not_in(json::Value& base, const json::Value& patch) {
    for (auto it = base.MemberBegin(); it != base.MemberEnd();) {
      if (!json::find(patch, std::string_view(it->name.GetString(), it->name.GetStringLength())))
        it = base.EraseMember(it);
      else
        ++it;
    }
  }

  void string_set(json::Value& base, const json::Value& patch, const std::string& bp, const std::string& pp) {
    for (rapidjson::SizeType j = 0; j < patch.Size(); ++j) {
      bool present = false;
      for (const auto& have : base.GetArray()) present = present || have == patch[j];
      if (present) continue;
      record(trace_ ? index_path(bp, base.Size()) : "", trace_ ? index_path(pp, j) : "");
      base.PushBack(json::Value(patch[j], a_), a_);
    }
  }

  json::Allocator& a_;
  PathOrigins* out_;
  const std::vector<std::string>& existing_only_;
  bool trace_ = false;
};
}  // namespace

void merge_pod_template(json::Value& base, const json::Value& patch, json::Allocator& a, const MergeOptions& options) {
  if (!patch.IsObject()) return;
  if (!base.IsObject()) base.SetObject();
  const MergeTrace* trace = options.trace;
  Merger m(a, trace ? trace->out : nullptr, options.existing_only);
  m.trace(trace != nullptr && trace->out != nullptr);
  m.object(base, patch, Shape::Template, trace ? trace->base_path : "", trace ? trace->patch_path : "");
}

std::string pod_spec_merge_key(const std::string& field) { return std::string(list_rule(Shape::PodSpec, field).key); }

std::string container_merge_key(const std::string& field) {
  return std::string(list_rule(Shape::Container, field).key);
}

}  // namespace cfo::workload
