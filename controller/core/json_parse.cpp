// cfo::json::parse: JSON text to a Document, with numbers converted by std::from_chars.
//
// Why not RapidJSON's own number conversion: RapidJSON 1.1.0 with kParseFullPrecisionFlag reads out of bounds
// for some inputs (e.g. 5.777777771777e-337: SEGV in GetCachedPowerByIndex), and without the flag its result can be
// off by a few ULPs. So the reader hands every number over as text (kParseNumbersAsStringsFlag: no conversion runs
// inside RapidJSON, only digit scanning and its exponent range check), and NumberConverter turns the text into a
// value here with std::from_chars, which is exact (correctly rounded, like Go's strconv) and bounded for any input.
// The reader runs iteratively and the handler refuses nesting beyond kMaxJsonDepth, so that neither parsing nor what
// walks the document afterwards (destruction, serialisation, validation) can exhaust the stack.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cstdint>
#include <system_error>

#include "core/json.hpp"

namespace cfo::json {

namespace {

/// A SAX handler that forwards every event to the Document being built, converting number text:
///   -?[0-9]+ that fits int64 -> int64; non-negative up to 2^64-1 -> uint64 (as RapidJSON and the YAML conversion
///   keep them); any other number (a fraction, an exponent, or an integer beyond uint64) -> double.
/// A number whose magnitude is too large for a double is an error; one too small reads as (signed) zero, as Go's
/// strconv.ParseFloat rounds it.
class NumberConverter {
 public:
  explicit NumberConverter(Document& doc) : doc_(doc) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool StartObject() { return enter() && doc_.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool EndObject(rapidjson::SizeType members) { return --depth_, doc_.EndObject(members); }
  bool StartArray() { return enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return --depth_, doc_.EndArray(elements); }

  /// Why the handler stopped the reader, or nullptr.
  const char* refusal() const { return refusal_; }

  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    const char* end = s + n;
    bool integral = true;
    for (const char* p = s; p != end; ++p)
      if (*p == '.' || *p == 'e' || *p == 'E') integral = false;
    if (integral) {
      if (*s == '-') {
        int64_t i = 0;
        if (auto r = std::from_chars(s, end, i); r.ec == std::errc() && r.ptr == end) return doc_.Int64(i);
      } else {
        uint64_t u = 0;
        if (auto r = std::from_chars(s, end, u); r.ec == std::errc() && r.ptr == end) return doc_.Uint64(u);
      }
    }
    double d = 0;
    auto r = std::from_chars(s, end, d);
    if (r.ec == std::errc::result_out_of_range && tiny(s, end)) {
      d = *s == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != end) {
      refusal_ = "number too big to be stored in a double";
      return false;
    }
    return doc_.Double(d);
  }

 private:
  bool enter() {
    if (++depth_ <= kMaxJsonDepth) return true;
    refusal_ = "nested deeper than 1000 levels";
    return false;
  }

  /// True when the out-of-range number [s, end) is one of tiny magnitude (a negative exponent beyond the denormals).
  static bool tiny(const char* s, const char* end) {
    for (const char* p = s; p != end; ++p)
      if (*p == 'e' || *p == 'E') return p + 1 != end && p[1] == '-';
    return false;
  }

  Document& doc_;
  int depth_ = 0;
  const char* refusal_ = nullptr;
};

}  // namespace

Result<Document> parse(std::string_view text) {
  Document d;
  rapidjson::ParseResult result;
  const char* refusal = nullptr;
  // Populate runs the generator with the document as its handler and keeps the root value when it returns true.
  auto generator = [&](Document& handler) {
    rapidjson::MemoryStream ms(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> is(ms);
    rapidjson::Reader reader;
    NumberConverter converter(handler);
    // Iterative: the reader keeps its own stack, so no input can exhaust the call stack. (A named constant: with the
    // flags spelled inside Parse<...>, clang-format 19 reads the `<` as a comparison.)
    constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag;
    result = reader.Parse<kFlags>(is, converter);
    refusal = converter.refusal();
    return !result.IsError();
  };
  d.Populate(generator);
  if (result.Code() == rapidjson::kParseErrorTermination && refusal)
    return fail("invalid JSON at offset " + std::to_string(result.Offset()) + ": " + refusal);
  if (result.IsError())
    return fail("invalid JSON at offset " + std::to_string(result.Offset()) + ": " +
                rapidjson::GetParseError_En(result.Code()));
  return d;
}

}  // namespace cfo::json
