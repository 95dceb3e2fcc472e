#include "validation/schema_defaults.hpp"

#include <variant>

namespace cfo::validation::structural {

namespace {

/// The member `name` of an object, or nullptr.
json::Value* member(json::Value& obj, std::string_view name) {
  auto it = obj.FindMember(json::Value(rapidjson::StringRef(name.data(), name.size())));
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

bool wants_default(const json::Value* current, const Default& d) {
  return !current || (current->IsNull() && !d.nullable);
}

class Defaulter {
 public:
  Defaulter(json::Allocator& alloc, DefaultedPaths* out) : alloc_(alloc), out_(out) {}

  void walk(const PlanNode& n, json::Value& v) {
    if (!n.defaults_below) return;
    if (v.IsObject()) {
      for (const auto& d : n.defaults) {
        json::Value* current = member(v, d.name);
        if (!wants_default(current, d)) continue;
        if (current) {
          current->CopyFrom(*d.value, alloc_);
        } else {
          v.AddMember(json::Value(rapidjson::StringRef(d.name.data(), d.name.size())), json::Value(*d.value, alloc_),
                      alloc_);
        }
        if (out_) {
          segs_.emplace_back(std::string_view(d.name));
          out_->add(segs_);
          segs_.pop_back();
        }
      }
      // Members are visited in the object's order, each looked up in the plan (objects have fewer members than
      // schemas have properties). A member name stays where it is while its value is walked: only that value's
      // own members change.
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view name(it->name.GetString(), it->name.GetStringLength());
        const PlanNode* child = n.member(name);
        if (!child || !child->defaults_below) continue;
        segs_.emplace_back(name);
        walk(*child, it->value);
        segs_.pop_back();
      }
    } else if (v.IsArray() && n.items && n.items->defaults_below) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        segs_.emplace_back(static_cast<std::size_t>(i));
        walk(*n.items, v[i]);
        segs_.pop_back();
      }
    }
  }

 private:
  json::Allocator& alloc_;
  DefaultedPaths* out_;
  std::vector<DefaultedPaths::Segment> segs_;
};

}  // namespace

void DefaultedPaths::add(const std::vector<Segment>& segments) {
  const std::size_t begin = segments_.size();
  segments_.insert(segments_.end(), segments.begin(), segments.end());
  ranges_.emplace_back(begin, segments_.size());
}

std::vector<std::string> DefaultedPaths::render() const {
  std::vector<std::string> out;
  out.reserve(ranges_.size());
  for (const auto& [begin, end] : ranges_) {
    std::string p;
    for (std::size_t i = begin; i < end; ++i) {
      if (const auto* key = std::get_if<std::string_view>(&segments_[i]))
        p = key_path(p, std::string(*key));
      else
        p = index_path(p, std::get<std::size_t>(segments_[i]));
    }
    out.push_back(std::move(p));
  }
  return out;
}

bool needs_defaults(const PlanNode& n, const json::Value& v) {
  if (!n.defaults_below) return false;
  if (v.IsObject()) {
    for (const auto& d : n.defaults)
      if (wants_default(json::find(v, d.name), d)) return true;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      const PlanNode* child = n.member(std::string_view(it->name.GetString(), it->name.GetStringLength()));
      if (child && needs_defaults(*child, it->value)) return true;
    }
  } else if (v.IsArray() && n.items && n.items->defaults_below) {
    for (auto it = v.Begin(); it != v.End(); ++it)
      if (needs_defaults(*n.items, *it)) return true;
  }
  return false;
}

void apply_defaults(const PlanNode& plan, json::Value& obj, json::Allocator& alloc, DefaultedPaths* defaulted) {
  Defaulter(alloc, defaulted).walk(plan, obj);
}

}  // namespace cfo::validation::structural
