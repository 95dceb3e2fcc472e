#include "validation/cel/value.hpp"

namespace cfo::validation::cel {

namespace {

bool type_is(const json::Value* schema, std::string_view want) {
  if (!schema || !schema->IsObject()) return false;
  const json::Value* t = json::find(*schema, "type");
  if (!t) return false;
  if (t->IsString()) return std::string_view(t->GetString(), t->GetStringLength()) == want;
  if (t->IsArray())  // a prepared nullable schema: [T, "null"]
    for (auto it = t->Begin(); it != t->End(); ++it)
      if (it->IsString() && std::string_view(it->GetString(), it->GetStringLength()) == want) return true;
  return false;
}

}  // namespace

const char* type_name(Type t) {
  switch (t) {
    case Type::Null:
      return "null_type";
    case Type::Bool:
      return "bool";
    case Type::Int:
      return "int";
    case Type::Uint:
      return "uint";
    case Type::Double:
      return "double";
    case Type::String:
      return "string";
    case Type::List:
      return "list";
    case Type::Map:
      return "map";
    case Type::Error:
      return "error";
  }
  return "unknown";
}

Value Value::boolean(bool b) {
  Value v;
  v.type_ = Type::Bool;
  v.b_ = b;
  return v;
}

Value Value::integer(std::int64_t i) {
  Value v;
  v.type_ = Type::Int;
  v.i_ = i;
  return v;
}

Value Value::uinteger(std::uint64_t u) {
  Value v;
  v.type_ = Type::Uint;
  v.u_ = u;
  return v;
}

Value Value::dbl(double d) {
  Value v;
  v.type_ = Type::Double;
  v.d_ = d;
  return v;
}

Value Value::borrowed_string(std::string_view s) {
  Value v;
  v.type_ = Type::String;
  v.s_ = s;
  return v;
}

Value Value::owned_string(std::string s) {
  auto owned = std::make_shared<const std::string>(std::move(s));
  Value v;
  v.type_ = Type::String;
  v.s_ = *owned;
  v.owner_ = std::move(owned);
  return v;
}

Value Value::list(std::shared_ptr<const ValueList> items) {
  Value v;
  v.type_ = Type::List;
  v.owner_ = std::move(items);
  return v;
}

Value Value::map(std::shared_ptr<const MapEntries> entries) {
  Value v;
  v.type_ = Type::Map;
  v.owner_ = std::move(entries);
  return v;
}

Value Value::error(std::string message) {
  Value v = owned_string(std::move(message));
  v.type_ = Type::Error;
  return v;
}

Value Value::unsupported(std::string message) {
  Value v = error(std::move(message));
  v.unsupported_ = true;
  return v;
}

Value Value::from_json(const json::Value& j, const json::Value* schema) {
  Value v;
  v.schema_ = schema;
  switch (j.GetType()) {
    case rapidjson::kNullType:
      break;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      v.type_ = Type::Bool;
      v.b_ = j.GetBool();
      break;
    case rapidjson::kNumberType:
      if (j.IsInt64() && !type_is(schema, "number")) {
        v.type_ = Type::Int;
        v.i_ = j.GetInt64();
      } else if (j.IsUint64() && !type_is(schema, "number")) {
        v.type_ = Type::Uint;
        v.u_ = j.GetUint64();
      } else {
        v.type_ = Type::Double;
        v.d_ = j.GetDouble();
      }
      break;
    case rapidjson::kStringType:
      v.type_ = Type::String;
      v.s_ = std::string_view(j.GetString(), j.GetStringLength());
      break;
    case rapidjson::kArrayType:
      v.type_ = Type::List;
      v.json_ = &j;
      break;
    case rapidjson::kObjectType:
      v.type_ = Type::Map;
      v.json_ = &j;
      break;
  }
  return v;
}

std::size_t Value::size() const {
  if (type_ == Type::List) {
    if (json_) return json_->Size();
    return static_cast<const ValueList*>(owner_.get())->size();
  }
  if (type_ == Type::Map) {
    if (json_) return json_->MemberCount();
    return static_cast<const MapEntries*>(owner_.get())->size();
  }
  return 0;
}

Value Value::list_at(std::size_t i, const json::Value* element_schema) const {
  if (json_) return from_json((*json_)[static_cast<rapidjson::SizeType>(i)], element_schema);
  return (*static_cast<const ValueList*>(owner_.get()))[i];
}

const json::Value* Value::items_schema_of_this() const { return json_ ? items_schema(schema_) : nullptr; }

bool Value::has_field(std::string_view name) const {
  if (type_ != Type::Map) return false;
  if (json_) {
    for (auto it = json_->MemberBegin(); it != json_->MemberEnd(); ++it)
      if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == name) return true;
    return false;
  }
  for (const auto& [k, v] : *static_cast<const MapEntries*>(owner_.get()))
    if (k.type() == Type::String && k.as_string() == name) return true;
  return false;
}

