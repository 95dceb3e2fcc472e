// CEL (validation/cel): the first line of the input is a rule, the rest the JSON value of self (null when it is not
// JSON). The rule is compiled and, when it compiles, evaluated with self, and with self as oldSelf too.
#include "core/json.hpp"
#include "fuzz_support.hpp"
#include "validation/cel/cel.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text = cfo::fuzz::text_of(data, size);
  const std::size_t newline = text.find('\n');
  const std::string_view rule = text.substr(0, newline);
  auto program = cfo::validation::cel::compile(rule);
  if (!program) return 0;
  cfo::json::Document self_doc;
  if (newline != std::string_view::npos) {
    if (auto parsed = cfo::json::parse(text.substr(newline + 1))) self_doc = std::move(*parsed);
  }
  const auto self = cfo::validation::cel::Value::from_json(self_doc, nullptr);
  (void)cfo::validation::cel::evaluate_rule(*program, self, nullptr);
  (void)cfo::validation::cel::evaluate_rule(*program, self, &self);
  return 0;
}
