#include "validation/cel/lexer.hpp"

#include <charconv>
#include <limits>

namespace cfo::validation::cel {

namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

std::unexpected<Error> at(std::size_t pos, const std::string& what) {
  return fail("at offset " + std::to_string(pos) + ": " + what);
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : s_(src) {}

  Result<std::vector<Token>> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.pos = i_;
      if (i_ >= s_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      const char c = s_[i_];
      // A leading-dot double (".5") may follow an operator, never an operand or a closing bracket.
      const bool number_may_start = out.empty() || (out.back().kind == TokenKind::Op && out.back().text != ")" &&
                                                    out.back().text != "]" && out.back().text != "}");
      if (is_ident_start(c)) {
        std::size_t j = i_;
        while (j < s_.size() && (is_ident_start(s_[j]) || is_digit(s_[j]))) ++j;
        std::string_view word = s_.substr(i_, j - i_);
        if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'')) {
          if (word == "r" || word == "R") {
            i_ = j;
            if (auto r = string_literal(t, true); !r) return std::unexpected(r.error());
            out.push_back(std::move(t));
            continue;
          }
          if (word == "b" || word == "B" || word == "rb" || word == "br" || word == "RB" || word == "BR" ||
              word == "Rb" || word == "bR" || word == "rB" || word == "Br")
            return at(i_, "bytes literals are not in the supported subset");
        }
        t.kind = TokenKind::Ident;
        t.text = word;
        i_ = j;
      } else if (is_digit(c) || (c == '.' && number_may_start && i_ + 1 < s_.size() && is_digit(s_[i_ + 1]))) {
        if (auto r = number(t); !r) return std::unexpected(r.error());
      } else if (c == '"' || c == '\'') {
        if (auto r = string_literal(t, false); !r) return std::unexpected(r.error());
      } else {
        if (auto r = op(t); !r) return std::unexpected(r.error());
      }
      out.push_back(std::move(t));
    }
  }

 private:
  void skip_space() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  Result<void> number(Token& t) {
    const std::size_t start = i_;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      std::size_t j = i_ + 2;
      while (j < s_.size() && is_hex(s_[j])) ++j;
      if (j == i_ + 2) return at(start, "a hex literal needs digits");
      auto [p, ec] = std::from_chars(s_.data() + i_ + 2, s_.data() + j, t.number, 16);
      if (ec != std::errc()) return at(start, "integer literal out of range");
      i_ = j;
      t.kind = TokenKind::Int;
    } else {
      std::size_t j = i_;
      while (j < s_.size() && is_digit(s_[j])) ++j;
      bool is_double = false;
      if (j + 1 < s_.size() && s_[j] == '.' && is_digit(s_[j + 1])) {
        is_double = true;
        ++j;
        while (j < s_.size() && is_digit(s_[j])) ++j;
      }
      if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (k >= s_.size() || !is_digit(s_[k])) return at(start, "malformed exponent");
        while (k < s_.size() && is_digit(s_[k])) ++k;
        is_double = true;
        j = k;
      }
      if (is_double) {
        auto [p, ec] = std::from_chars(s_.data() + i_, s_.data() + j, t.dbl);
        if (ec != std::errc() || p != s_.data() + j) return at(start, "malformed floating-point literal");
        t.kind = TokenKind::Double;
        i_ = j;
        t.text = s_.substr(start, i_ - start);
        return {};
      }
      auto [p, ec] = std::from_chars(s_.data() + i_, s_.data() + j, t.number, 10);
      if (ec != std::errc()) return at(start, "integer literal out of range");
      i_ = j;
      t.kind = TokenKind::Int;
    }
    if (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U')) {
      t.kind = TokenKind::Uint;
      ++i_;
    }
    if (i_ < s_.size() && (is_ident_start(s_[i_]) || is_digit(s_[i_]))) return at(start, "malformed number literal");
    t.text = s_.substr(start, i_ - start);
    return {};
  }

  Result<void> string_literal(Token& t, bool raw) {
    const std::size_t start = i_;
    const char q = s_[i_];
    const bool triple = i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q;
    i_ += triple ? 3 : 1;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) return at(start, "unterminated string literal");
      const char c = s_[i_];
      if (c == q) {
        if (!triple) {
          ++i_;
          break;
        }
        if (i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q) {
          i_ += 3;
          break;
        }
      }
      if (!triple && (c == '\n' || c == '\r')) return at(i_, "newline in a string literal");
      if (c == '\\' && !raw) {
        if (auto r = escape(out); !r) return r;
        continue;
      }
      out += c;
      ++i_;
    }
    t.kind = TokenKind::String;
    t.str = std::move(out);
    t.text = s_.substr(start, i_ - start);
    return {};
  }

  Result<void> escape(std::string& out) {
    const std::size_t start = i_;
    if (i_ + 1 >= s_.size()) return at(start, "unterminated escape sequence");
    const char e = s_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'a':
        out += '\a';
        return {};
      case 'b':
        out += '\b';
        return {};
      case 'f':
        out += '\f';
        return {};
      case 'n':
        out += '\n';
        return {};
      case 'r':
        out += '\r';
        return {};
      case 't':
        out += '\t';
        return {};
      case 'v':
        out += '\v';
        return {};
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out += e;
        return {};
      case 'x':
      case 'X':
      case 'u':
      case 'U': {
        const std::size_t n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
        if (i_ + n > s_.size()) return at(start, "short escape sequence");
        std::uint32_t cp = 0;
        for (std::size_t k = 0; k < n; ++k) {
          if (!is_hex(s_[i_ + k])) return at(start, "malformed escape sequence");
          cp = cp * 16 + static_cast<std::uint32_t>(hex_value(s_[i_ + k]));
        }
        i_ += n;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return at(start, "invalid code point in escape");
        append_utf8(out, cp);
        return {};
      }
      default:
        if (e >= '0' && e <= '3') {
          if (i_ + 2 > s_.size() || s_[i_] < '0' || s_[i_] > '7' || s_[i_ + 1] < '0' || s_[i_ + 1] > '7')
            return at(start, "malformed octal escape");
          const std::uint32_t cp = static_cast<std::uint32_t>((e - '0') * 64 + (s_[i_] - '0') * 8 + (s_[i_ + 1] - '0'));
          i_ += 2;
          append_utf8(out, cp);
          return {};
        }
        return at(start, std::string("unknown escape sequence \\") + e);
    }
  }

  Result<void> op(Token& t) {
    static constexpr std::string_view kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
    const std::size_t start = i_;
    if (i_ + 1 < s_.size()) {
      std::string_view two = s_.substr(i_, 2);
      if (two == ".?" || two == "[?") return at(start, "optional syntax (" + std::string(two) + ") is not supported");
      for (auto k : kTwo)
        if (two == k) {
          t.kind = TokenKind::Op;
          t.text = two;
          i_ += 2;
          return {};
        }
    }
    static constexpr std::string_view kOne = "<>!?:+-*/%.,()[]{}";
    if (kOne.find(s_[i_]) == std::string_view::npos) {
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      return at(start, c >= 0x20 && c < 0x7F ? std::string("unexpected character '") + s_[i_] + "'"
                                             : "unexpected byte " + std::to_string(c));
    }
    t.kind = TokenKind::Op;
    t.text = s_.substr(i_, 1);
    ++i_;
    return {};
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

Result<std::vector<Token>> lex(std::string_view src) { return Lexer(src).run(); }

}  // namespace cfo::validation::cel
