#include <array>
#include <vector>

#include "validation/cel/ast.hpp"
#include "validation/cel/cel.hpp"
#include "validation/cel/checker.hpp"
#include "validation/cel/evaluator.hpp"
#include "validation/cel/parser.hpp"

namespace cfo::validation::cel {

Program::Program() = default;
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

bool Program::is_string_literal() const {
  return root_ && root_->kind == ExprKind::Literal && root_->value.type() == Type::String;
}

Value Program::evaluate(const Value& self, const Value* old_self) const {
  if (!root_) return Value::error("empty program");
  constexpr std::size_t kInline = 8;
  std::array<Value, kInline> inline_slots;
  std::vector<Value> heap_slots;
  Value* slots = inline_slots.data();
  if (static_cast<std::size_t>(slot_count_) > kInline) {
    heap_slots.resize(static_cast<std::size_t>(slot_count_));
    slots = heap_slots.data();
  }
  slots[0] = self;
  if (old_self)
    slots[1] = *old_self;
  else if (uses_old_self_)
    slots[1] = Value::error("oldSelf is only available when an update is validated");
  return cel::evaluate(*root_, slots);
}

Result<Program> compile(std::string_view text) {
  auto root = parse(text);
  if (!root) return std::unexpected(root.error());
  auto info = check(**root);
  if (!info) return std::unexpected(info.error());
  Program p;
  p.text_ = std::string(text);
  p.root_ = std::move(*root);
  p.slot_count_ = info->slot_count;
  p.uses_old_self_ = info->uses_old_self;
  return p;
}

RuleResult evaluate_rule(const Program& program, const Value& self, const Value* old_self) {
  const Value v = program.evaluate(self, old_self);
  if (v.type() == Type::Bool) return {v.as_bool() ? Verdict::Pass : Verdict::Fail, {}};
  if (v.is_unsupported()) return {Verdict::Skipped, std::string(v.as_string())};
  if (v.is_error()) return {Verdict::Error, std::string(v.as_string())};
  return {Verdict::Error, std::string("the rule evaluated to a ") + type_name(v.type()) + ", not a bool"};
}

}  // namespace cfo::validation::cel
