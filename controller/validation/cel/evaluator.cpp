#include "validation/cel/evaluator.hpp"

#include <array>
#include <string>

#include "validation/cel/functions.hpp"
#include "validation/cel/operators.hpp"

namespace cfo::validation::cel {

namespace {

Value not_bool(const char* what, const Value& v) {
  return Value::error(std::string(what) + " needs a bool, found " + type_name(v.type()));
}

std::string key_text(const Value& k) {
  switch (k.type()) {
    case Type::String:
      return std::string(k.as_string());
    case Type::Int:
      return std::to_string(k.as_int());
    case Type::Uint:
      return std::to_string(k.as_uint()) + "u";
    case Type::Bool:
      return k.as_bool() ? "true" : "false";
    default:
      return type_name(k.type());
  }
}

class Evaluator {
 public:
  explicit Evaluator(Value* slots) : slots_(slots) {}

  Value eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal:
        return e.value;
      case ExprKind::Ident:
        return slots_[e.slot];
      case ExprKind::Select:
        return select(e);
      case ExprKind::Index:
        return index(e);
      case ExprKind::Call:
        return e.op == Op::None ? function(e) : op(e);
      case ExprKind::CreateList:
        return create_list(e);
      case ExprKind::CreateMap:
        return create_map(e);
      case ExprKind::Comprehension:
        return comprehension(e);
    }
    return Value::error("unknown expression");
  }

 private:
  Value select(const Expr& e) {
    Value target = eval(*e.args[0]);
    if (target.is_error()) return target;
    if (target.type() != Type::Map)
      return Value::error(std::string("type '") + type_name(target.type()) + "' does not support field selection");
    if (e.test_only) return Value::boolean(target.has_field(e.name));
    Value out;
    if (!target.map_field(e.name, out)) return Value::error("no such key: " + e.name);
    return out;
  }

  Value index(const Expr& e) {
    Value target = eval(*e.args[0]);
    if (target.is_error()) return target;
    Value key = eval(*e.args[1]);
    if (key.is_error()) return key;
    if (target.type() == Type::List) {
      std::int64_t i = 0;
      if (key.type() == Type::Int) {
        i = key.as_int();
      } else if (key.type() == Type::Uint && key.as_uint() <= static_cast<std::uint64_t>(INT64_MAX)) {
        i = static_cast<std::int64_t>(key.as_uint());
      } else {
        return Value::error(std::string("a list index must be an int, found ") + type_name(key.type()));
      }
      if (i < 0 || static_cast<std::uint64_t>(i) >= target.size())
        return Value::error("index out of range: " + std::to_string(i));
      return target.list_at(static_cast<std::size_t>(i));
    }
    if (target.type() == Type::Map) {
      Value out;
      if (target.map_find(key, out)) return out;
      return Value::error("no such key: " + key_text(key));
    }
    return Value::error(std::string("type '") + type_name(target.type()) + "' does not support indexing");
  }

  Value op(const Expr& e) {
    switch (e.op) {
      case Op::And:
      case Op::Or:
        return logical(e, e.op == Op::Or);
      case Op::Not: {
        Value v = eval(*e.args[0]);
        if (v.is_error()) return v;
        if (v.type() != Type::Bool) return not_bool("'!'", v);
        return Value::boolean(!v.as_bool());
      }
      case Op::Neg:
        return negate(eval(*e.args[0]));
      case Op::Cond: {
        Value c = eval(*e.args[0]);
        if (c.is_error()) return c;
        if (c.type() != Type::Bool) return not_bool("the condition of '?:'", c);
        return eval(*e.args[c.as_bool() ? 1 : 2]);
      }
      case Op::Eq:
      case Op::Ne: {
        Value a = eval(*e.args[0]);
        if (a.is_error()) return a;
        Value r = equals(a, eval(*e.args[1]));
        if (e.op == Op::Ne && !r.is_error()) return Value::boolean(!r.as_bool());
        return r;
      }
      case Op::Lt:
      case Op::Le:
      case Op::Gt:
      case Op::Ge: {
        Value a = eval(*e.args[0]);
        if (a.is_error()) return a;
        return compare(e.op, a, eval(*e.args[1]));
      }
      case Op::In: {
        Value a = eval(*e.args[0]);
        if (a.is_error()) return a;
        return contains(a, eval(*e.args[1]));
      }
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Div:
      case Op::Mod: {
        Value a = eval(*e.args[0]);
        if (a.is_error()) return a;
        return arithmetic(e.op, a, eval(*e.args[1]));
      }
      case Op::None:
        break;
    }
    return Value::error("unknown operator");
  }

