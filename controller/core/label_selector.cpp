#include "core/label_selector.hpp"

#include <cctype>
#include <cstdint>
#include <optional>

#include "core/names.hpp"

namespace cfo::names {

namespace {

enum class Tok { kIdent, kNot, kEq, kDoubleEq, kNotEq, kOpen, kClose, kComma, kGt, kLt, kEnd };

struct Token {
  Tok kind;
  std::string text;
};

bool is_special(char c) { return c == '!' || c == '=' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>'; }

/// Splits the selector into tokens; identifiers are runs of anything but whitespace and the special characters.
std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '!' && i + 1 < s.size() && s[i + 1] == '=') {
      out.push_back({Tok::kNotEq, "!="}), i += 2;
    } else if (c == '=' && i + 1 < s.size() && s[i + 1] == '=') {
      out.push_back({Tok::kDoubleEq, "=="}), i += 2;
    } else if (is_special(c)) {
      static constexpr std::pair<char, Tok> kSingle[] = {{'!', Tok::kNot},   {'=', Tok::kEq},    {'(', Tok::kOpen},
                                                         {')', Tok::kClose}, {',', Tok::kComma}, {'<', Tok::kLt},
                                                         {'>', Tok::kGt}};
      for (auto [ch, kind] : kSingle)
        if (ch == c) out.push_back({kind, std::string(1, c)});
      ++i;
    } else {
      std::size_t end = i;
      while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && !is_special(s[end])) ++end;
      out.push_back({Tok::kIdent, std::string(s.substr(i, end - i))});
      i = end;
    }
  }
  out.push_back({Tok::kEnd, "the end"});
  return out;
}

bool is_integer(const std::string& s) {
  std::size_t i = s.size() > 1 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return s.size() <= 19;
}

class Checker {
 public:
  explicit Checker(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  std::vector<std::string> run() {
    if (t_[0].kind == Tok::kEnd) return {};
    for (;;) {
      ++n_;
      if (!requirement()) return errs_;
      if (peek() == Tok::kEnd) return errs_;
      if (peek() != Tok::kComma) {
        fail("expected \",\" before \"" + t_[pos_].text + "\"");
        return errs_;
      }
      ++pos_;
    }
  }

 private:
  Tok peek() const { return t_[pos_].kind; }

  /// Records a syntax error of the current requirement; returns false so callers can stop with it.
  bool fail(const std::string& why) {
    errs_.push_back("requirement " + std::to_string(n_) + ": " + why);
    return false;
  }

  void key(const std::string& k) {
    for (const auto& e : qualified_name(k))
      errs_.push_back("requirement " + std::to_string(n_) + ": key \"" + k + "\": " + e);
  }

  void value(const std::string& v) {
    for (const auto& e : label_value(v))
      errs_.push_back("requirement " + std::to_string(n_) + ": value \"" + v + "\": " + e);
  }

  bool requirement() {
    if (peek() == Tok::kNot) {
      ++pos_;
      if (peek() != Tok::kIdent) return fail("expected a label key after \"!\"");
      key(t_[pos_++].text);
      return true;
    }
    if (peek() != Tok::kIdent) return fail("expected a label key, found \"" + t_[pos_].text + "\"");
    key(t_[pos_++].text);
    switch (peek()) {
      case Tok::kEnd:
      case Tok::kComma:
        return true;  // the label exists
      case Tok::kEq:
      case Tok::kDoubleEq:
      case Tok::kNotEq:
        ++pos_;
        if (peek() == Tok::kIdent) value(t_[pos_++].text);  // else an empty value
        return true;
      case Tok::kGt:
      case Tok::kLt:
        ++pos_;
        if (peek() != Tok::kIdent || !is_integer(t_[pos_].text)) return fail("\">\" and \"<\" need an integer");
        ++pos_;
        return true;
      case Tok::kIdent:
        if (t_[pos_].text == "in" || t_[pos_].text == "notin") return set(t_[pos_++].text);
        [[fallthrough]];
      default:
        return fail("expected an operator (=, ==, !=, in, notin, >, <) after the key, found \"" + t_[pos_].text + "\"");
    }
  }

  bool set(const std::string& op) {
    if (peek() != Tok::kOpen) return fail("expected \"(\" after \"" + op + "\"");
    ++pos_;
    for (;;) {
      if (peek() == Tok::kIdent) {
        value(t_[pos_++].text);
      }
      if (peek() == Tok::kClose) break;
      if (peek() != Tok::kComma) return fail("expected \",\" or \")\" in the values of \"" + op + "\"");
      ++pos_;
    }
    ++pos_;  // "in ()" is allowed: the apiserver reads an empty list as the one empty value
    return true;
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  int n_ = 0;
  std::vector<std::string> errs_;
};

}  // namespace

std::vector<std::string> label_selector(std::string_view selector) { return Checker(tokenize(selector)).run(); }

}  // namespace cfo::names
