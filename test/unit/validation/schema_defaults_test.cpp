// Structural defaulting before validation, and how CEL rules of a CRD are wired in (fieldPath, messageExpression,
// unsupported rules), on small in-test CRDs.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::SchemaSet;

namespace {

const char* kGadgetProperties = R"(
spec:
  type: object
  x-kubernetes-validations:
    - rule: self.mode == 'fast' || self.size > 1
      message: slow gadgets need size > 1
    - rule: self.tuning.level <= 3
      message: tuning too high
  properties:
    mode: {type: string, default: fast, enum: [fast, slow]}
    size: {type: integer, default: 1}
    note: {type: string, nullable: true, default: none}
    label: {type: string, default: plain}
    tuning:
      type: object
      default: {}
      properties:
        level: {type: integer, default: 2}
    parts:
      type: array
      items:
        type: object
        x-kubernetes-validations:
          - rule: self.weight > 0
            message: weight must be positive
        properties:
          name: {type: string}
          weight: {type: integer, default: 1}
    slots:
      type: object
      additionalProperties:
        type: object
        properties:
          enabled: {type: boolean, default: true}
        x-kubernetes-validations:
          - rule: self.enabled
            message: slots must be enabled
)";

/// The Gadget CRD (example_crd) with the schema properties `properties` (kGadgetProperties, or an edited copy).
SchemaSet gadget_set(const char* properties = kGadgetProperties) {
  SchemaSet set;
  auto crd = example_crd("Gadget", properties);
  auto r = set.add_crd(crd);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return set;
}

json::Document gadget(std::string_view spec) {
  return yaml1("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: " + std::string(spec));
}

}  // namespace

// Rules see the defaults: a missing `mode` is "fast", a missing `tuning` is {level: 2} (a default inside a
// default), items and map values get theirs.
TEST(SchemaDefaults, RulesSeeDefaultedValues) {
  auto set = gadget_set();
  EXPECT_TRUE(set.validate(gadget("{}")).empty()) << describe(set.validate(gadget("{}")));
  EXPECT_TRUE(set.validate(gadget("{parts: [{name: a}], slots: {x: {}}}")).empty());
  auto slow = set.validate(gadget("{mode: slow}"));
  ASSERT_TRUE(has(slow, "spec", "cel:slow gadgets need size > 1")) << describe(slow);
  EXPECT_EQ(matching(slow, "spec", "cel:slow gadgets need size > 1")[0].source, "crd:example.com/v1/Gadget");
  EXPECT_TRUE(set.validate(gadget("{mode: slow, size: 2}")).empty());
  auto parts = set.validate(gadget("{parts: [{name: a}, {name: b, weight: 0}], slots: {x: {}, y: {enabled: false}}}"));
  EXPECT_TRUE(has(parts, "spec.parts[1]", "cel:weight must be positive")) << describe(parts);
  EXPECT_FALSE(has(parts, "spec.parts[0]", "cel:weight must be positive"));
  EXPECT_TRUE(has(parts, "spec.slots.y", "cel:slots must be enabled")) << describe(parts);
  EXPECT_FALSE(has(parts, "spec.slots.x", "cel:slots must be enabled"));
  EXPECT_TRUE(has(set.validate(gadget("{tuning: {level: 4}}")), "spec", "cel:tuning too high"));
}

// Explicit values win over defaults; null of a nullable field stays null; null of a non-nullable field with a
// default is defaulted (so it is not a type error).
TEST(SchemaDefaults, NullsAndExplicitValues) {
  auto set = gadget_set();
  EXPECT_TRUE(set.validate(gadget("{note: null}")).empty()) << describe(set.validate(gadget("{note: null}")));
  EXPECT_TRUE(set.validate(gadget("{label: null, size: null}")).empty())
      << describe(set.validate(gadget("{label: null, size: null}")));
  // The object is not modified: defaulting works on a copy.
  auto g = gadget("{}");
  set.validate(g);
  EXPECT_EQ(json::dump(g["spec"]), "{}");
}

// A CRD whose default breaks its own schema (the apiserver would refuse such a CRD): the finding is a warning that
// blames the default, and the object's own error is still found although RapidJSON stops at its first error (the
// defaulted spec.mode comes before the user's status in document order).
TEST(SchemaDefaults, FindingsInDefaultedValuesBlameTheDefault) {
  std::string crd = kGadgetProperties;
  const std::string good = "mode: {type: string, default: fast, enum: [fast, slow]}";
  crd.replace(crd.find(good), good.size(), "mode: {type: string, default: medium, enum: [fast, slow]}");
  crd.insert(crd.find("\nspec:\n") + 1, "status: {type: object, properties: {phase: {type: string}}}\n");
  auto set = gadget_set(crd.c_str());
  auto g = yaml1("{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g}, spec: {}, status: {phase: 3}}");
  auto errs = set.validate(g);
  auto mode = matching(errs, "spec.mode", "schema:enum");
  ASSERT_EQ(mode.size(), 1u) << describe(errs);
  EXPECT_EQ(mode[0].severity, Severity::Warning);
  EXPECT_NE(mode[0].reason.find("default"), std::string::npos) << mode[0].reason;
  EXPECT_TRUE(has(errs, "status.phase", "schema:type")) << describe(errs);
  EXPECT_EQ(error_count(errs), 1u) << describe(errs);
  // Written by the user, the same value is the user's error.
  EXPECT_TRUE(has(set.validate(gadget("{mode: medium}")), "spec.mode", "schema:enum"));
}

