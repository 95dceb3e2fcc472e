#include "validation/cel/functions.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace cfo::validation::cel {

namespace {

struct Signature {
  std::string_view name;
  bool receiver_style;
  std::size_t min_arity;
  std::size_t max_arity;
  Builtin fn;
};

constexpr Signature kSignatures[] = {
    {"size", false, 1, 1, Builtin::Size},
    {"size", true, 0, 0, Builtin::Size},
    {"startsWith", true, 1, 1, Builtin::StartsWith},
    {"endsWith", true, 1, 1, Builtin::EndsWith},
    {"contains", true, 1, 1, Builtin::Contains},
    {"matches", true, 1, 1, Builtin::Matches},
    {"matches", false, 2, 2, Builtin::Matches},
    {"lowerAscii", true, 0, 0, Builtin::LowerAscii},
    {"upperAscii", true, 0, 0, Builtin::UpperAscii},
    {"trim", true, 0, 0, Builtin::Trim},
    {"join", true, 0, 1, Builtin::Join},
    {"int", false, 1, 1, Builtin::ToInt},
    {"uint", false, 1, 1, Builtin::ToUint},
    {"double", false, 1, 1, Builtin::ToDouble},
    {"string", false, 1, 1, Builtin::ToString},
    {"bool", false, 1, 1, Builtin::ToBool},
    {"dyn", false, 1, 1, Builtin::Dyn},
};

Value no_overload(std::string_view fn, std::span<const Value> args) {
  std::string sig;
  for (const auto& a : args) sig += (sig.empty() ? "" : ", ") + std::string(type_name(a.type()));
  return Value::error("no matching overload for " + std::string(fn) + "(" + sig + ")");
}

bool is_string(const Value& v) { return v.type() == Type::String; }

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

Value to_int(const Value& v) {
  switch (v.type()) {
    case Type::Int:
      return v;
    case Type::Uint:
      if (v.as_uint() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value::error("int() overflow");
      return Value::integer(static_cast<std::int64_t>(v.as_uint()));
    case Type::Double: {
      const double d = v.as_double();
      // Range check against 2^63 exactly; NaN fails both comparisons.
      if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return Value::error("int() overflow");
      return Value::integer(static_cast<std::int64_t>(d));
    }
    case Type::String: {
      std::string_view s = v.as_string();
      std::int64_t out = 0;
      const char* b = s.data();
      if (!s.empty() && s[0] == '+') ++b;
      auto [p, ec] = std::from_chars(b, s.data() + s.size(), out, 10);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        return Value::error("cannot convert string '" + std::string(s) + "' to int");
      return Value::integer(out);
    }
    default:
      return no_overload("int", std::span<const Value>(&v, 1));
  }
}

Value to_uint(const Value& v) {
  switch (v.type()) {
    case Type::Uint:
      return v;
    case Type::Int:
      if (v.as_int() < 0) return Value::error("uint() overflow");
      return Value::uinteger(static_cast<std::uint64_t>(v.as_int()));
    case Type::Double: {
      const double d = v.as_double();
      if (!(d > -1.0 && d < 18446744073709551616.0)) return Value::error("uint() overflow");
      return Value::uinteger(static_cast<std::uint64_t>(d));
    }
    case Type::String: {
      std::string_view s = v.as_string();
      std::uint64_t out = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        return Value::error("cannot convert string '" + std::string(s) + "' to uint");
      return Value::uinteger(out);
    }
    default:
      return no_overload("uint", std::span<const Value>(&v, 1));
  }
}

Value to_double(const Value& v) {
  switch (v.type()) {
    case Type::Double:
      return v;
    case Type::Int:
      return Value::dbl(static_cast<double>(v.as_int()));
    case Type::Uint:
      return Value::dbl(static_cast<double>(v.as_uint()));
    case Type::String: {
      std::string_view s = v.as_string();
      double out = 0;
      const char* b = s.data();
      if (!s.empty() && s[0] == '+') ++b;
      auto [p, ec] = std::from_chars(b, s.data() + s.size(), out);
      if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        return Value::error("cannot convert string '" + std::string(s) + "' to double");
      return Value::dbl(out);
    }
    default:
      return no_overload("double", std::span<const Value>(&v, 1));
  }
}

Value to_string(const Value& v) {
  switch (v.type()) {
    case Type::String:
      return v;
    case Type::Bool:
      return Value::borrowed_string(v.as_bool() ? "true" : "false");
    case Type::Int:
      return Value::owned_string(std::to_string(v.as_int()));
    case Type::Uint:
      return Value::owned_string(std::to_string(v.as_uint()));
    case Type::Double: {
      char buf[64];
      auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v.as_double());
      return Value::owned_string(ec == std::errc() ? std::string(buf, p) : std::string("NaN"));
    }
    default:
      return no_overload("string", std::span<const Value>(&v, 1));
  }
}

Value to_bool(const Value& v) {
  if (v.type() == Type::Bool) return v;
  if (v.type() != Type::String) return no_overload("bool", std::span<const Value>(&v, 1));
  const std::string_view s = v.as_string();
  if (s == "true" || s == "True" || s == "TRUE" || s == "t" || s == "T" || s == "1") return Value::boolean(true);
  if (s == "false" || s == "False" || s == "FALSE" || s == "f" || s == "F" || s == "0") return Value::boolean(false);
  return Value::error("cannot convert string '" + std::string(s) + "' to bool");
}

Value ascii_case(const Value& v, bool upper) {
  std::string out(v.as_string());
  for (char& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return Value::owned_string(std::move(out));
}

Value trim(const Value& v) {
  std::string_view s = v.as_string();
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return Value::owned_string(std::string(s));
}

Value join(std::span<const Value> args) {
  const Value& list = args[0];
  if (list.type() != Type::List || (args.size() == 2 && !is_string(args[1]))) return no_overload("join", args);
  const std::string_view sep = args.size() == 2 ? args[1].as_string() : std::string_view();
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Value item = list.list_at(i);
    if (!is_string(item))
      return Value::error("join() needs a list of strings, found " + std::string(type_name(item.type())));
    if (i > 0) out += sep;
    out += item.as_string();
  }
  return Value::owned_string(std::move(out));
}

Value matches(const Value& subject, const Value& pattern, const Regex* precompiled) {
  if (!is_string(subject) || !is_string(pattern)) {
    const Value both[] = {subject, pattern};
    return no_overload("matches", both);
  }
  std::shared_ptr<const Regex> compiled;
  if (!precompiled) {
    auto r = compile_regex(pattern.as_string());
    if (!r)
      return Value::error("invalid regular expression '" + std::string(pattern.as_string()) +
                          "': " + r.error().message);
    compiled = std::move(*r);
    precompiled = compiled.get();
  }
  return Value::boolean(precompiled->search(subject.as_string()));
}

}  // namespace

