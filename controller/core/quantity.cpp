#include "core/quantity.hpp"

#include <algorithm>

#include "core/ascii.hpp"

namespace cfo {

namespace {
constexpr __int128 kMax = (static_cast<__int128>(1) << 126);

// v *= f (f >= 0), refused when |v * f| would pass kMax; no 128-bit division (a hot path: every quantity of a Pod).
bool mul(__int128& v, __int128 f) {
  __int128 product = 0;
  if (__builtin_mul_overflow(v, f, &product) || product > kMax || product < -kMax) return false;
  v = product;
  return true;
}
// What a suffix written the way other tools write sizes ("5g", "512MB", "1gib", "10K") most likely meant, as
// " (did you mean \"5G\" or \"5Gi\"?)"; empty when `number` is not a plain number or `suffix` is not such a spelling.
std::string suffix_hint(std::string_view number, std::string_view suffix) {
  if (number.empty() ||
      !std::all_of(number.begin(), number.end(), [](char c) { return ascii::is_digit(c) || c == '.'; }))
    return "";
  std::string lower;
  for (char c : suffix) lower += ascii::to_lower(c);
  if (lower.ends_with('b')) lower.pop_back();  // "mb", "gib"
  const bool binary = lower.size() == 2 && lower[1] == 'i';
  if (lower.empty() || lower.size() > 2 || (lower.size() == 2 && !binary)) return "";
  if (std::string_view("kmgtpe").find(lower[0]) == std::string_view::npos) return "";
  const char upper = static_cast<char>(lower[0] - 'a' + 'A');
  const std::string as_binary = std::string(number) + upper + "i";
  if (binary) return " (did you mean \"" + as_binary + "\"?)";
  const std::string as_decimal = std::string(number) + (lower[0] == 'k' ? 'k' : upper);
  if (as_decimal == std::string(number) + std::string(suffix)) return "";  // "5G" itself parses
  return " (did you mean \"" + as_decimal + "\" or \"" + as_binary + "\"?)";
}
}  // namespace

Result<Quantity> Quantity::parse(std::string_view s) {
  const std::string original(s);
  std::size_t i = 0;
  auto bad = [&] {
    return fail("\"" + original +
                "\" is not a quantity: expected a number with an optional suffix (Ki Mi Gi Ti Pi Ei, n u m k M G T P "
                "E) or exponent, e.g. 500m, 8Gi, 12G" +
                suffix_hint(s.substr(0, i), s.substr(i)));
  };
  if (s.empty()) return fail("\"\" is not a quantity (it is empty)");
  bool neg = false;
  if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
  std::string int_digits, frac_digits;
  while (i < s.size() && ascii::is_digit(s[i])) int_digits += s[i++];
  bool dot = false;
  if (i < s.size() && s[i] == '.') {
    dot = true;
    ++i;
    while (i < s.size() && ascii::is_digit(s[i])) frac_digits += s[i++];
  }
  if (int_digits.empty() && frac_digits.empty()) return bad();
  if (dot && int_digits.empty() && frac_digits.empty()) return bad();

  // Suffix.
  int exp10 = 0;
  int exp2 = 0;
  std::string_view suf = s.substr(i);
  if (suf.empty()) {
  } else if (suf.size() == 2 && suf[1] == 'i') {
    switch (suf[0]) {
      case 'K':
        exp2 = 10;
        break;
      case 'M':
        exp2 = 20;
        break;
      case 'G':
        exp2 = 30;
        break;
      case 'T':
        exp2 = 40;
        break;
      case 'P':
        exp2 = 50;
        break;
      case 'E':
        exp2 = 60;
        break;
      default:
        return bad();
    }
  } else if (suf.size() == 1 && std::string_view("numkMGTPE").find(suf[0]) != std::string_view::npos) {
    switch (suf[0]) {
      case 'n':
        exp10 = -9;
        break;
      case 'u':
        exp10 = -6;
        break;
      case 'm':
        exp10 = -3;
        break;
      case 'k':
        exp10 = 3;
        break;
      case 'M':
        exp10 = 6;
        break;
      case 'G':
        exp10 = 9;
        break;
      case 'T':
        exp10 = 12;
        break;
      case 'P':
        exp10 = 15;
        break;
      case 'E':
        exp10 = 18;
        break;
      default:  // not reached: the condition above admits only the suffixes listed
        return bad();
    }
  } else if (suf[0] == 'e' || suf[0] == 'E') {
    std::size_t j = 1;
    bool eneg = false;
    if (j < suf.size() && (suf[j] == '+' || suf[j] == '-')) eneg = suf[j++] == '-';
    std::string ed;
    while (j < suf.size() && ascii::is_digit(suf[j])) ed += suf[j++];
    // The CRD pattern also allows a fractional exponent, which apimachinery then rejects; so do we.
    if (ed.empty() || j != suf.size() || ed.size() > 4) return bad();
    exp10 = std::stoi(ed) * (eneg ? -1 : 1);
  } else {
    return bad();
  }

  // mantissa = int_digits.frac_digits ; value_nanos = mantissa * 10^(exp10 + 9) * 2^exp2, rounded up.
  std::string digits = int_digits + frac_digits;
  int scale = exp10 + 9 - static_cast<int>(frac_digits.size());
  // Strip leading zeros to keep the number small.
  std::size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  if (digits.size() > 36) return fail("\"" + original + "\" is too large for a quantity");
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (!mul(v, static_cast<__int128>(1) << 0)) return fail("\"" + original + "\" is too large for a quantity");
  for (int k = 0; k < exp2; ++k)
    if (!mul(v, 2)) return fail("\"" + original + "\" is too large for a quantity");
  if (scale >= 0) {
    for (int k = 0; k < scale; ++k)
      if (!mul(v, 10)) return fail("\"" + original + "\" is too large for a quantity");
  } else {
    bool remainder = false;
    for (int k = 0; k < -scale && v != 0; ++k) {
      if (v % 10 != 0) remainder = true;
      v /= 10;
    }
    if (remainder) v += 1;  // round up to the nearest nano-unit, as apimachinery does
  }
  Quantity q;
  q.nanos_ = neg ? -v : v;
  q.text_ = original;
  return q;
}

int64_t Quantity::milli_value() const {
  __int128 m = nanos_ / 1000000;
  if (nanos_ > 0 && nanos_ % 1000000 != 0) m += 1;
  return static_cast<int64_t>(m);
}

int64_t Quantity::value() const {
  __int128 u = nanos_ / 1000000000;
  if (nanos_ > 0 && nanos_ % 1000000000 != 0) u += 1;
  return static_cast<int64_t>(u);
}

bool Quantity::is_integer() const { return nanos_ % 1000000000 == 0; }

namespace {
constexpr __int128 kNanosPerUnit = 1'000'000'000;

std::string int128_text(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  if (negative) v = -v;
  std::string s;
  while (v > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

}  // namespace

std::string Quantity::format_nanos(__int128 n, bool binary_suffixes) {
  if (n % kNanosPerUnit != 0) {
    if (n % 1'000'000 == 0) return int128_text(n / 1'000'000) + "m";
    return int128_text(n) + "n";
  }
  const __int128 whole = n / kNanosPerUnit;
  std::string best = int128_text(whole);
  if (whole == 0) return best;
  // A suffix is used for a round value (a mantissa below 10000), where it reads better than the digits; for a value
  // of ten digits or more, which reads badly as digits, a mantissa below 10^6 is round enough ("999999Ti", not
  // "1099510526525767680"; but "8536870912", not "8336788Ki").
  const __int128 round_below = best.size() >= 10 ? 1'000'000 : 10'000;
  auto consider = [&](__int128 mantissa, const char* suffix) {
    std::string text = int128_text(mantissa) + suffix;
    if (mantissa < round_below && text.size() < best.size()) best = std::move(text);
  };
  __int128 power = 1;
  for (const char* suffix : {"k", "M", "G", "T", "P", "E"}) {
    power *= 1000;
    if (whole % power == 0) consider(whole / power, suffix);
  }
  if (!binary_suffixes) return best;
  power = 1;
  for (const char* suffix : {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}) {
    power *= 1024;
    if (whole % power == 0) consider(whole / power, suffix);
  }
  return best;
}

}  // namespace cfo
