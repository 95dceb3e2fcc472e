#pragma once
// Internal to cfo_validation. Runs the compiled `x-kubernetes-validations` rules of a plan over an object, as
// kube-apiserver does: each rule of a schema node is evaluated with `self` bound to every value of the object that
// node describes (not on absent values, nor on nulls).
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/schema_plan.hpp"

namespace cfo::validation::structural {

/// Evaluates the rules of `plan` on `obj` (already defaulted) and appends a finding to `out` for each failure:
/// path = the value's field path plus the rule's fieldPath, rule = CelRule::name, `source` as given, reason = the
/// rule's message (a failed evaluation gives the evaluation error and the rule text instead).
///
/// With `old` (an update; also defaulted) the values of `old` are correlated with those of `obj`: object fields by
/// name, map values by key, items of `x-kubernetes-list-type: map` lists by their key fields. Transition rules
/// (with oldSelf) run only where a correlated old value exists; other rules that fail where the value equals its
/// old value are dropped (validation ratcheting). Without `old`, transition rules do not run.
void run_cel_rules(const PlanNode& plan, const json::Value& obj, const json::Value* old, const std::string& source,
                   FieldErrors& out);

/// True when run_cel_rules() would evaluate at least one rule on `obj` (a value exists at a rule's location; for a
/// transition rule, an old value too). Evaluates nothing.
bool cel_rules_apply(const PlanNode& plan, const json::Value& obj, const json::Value* old);

}  // namespace cfo::validation::structural