Builtin find_builtin(std::string_view name, bool receiver_style, std::size_t arity) {
  for (const auto& s : kSignatures)
    if (s.name == name && s.receiver_style == receiver_style && arity >= s.min_arity && arity <= s.max_arity)
      return s.fn;
  return Builtin::None;
}

Result<std::shared_ptr<const Regex>> compile_regex(std::string_view p) { return Regex::compile(p); }

Value call_builtin(Builtin fn, std::span<const Value> args, const Regex* regex) {
  switch (fn) {
    case Builtin::Size: {
      const Value& v = args[0];
      if (v.type() == Type::String) return Value::integer(static_cast<std::int64_t>(code_points(v.as_string())));
      if (v.type() == Type::List || v.type() == Type::Map) return Value::integer(static_cast<std::int64_t>(v.size()));
      return no_overload("size", args);
    }
    case Builtin::StartsWith:
      if (!is_string(args[0]) || !is_string(args[1])) return no_overload("startsWith", args);
      return Value::boolean(args[0].as_string().starts_with(args[1].as_string()));
    case Builtin::EndsWith:
      if (!is_string(args[0]) || !is_string(args[1])) return no_overload("endsWith", args);
      return Value::boolean(args[0].as_string().ends_with(args[1].as_string()));
    case Builtin::Contains:
      if (!is_string(args[0]) || !is_string(args[1])) return no_overload("contains", args);
      return Value::boolean(args[0].as_string().find(args[1].as_string()) != std::string_view::npos);
    case Builtin::Matches:
      return matches(args[0], args[1], regex);
    case Builtin::LowerAscii:
    case Builtin::UpperAscii:
      if (!is_string(args[0])) return no_overload(fn == Builtin::LowerAscii ? "lowerAscii" : "upperAscii", args);
      return ascii_case(args[0], fn == Builtin::UpperAscii);
    case Builtin::Trim:
      if (!is_string(args[0])) return no_overload("trim", args);
      return trim(args[0]);
    case Builtin::Join:
      return join(args);
    case Builtin::ToInt:
      return to_int(args[0]);
    case Builtin::ToUint:
      return to_uint(args[0]);
    case Builtin::ToDouble:
      return to_double(args[0]);
    case Builtin::ToString:
      return to_string(args[0]);
    case Builtin::ToBool:
      return to_bool(args[0]);
    case Builtin::Dyn:
      return args[0];
    case Builtin::None:
      break;
  }
  return Value::error("unknown function");
}

}  // namespace cfo::validation::cel
