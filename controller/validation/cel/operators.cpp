#include "validation/cel/operators.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace cfo::validation::cel {

namespace {

bool is_number(Type t) { return t == Type::Int || t == Type::Uint || t == Type::Double; }

const char* op_text(Op op) {
  switch (op) {
    case Op::Lt:
      return "<";
    case Op::Le:
      return "<=";
    case Op::Gt:
      return ">";
    case Op::Ge:
      return ">=";
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    case Op::Mod:
      return "%";
    default:
      return "?";
  }
}

Value no_overload(Op op, const Value& a, const Value& b) {
  return Value::error(std::string("no matching overload for '") + op_text(op) + "' applied to (" + type_name(a.type()) +
                      ", " + type_name(b.type()) + ")");
}

/// -1, 0 or 1 for two numbers; 2 when they are unordered (a NaN). long double holds every int64 and uint64 exactly
/// on the platforms we build for, so mixed comparisons are exact.
int numeric_cmp(const Value& a, const Value& b) {
  auto as_long_double = [](const Value& v) -> long double {
    switch (v.type()) {
      case Type::Int:
        return static_cast<long double>(v.as_int());
      case Type::Uint:
        return static_cast<long double>(v.as_uint());
      default:
        return static_cast<long double>(v.as_double());
    }
  };
  if (a.type() == Type::Int && b.type() == Type::Int) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int();
  if (a.type() == Type::Uint && b.type() == Type::Uint)
    return a.as_uint() < b.as_uint() ? -1 : a.as_uint() > b.as_uint();
  const long double x = as_long_double(a), y = as_long_double(b);
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool deep_equal(const Value& a, const Value& b);

bool lists_equal(const Value& a, const Value& b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const bool unordered = a.list_type() != "atomic" || b.list_type() != "atomic";
  if (!unordered) {
    for (std::size_t i = 0; i < n; ++i)
      if (!deep_equal(a.list_at(i), b.list_at(i))) return false;
    return true;
  }
  std::vector<bool> used(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Value x = a.list_at(i);
    bool found = false;
    for (std::size_t j = 0; j < n && !found; ++j)
      if (!used[j] && deep_equal(x, b.list_at(j))) used[j] = found = true;
    if (!found) return false;
  }
  return true;
}

bool maps_equal(const Value& a, const Value& b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const Value key = a.map_key_at(i);
    Value av, bv;
    if (!a.map_find(key, av) || !b.map_find(key, bv) || !deep_equal(av, bv)) return false;
  }
  return true;
}

bool deep_equal(const Value& a, const Value& b) {
  if (is_number(a.type()) && is_number(b.type())) return numeric_cmp(a, b) == 0;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Null:
      return true;
    case Type::Bool:
      return a.as_bool() == b.as_bool();
    case Type::String:
      return a.as_string() == b.as_string();
    case Type::List:
      return lists_equal(a, b);
    case Type::Map:
      return maps_equal(a, b);
    default:
      return false;
  }
}

template <class T>
Value checked(bool overflow, T result, Type type) {
  if (overflow) return Value::error(type == Type::Int ? "int overflow" : "uint overflow");
  if constexpr (std::is_same_v<T, std::int64_t>) return Value::integer(result);
  return Value::uinteger(result);
}

}  // namespace

Value equals(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  return Value::boolean(deep_equal(a, b));
}

Value compare(Op op, const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  int c = 0;
  if (is_number(a.type()) && is_number(b.type())) {
    c = numeric_cmp(a, b);
    if (c == 2) return Value::boolean(false);
  } else if (a.type() == Type::String && b.type() == Type::String) {
    const int r = a.as_string().compare(b.as_string());
    c = r < 0 ? -1 : (r > 0 ? 1 : 0);
  } else if (a.type() == Type::Bool && b.type() == Type::Bool) {
    c = static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool());
  } else {
    return no_overload(op, a, b);
  }
  switch (op) {
    case Op::Lt:
      return Value::boolean(c < 0);
    case Op::Le:
      return Value::boolean(c <= 0);
    case Op::Gt:
      return Value::boolean(c > 0);
    case Op::Ge:
      return Value::boolean(c >= 0);
    default:
      return no_overload(op, a, b);
  }
}