Value Value::map_key_at(std::size_t i) const {
  if (json_) {
    const auto& name = (json_->MemberBegin() + static_cast<std::ptrdiff_t>(i))->name;
    return borrowed_string(std::string_view(name.GetString(), name.GetStringLength()));
  }
  return (*static_cast<const MapEntries*>(owner_.get()))[i].first;
}

bool Value::map_field(std::string_view name, Value& out) const {
  if (type_ != Type::Map) return false;
  if (json_) {
    for (auto it = json_->MemberBegin(); it != json_->MemberEnd(); ++it)
      if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == name) {
        out = from_json(it->value, child_schema(schema_, name));
        return true;
      }
    return false;
  }
  for (const auto& [k, v] : *static_cast<const MapEntries*>(owner_.get()))
    if (k.type() == Type::String && k.as_string() == name) {
      out = v;
      return true;
    }
  return false;
}

bool Value::map_find(const Value& key, Value& out) const {
  if (type_ != Type::Map) return false;
  if (json_) return key.type() == Type::String && map_field(key.as_string(), out);
  for (const auto& [k, v] : *static_cast<const MapEntries*>(owner_.get())) {
    bool same = false;
    if (k.type() == key.type()) {
      switch (k.type()) {
        case Type::String:
          same = k.as_string() == key.as_string();
          break;
        case Type::Bool:
          same = k.as_bool() == key.as_bool();
          break;
        case Type::Int:
          same = k.as_int() == key.as_int();
          break;
        case Type::Uint:
          same = k.as_uint() == key.as_uint();
          break;
        default:
          break;
      }
    } else if (k.type() == Type::Int && key.type() == Type::Uint) {
      same = k.as_int() >= 0 && static_cast<std::uint64_t>(k.as_int()) == key.as_uint();
    } else if (k.type() == Type::Uint && key.type() == Type::Int) {
      same = key.as_int() >= 0 && static_cast<std::uint64_t>(key.as_int()) == k.as_uint();
    }
    if (same) {
      out = v;
      return true;
    }
  }
  return false;
}

std::string_view Value::list_type() const {
  if (schema_ && schema_->IsObject())
    if (const json::Value* t = json::find(*schema_, "x-kubernetes-list-type"); t && t->IsString())
      return std::string_view(t->GetString(), t->GetStringLength());
  return "atomic";
}

const json::Value* child_schema(const json::Value* schema, std::string_view name) {
  if (!schema || !schema->IsObject()) return nullptr;
  if (const json::Value* props = json::find(*schema, "properties"); props && props->IsObject())
    if (const json::Value* p = json::find(*props, name)) return p;
  if (const json::Value* add = json::find(*schema, "additionalProperties"); add && add->IsObject()) return add;
  return nullptr;
}

const json::Value* items_schema(const json::Value* schema) {
  if (!schema || !schema->IsObject()) return nullptr;
  const json::Value* items = json::find(*schema, "items");
  return items && items->IsObject() ? items : nullptr;
}

}  // namespace cfo::validation::cel