  /// `a && b` / `a || b`: the deciding value (false for &&, true for ||) wins over an error on the other side.
  Value logical(const Expr& e, bool is_or) {
    const char* name = is_or ? "'||'" : "'&&'";
    Value a = eval(*e.args[0]);
    if (a.type() == Type::Bool && a.as_bool() == is_or) return a;
    Value b = eval(*e.args[1]);
    if (b.type() == Type::Bool && b.as_bool() == is_or) return b;
    if (a.is_error()) return a;
    if (a.type() != Type::Bool) return not_bool(name, a);
    if (b.is_error()) return b;
    if (b.type() != Type::Bool) return not_bool(name, b);
    return Value::boolean(!is_or);
  }

  Value function(const Expr& e) {
    std::array<Value, 3> args;  // every builtin takes at most 2 arguments besides the target
    const std::size_t n = e.args.size();
    if (n > args.size()) return Value::error("too many arguments");
    for (std::size_t i = 0; i < n; ++i) {
      args[i] = eval(*e.args[i]);
      if (args[i].is_error()) return args[i];
    }
    return call_builtin(e.fn, std::span<const Value>(args.data(), n), e.regex.get());
  }

  Value create_list(const Expr& e) {
    auto items = std::make_shared<ValueList>();
    items->reserve(e.args.size());
    for (const auto& a : e.args) {
      Value v = eval(*a);
      if (v.is_error()) return v;
      items->push_back(std::move(v));
    }
    return Value::list(std::move(items));
  }

  Value create_map(const Expr& e) {
    auto entries = std::make_shared<MapEntries>();
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      Value k = eval(*e.args[i]);
      if (k.is_error()) return k;
      if (k.type() != Type::String && k.type() != Type::Int && k.type() != Type::Uint && k.type() != Type::Bool)
        return Value::error(std::string("a map key cannot be of type ") + type_name(k.type()));
      Value existing;
      if (Value::map(entries).map_find(k, existing)) return Value::error("duplicate map key: " + key_text(k));
      Value v = eval(*e.args[i + 1]);
      if (v.is_error()) return v;
      entries->emplace_back(std::move(k), std::move(v));
    }
    return Value::map(std::move(entries));
  }

  Value comprehension(const Expr& e) {
    Value range = eval(*e.args[0]);
    if (range.is_error()) return range;
    if (range.type() != Type::List && range.type() != Type::Map)
      return Value::error(std::string("cannot iterate over a value of type ") + type_name(range.type()));
    const bool over_map = range.type() == Type::Map;
    const std::size_t n = range.size();
    Value& var = slots_[e.slot];
    const json::Value* element_schema = over_map ? nullptr : range.element_schema();
    auto bind = [&](std::size_t i) { var = over_map ? range.map_key_at(i) : range.list_at(i, element_schema); };

    switch (e.macro) {
      case Macro::All:
      case Macro::Exists: {
        const bool want = e.macro == Macro::Exists;  // the value that decides the result
        Value first_error;
        bool errored = false;
        for (std::size_t i = 0; i < n; ++i) {
          bind(i);
          Value r = eval(*e.args[1]);
          if (r.type() == Type::Bool) {
            if (r.as_bool() == want) return r;
          } else if (!errored) {
            first_error = r.is_error() ? r : not_bool(want ? "exists()" : "all()", r);
            errored = true;
          }
        }
        return errored ? first_error : Value::boolean(!want);
      }
      case Macro::ExistsOne: {
        std::size_t count = 0;
        for (std::size_t i = 0; i < n; ++i) {
          bind(i);
          Value r = eval(*e.args[1]);
          if (r.is_error()) return r;
          if (r.type() != Type::Bool) return not_bool("exists_one()", r);
          if (r.as_bool()) ++count;
        }
        return Value::boolean(count == 1);
      }
      case Macro::Map:
      case Macro::MapFilter:
      case Macro::Filter: {
        auto out = std::make_shared<ValueList>();
        for (std::size_t i = 0; i < n; ++i) {
          bind(i);
          if (e.macro != Macro::Map) {
            Value keep = eval(*e.args[1]);
            if (keep.is_error()) return keep;
            if (keep.type() != Type::Bool) return not_bool(e.macro == Macro::Filter ? "filter()" : "map()", keep);
            if (!keep.as_bool()) continue;
          }
          if (e.macro == Macro::Filter) {
            out->push_back(var);
            continue;
          }
          Value t = eval(*e.args[e.macro == Macro::Map ? 1 : 2]);
          if (t.is_error()) return t;
          out->push_back(std::move(t));
        }
        return Value::list(std::move(out));
      }
    }
    return Value::error("unknown macro");
  }

  Value* slots_;
};

}  // namespace

Value evaluate(const Expr& e, Value* slots) { return Evaluator(slots).eval(e); }

}  // namespace cfo::validation::cel
