#pragma once
// CEL lexer: rule text -> tokens. Knows CEL's literal syntax (decimal and hex integers, `u` suffixes, doubles with
// fraction or exponent, single/double/triple-quoted and raw strings with CEL's escapes) and its operators.
// Bytes literals and the optional-syntax tokens (`.?`, `[?`) are recognised only to be refused.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace cfo::validation::cel {

enum class TokenKind : std::uint8_t {
  End,     ///< end of the text
  Ident,   ///< identifier or keyword (true, false, null, in, ...)
  Int,     ///< integer literal without `u`; `number` holds the magnitude (a leading `-` is an operator)
  Uint,    ///< integer literal with `u`
  Double,  ///< floating-point literal
  String,  ///< string literal, escapes decoded
  Op,      ///< operator or punctuation: == != <= >= && || < > ! ? : + - * / % . , ( ) [ ] { }
};

/// One token. `text` views the rule text (the identifier or operator spelling); `pos` is its byte offset.
struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  std::size_t pos = 0;
  std::uint64_t number = 0;  ///< Int / Uint value (magnitude)
  double dbl = 0;            ///< Double value
  std::string str;           ///< String value, decoded
};

/// Splits `src` into tokens, ending with one End token. Errors name the byte offset: an unterminated string, an
/// unknown character, a malformed number or escape, a bytes literal or optional syntax (not in the subset).
Result<std::vector<Token>> lex(std::string_view src);

}  // namespace cfo::validation::cel