Value contains(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  if (b.type() == Type::List) {
    for (std::size_t i = 0; i < b.size(); ++i)
      if (deep_equal(a, b.list_at(i))) return Value::boolean(true);
    return Value::boolean(false);
  }
  if (b.type() == Type::Map) {
    Value ignored;
    return Value::boolean(b.map_find(a, ignored));
  }
  return Value::error(std::string("no matching overload for 'in' applied to (") + type_name(a.type()) + ", " +
                      type_name(b.type()) + ")");
}

Value arithmetic(Op op, const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  if (a.type() == Type::Int && b.type() == Type::Int) {
    const std::int64_t x = a.as_int(), y = b.as_int();
    std::int64_t r = 0;
    switch (op) {
      case Op::Add: {
        const bool overflow = __builtin_add_overflow(x, y, &r);
        return checked(overflow, r, Type::Int);
      }
      case Op::Sub: {
        const bool overflow = __builtin_sub_overflow(x, y, &r);
        return checked(overflow, r, Type::Int);
      }
      case Op::Mul: {
        const bool overflow = __builtin_mul_overflow(x, y, &r);
        return checked(overflow, r, Type::Int);
      }
      case Op::Div:
        if (y == 0) return Value::error("division by zero");
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1) return Value::error("int overflow");
        return Value::integer(x / y);
      case Op::Mod:
        if (y == 0) return Value::error("modulus by zero");
        if (y == -1) return Value::integer(0);
        return Value::integer(x % y);
      default:
        break;
    }
  } else if (a.type() == Type::Uint && b.type() == Type::Uint) {
    const std::uint64_t x = a.as_uint(), y = b.as_uint();
    std::uint64_t r = 0;
    switch (op) {
      case Op::Add: {
        const bool overflow = __builtin_add_overflow(x, y, &r);
        return checked(overflow, r, Type::Uint);
      }
      case Op::Sub: {
        const bool overflow = __builtin_sub_overflow(x, y, &r);
        return checked(overflow, r, Type::Uint);
      }
      case Op::Mul: {
        const bool overflow = __builtin_mul_overflow(x, y, &r);
        return checked(overflow, r, Type::Uint);
      }
      case Op::Div:
        if (y == 0) return Value::error("division by zero");
        return Value::uinteger(x / y);
      case Op::Mod:
        if (y == 0) return Value::error("modulus by zero");
        return Value::uinteger(x % y);
      default:
        break;
    }
  } else if (a.type() == Type::Double && b.type() == Type::Double) {
    const double x = a.as_double(), y = b.as_double();
    switch (op) {
      case Op::Add:
        return Value::dbl(x + y);
      case Op::Sub:
        return Value::dbl(x - y);
      case Op::Mul:
        return Value::dbl(x * y);
      case Op::Div:
        return Value::dbl(x / y);
      default:
        break;
    }
  } else if (op == Op::Add && a.type() == Type::String && b.type() == Type::String) {
    std::string s;
    s.reserve(a.as_string().size() + b.as_string().size());
    s.append(a.as_string()).append(b.as_string());
    return Value::owned_string(std::move(s));
  } else if (op == Op::Add && a.type() == Type::List && b.type() == Type::List) {
    auto items = std::make_shared<ValueList>();
    items->reserve(a.size() + b.size());
    for (std::size_t i = 0; i < a.size(); ++i) items->push_back(a.list_at(i));
    for (std::size_t i = 0; i < b.size(); ++i) items->push_back(b.list_at(i));
    return Value::list(std::move(items));
  }
  return no_overload(op, a, b);
}

Value negate(const Value& a) {
  if (a.is_error()) return a;
  if (a.type() == Type::Int) {
    if (a.as_int() == std::numeric_limits<std::int64_t>::min()) return Value::error("int overflow");
    return Value::integer(-a.as_int());
  }
  if (a.type() == Type::Double) return Value::dbl(-a.as_double());
  return Value::error(std::string("no matching overload for '-' applied to (") + type_name(a.type()) + ")");
}

}  // namespace cfo::validation::cel