// Like kube-apiserver, no rule runs on an object with a blocking schema error (here a wrong type), which would make
// rules fail for the wrong reason; a warning says so.
TEST(SchemaDefaults, SchemaTypeErrorsBlockTheRules) {
  auto set = gadget_set();
  auto errs = set.validate(gadget("{mode: slow, size: wrong}"));
  EXPECT_TRUE(has(errs, "spec.size", "schema:type")) << describe(errs);
  EXPECT_TRUE(has(errs, "", "cel:notEvaluated", Severity::Warning)) << describe(errs);
  EXPECT_EQ(error_count(errs), 1u) << describe(errs);
  // A non-blocking schema error (pattern, minimum, ...) does not stop the rules.
  std::string crd = kGadgetProperties;
  const std::string good = "label: {type: string, default: plain}";
  crd.replace(crd.find(good), good.size(), "label: {type: string, default: plain, pattern: '^[a-z]+$'}");
  auto set2 = gadget_set(crd.c_str());
  auto both = set2.validate(gadget("{mode: slow, label: UPPER}"));
  EXPECT_TRUE(has(both, "spec.label", "schema:pattern")) << describe(both);
  EXPECT_TRUE(has(both, "spec", "cel:slow gadgets need size > 1")) << describe(both);
}

// A rule failing on a value that only a default supplied is a warning too.
TEST(SchemaDefaults, CelFindingInsideADefaultIsAWarning) {
  std::string crd = kGadgetProperties;
  const std::string good = "level: {type: integer, default: 2}";
  crd.replace(crd.find(good), good.size(),
              "level: {type: integer, default: 9, x-kubernetes-validations: [{rule: 'self < 5', message: low}]}");
  auto set = gadget_set(crd.c_str());
  auto errs = set.validate(gadget("{}"));
  auto low = matching(errs, "spec.tuning.level", "cel:low");
  ASSERT_EQ(low.size(), 1u) << describe(errs);
  EXPECT_EQ(low[0].severity, Severity::Warning);
  // The rule on spec sees the defaulted 9 as well; that location was written by the user, so it stays an error.
  EXPECT_TRUE(has(errs, "spec", "cel:tuning too high")) << describe(errs);
  EXPECT_TRUE(has(set.validate(gadget("{tuning: {level: 7}}")), "spec.tuning.level", "cel:low"));
}

TEST(SchemaDefaults, UpstreamRayClusterDefaults) {
  CFO_REQUIRE_SCHEMAS();
  // minReplicas / maxReplicas / replicas are required or bounded in KubeRay, and have CRD defaults.
  auto rc = patched(yaml1(raycluster_yaml()), {{"spec.workerGroupSpecs[0].minReplicas", "~delete"},
                                               {"spec.workerGroupSpecs[0].maxReplicas", "~delete"},
                                               {"spec.workerGroupSpecs[0].replicas", "~delete"}});
  auto errs = schemas.validate(rc);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
}

// ---- rule metadata ------------------------------------------------------------------------------------------------

TEST(SchemaCel, FieldPathMessageExpressionAndUnsupportedRules) {
  // Cluster-scoped, with rules on the root schema and on spec.
  auto doc = example_crd("Widget", R"yaml(
spec:
  type: object
  x-kubernetes-validations:
    - rule: "self.size.isGreaterThan(quantity('1'))"
      message: size must exceed 1
    - rule: "self.min == oldSelf.min"
      optionalOldSelf: true
      message: min is fixed
    - rule: "self.min >= 0"
      fieldPath: ".labels['a.b/c']"
      message: min must not be negative
  properties:
    min: {type: integer}
    max: {type: integer}
    size: {type: string}
    labels: {type: object, additionalProperties: {type: string}}
    alt:
      anyOf:
        - x-kubernetes-validations: [{rule: "true"}]
)yaml",
                         R"yaml(
x-kubernetes-validations:
  - rule: "!has(self.spec) || self.spec.max >= self.spec.min"
    fieldPath: .spec.max
    messageExpression: "'max ' + string(self.spec.max) + ' is below min ' + string(self.spec.min)"
  - rule: "self.metadata.name.startsWith('w-')"
    messageExpression: "'names start with w-'"
)yaml",
                         "{}", true);
  SchemaSet set;
  ASSERT_TRUE(set.add_crd(doc).has_value());
  auto rules = set.cel_rules();
  ASSERT_EQ(rules.size(), 6u);
  auto unsupported = set.unsupported_cel_rules();
  ASSERT_EQ(unsupported.size(), 3u);
  EXPECT_EQ(unsupported[0].path, "spec");
  EXPECT_NE(unsupported[0].why.find("quantity"), std::string::npos) << unsupported[0].why;
  EXPECT_NE(unsupported[1].why.find("optionalOldSelf"), std::string::npos);
  EXPECT_EQ(unsupported[2].path, "spec.alt");
  EXPECT_NE(unsupported[2].why.find("anyOf"), std::string::npos);

  auto w = yaml1("{apiVersion: example.com/v1, kind: Widget, metadata: {name: x}, spec: {min: -2, max: -5}}");
  auto errs = set.validate(w);
  // messageExpression evaluated; fieldPath appended to the rule's location.
  auto range = matching(errs, "spec.max", "cel:!has(self.spec) || self.spec.max >= self.spec.min");
  ASSERT_EQ(range.size(), 1u) << describe(errs);
  EXPECT_EQ(range[0].reason, "max -5 is below min -2");
  // A literal messageExpression names the rule.
  EXPECT_TRUE(has(errs, "", "cel:names start with w-")) << describe(errs);
  EXPECT_TRUE(has(errs, "spec.labels[a.b/c]", "cel:min must not be negative")) << describe(errs);
  // Unsupported rules are not evaluated (and not reported as findings).
  for (const auto& e : errs) EXPECT_EQ(e.rule.find("size must exceed"), std::string::npos) << describe(errs);
}
