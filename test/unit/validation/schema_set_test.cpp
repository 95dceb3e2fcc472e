// SchemaSet: loading CRDs and the structural-schema semantics layered on RapidJSON's validator.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "test_support.hpp"
#include "validation/schema_formats.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::SchemaSet;
namespace structural = validation::structural;

namespace {

/// A small CRD exercising the structural features, built in-test (no data folder needed).
const char* kToyCrd = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: toys.example.com
spec:
  group: example.com
  names: {kind: Toy, plural: toys}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [size, mode]
              properties:
                size: {type: integer, default: 1}
                mode: {type: string, enum: [fast, slow]}
                note: {type: string, nullable: true}
                amount: {x-kubernetes-int-or-string: true}
                code: {type: string, pattern: '^[a-z]+$'}
                free:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties:
                    known: {type: string}
                labels:
                  type: object
                  additionalProperties: {type: string}
                ports:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [port, protocol]
                  items:
                    type: object
                    properties:
                      port: {type: integer}
                      protocol: {type: string, default: TCP}
                tags:
                  type: array
                  x-kubernetes-list-type: set
                  items: {type: string}
                child:
                  type: object
                  x-kubernetes-embedded-resource: true
                  x-kubernetes-preserve-unknown-fields: true
                since: {type: string, format: date-time}
                count32: {type: integer, format: int32}
                count64: {type: integer, format: int64}
            status:
              type: object
              properties:
                phase: {type: string}
      subresources:
        status: {}
    - name: v0
      served: true
      storage: false
      deprecated: true
      deprecationWarning: example.com/v0 Toy is going away
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
    - name: v00
      served: false
      storage: false
)";

SchemaSet toy_set() {
  SchemaSet set;
  auto crd = yaml1(kToyCrd);
  auto r = set.add_crd(crd);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return set;
}

json::Document toy(std::string_view spec_yaml) {
  return yaml1("apiVersion: example.com/v1\nkind: Toy\nmetadata: {name: t}\nspec: " + std::string(spec_yaml));
}

/// A fresh temporary directory for one test.
std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("cfo-validation-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& p, std::string_view text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace

// ---- loading ------------------------------------------------------------------------------------------------

TEST(SchemaSetLoad, LoadsEveryUpstreamKind) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(schemas.has("ray.io/v1", "RayCluster"));
  EXPECT_TRUE(schemas.has("ray.io/v1", "RayJob"));
  EXPECT_TRUE(schemas.has("ray.io/v1alpha1", "RayCluster"));
  EXPECT_TRUE(schemas.has("workload.codeflare.dev/v1beta2", "AppWrapper"));
  for (const char* v : {"kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"})
    for (const char* k : {"LocalQueue", "WorkloadPriorityClass", "ClusterQueue", "ResourceFlavor"})
      EXPECT_TRUE(schemas.has(v, k)) << v << " " << k;
  EXPECT_FALSE(schemas.has("ray.io/v1", "RayService"));
  EXPECT_TRUE(schemas.has_pod_spec());
  EXPECT_FALSE(schemas.namespaced("kueue.x-k8s.io/v1beta2", "ClusterQueue"));
  EXPECT_TRUE(schemas.namespaced("kueue.x-k8s.io/v1beta2", "LocalQueue"));
}

TEST(SchemaSetLoad, AlsoLoadsTheApiserver120Adaptation) {
  auto dir = upstream_crds_dir();
  if (!dir) GTEST_SKIP() << "UPSTREAM_CRDS is not set";
  auto set = SchemaSet::load_dir(*dir + "/apiserver-1.20");
  ASSERT_TRUE(set.has_value()) << set.error().message;
  EXPECT_TRUE(set->has("ray.io/v1", "RayCluster"));
}

TEST(SchemaSetLoad, SkipsOtherKindsAndOtherExtensions) {
  auto dir = temp_dir("skip");
  write(dir / "a.yaml", std::string(kToyCrd) + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
  write(dir / "notes.txt", "not yaml: [");
  auto set = SchemaSet::load_dir(dir.string());
  ASSERT_TRUE(set.has_value()) << set.error().message;
  EXPECT_TRUE(set->has("example.com/v1", "Toy"));
  EXPECT_TRUE(set->has("example.com/v0", "Toy"));
  EXPECT_FALSE(set->has("example.com/v00", "Toy")) << "versions that are not served are not loaded";
  std::filesystem::remove_all(dir);
}

TEST(SchemaSetLoad, YamlSyntaxErrorNamesTheFile) {
  auto dir = temp_dir("syntax");
  write(dir / "broken.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: [\n");
  auto set = SchemaSet::load_dir(dir.string());
  ASSERT_FALSE(set.has_value());
  EXPECT_NE(set.error().message.find("broken.yaml"), std::string::npos) << set.error().message;
  std::filesystem::remove_all(dir);
}

TEST(SchemaSetLoad, MalformedSchemaNamesTheFileAndField) {
  auto dir = temp_dir("malformed");
  std::string crd = kToyCrd;
  crd.replace(crd.find("mode: {type: string, enum: [fast, slow]}"), 40, "mode: {type: 5}");
  write(dir / "toy.yaml", crd);
  auto set = SchemaSet::load_dir(dir.string());
  ASSERT_FALSE(set.has_value());
  EXPECT_NE(set.error().message.find("toy.yaml"), std::string::npos) << set.error().message;
  EXPECT_NE(set.error().message.find("properties.mode.type"), std::string::npos) << set.error().message;
  std::filesystem::remove_all(dir);
}

TEST(SchemaSetLoad, MissingDirectoryIsAnError) {
  auto set = SchemaSet::load_dir("/nonexistent/cfo-validation-dir");
  ASSERT_FALSE(set.has_value());
  EXPECT_NE(set.error().message.find("/nonexistent/cfo-validation-dir"), std::string::npos);
}

TEST(SchemaSetLoad, AddCrdRejectsOtherObjects) {
  SchemaSet set;
  auto cm = yaml1("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
  EXPECT_FALSE(set.add_crd(cm).has_value());
  auto old = yaml1("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n");
  auto r = set.add_crd(old);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("v1beta1"), std::string::npos);
  json::Document not_object(rapidjson::kArrayType);
  EXPECT_FALSE(set.add_crd(not_object).has_value());
}

TEST(SchemaSetLoad, BuildCompilesOneKindBeforeItsFirstUse) {
  SchemaSet set;
  ASSERT_TRUE(set.add_crd(example_crd("Widget", "spec: {type: object}",
                                      "x-kubernetes-validations: [{rule: 'has(self.spec)', message: needs a spec}]"))
                  .has_value());
  ASSERT_TRUE(set.add_crd(example_crd("Gadget", "spec: {type: object}",
                                      "x-kubernetes-validations: [{rule: 'has(self.spec)', message: needs a spec}]"))
                  .has_value());
  using RulesOf = SchemaSet::RulesOf;
  EXPECT_TRUE(set.cel_rules(RulesOf::kUsedKinds).empty()) << "nothing is compiled before its first use";
  EXPECT_FALSE(set.build("example.com/v1", "Gizmo")) << "a kind not loaded";
  ASSERT_TRUE(set.build("example.com/v1", "Widget"));
  const auto built = set.cel_rules(RulesOf::kUsedKinds);
  ASSERT_EQ(built.size(), 1u) << "only Widget's schema is compiled";
  EXPECT_EQ(built[0].kind, "Widget");
  EXPECT_TRUE(set.build("example.com/v1", "Widget")) << "a second call finds it built";
  // The compiled schema judges as one compiled on first use does.
  const FieldErrors errs = set.validate(yaml1("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"));
  EXPECT_TRUE(std::any_of(errs.begin(), errs.end(), [](const FieldError& e) { return e.rule.starts_with("cel:"); }))
      << describe(errs);
}

// A schema type outside OpenAPI's is refused with the CRD, as kube-apiserver refuses it, rather than blamed on every
// object judged against it (the twenty-ninth user trial: `type: strnig` gave "must be of type strnig, found string").
TEST(SchemaSetLoad, ATypeThatIsNotAnOpenApiTypeIsRefused) {
  SchemaSet set;
  auto r = set.add_crd(example_crd("Widget", "spec: {type: object, properties: {size: {type: strnig}}}"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("properties.spec.properties.size.type"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("strnig"), std::string::npos) << r.error().message;
  for (const char* t : {"array", "boolean", "integer", "number", "object", "string"})
    EXPECT_TRUE(set.add_crd(example_crd("Widget", std::string("spec: {type: ") + t + "}")).has_value()) << t;
}

TEST(SchemaSetLoad, VersionWithoutSchemaIsNamed) {
  SchemaSet set;
  auto crd = yaml1(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bad.example.com}
spec:
  group: example.com
  names: {kind: Bad}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true}]
)");
  auto r = set.add_crd(crd);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("bad.example.com"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("spec.versions[0].schema.openAPIV3Schema"), std::string::npos) << r.error().message;
}

// CRD patterns are RE2 (Go regexp) syntax, as kube-apiserver reads them: `(?i)` is a flag, not an error.
TEST(SchemaSetLoad, PatternsAreReadAsRe2) {
  SchemaSet set;
  std::string crd = kToyCrd;
  crd.replace(crd.find("'^[a-z]+$'"), 10, "'(?i)^[a-z]+$'");
  auto r = set.add_crd(yaml1(crd));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(set.validate(toy("{mode: fast, code: ABC}")).empty());
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, code: A1}")), "spec.code", "schema:pattern"));
}

// Loading a CRD and dropping it frees everything: LeakSanitizer checks it when this binary runs in the sanitizer build
// (make test). RapidJSON compiles every object of a schema document as a schema, `default` values included; with
// std::regex, a default holding a key "pattern" whose value std::regex could not compile threw inside RapidJSON's
// CreatePattern, which leaked its allocation at every load (valgrind: 32 bytes definitely lost per load), a leak
// each time the controller reloads CRDs. RE2 reports an invalid pattern without throwing.
TEST(SchemaSetLoad, LoadingAndDroppingACrdLeaksNothing) {
  std::string text = kToyCrd;
  text.replace(text.find("                labels:\n"), 0,
               "                selector:\n"
               "                  type: object\n"
               "                  additionalProperties: {type: string}\n"
               "                  default: {pattern: 'a(b', other: x}\n");
  const auto crd = yaml1(text);
  for (int i = 0; i < 3; ++i) {
    SchemaSet set;
    auto r = set.add_crd(crd);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_TRUE(set.validate(toy("{mode: fast, selector: {pattern: x}}")).empty());
  }
}

// Keywords kube-apiserver refuses in a CRD schema are refused at load, naming where. A `$ref` cycle made RapidJSON
// recurse until the stack overflowed (SEGV); a "$ref" key inside a value (here a default) is reached by RapidJSON too.
TEST(SchemaSetLoad, RefAndOtherForbiddenKeywordsAreErrorsNamingWhere) {
  struct Case {
    std::string replacement, where;
  };
  for (const Case& c :
       {Case{"{$ref: '#/properties/spec/properties/code'}", "properties.code[$ref]"},
        Case{"{type: object, default: {$ref: '#/properties/spec/properties/code/default'}}",
             "properties.code.default[$ref]"},
        Case{"{type: object, patternProperties: {'^x': {type: string}}}", "properties.code.patternProperties"},
        Case{"{type: string, definitions: {}}", "properties.code.definitions"}}) {
    SchemaSet set;
    std::string crd = kToyCrd;
    crd.replace(crd.find("{type: string, pattern: '^[a-z]+$'}"), 35, c.replacement);
    auto r = set.add_crd(yaml1(crd));
    ASSERT_FALSE(r.has_value()) << c.replacement;
    EXPECT_NE(r.error().message.find(c.where), std::string::npos) << r.error().message;
  }
}

// A pattern RE2 refuses makes the CRD fail to load, naming the CRD, the schema location and the pattern (the
// apiserver refuses such a CRD); it is neither a crash nor silently unchecked.
TEST(SchemaSetLoad, PatternThatRe2RefusesIsAnErrorNamingIt) {
  SchemaSet set;
  std::string crd = kToyCrd;
  crd.replace(crd.find("'^[a-z]+$'"), 10, "'S*******x***********c'");
  auto r = set.add_crd(yaml1(crd));
  ASSERT_FALSE(r.has_value());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("properties.code.pattern"), std::string::npos) << m;
  EXPECT_NE(m.find("\"S*******x***********c\""), std::string::npos) << m;
  EXPECT_NE(m.find("bad repetition operator"), std::string::npos) << m;
}

// Patterns are matched with RE2: a pattern that makes a backtracking engine explode, and a string far longer than
// libstdc++'s recursive std::regex could take, are both judged (a string with a NUL byte is judged whole).
TEST(SchemaSetLoad, PatternsAreMatchedInLinearTimeOnAnyString) {
  SchemaSet set;
  std::string crd = kToyCrd;
  crd.replace(crd.find("'^[a-z]+$'"), 10, "'^(a|aa)*$'");
  ASSERT_TRUE(set.add_crd(yaml1(crd)).has_value());
  json::Document obj = toy("{mode: fast, code: x}");
  obj["spec"]["code"].SetString((std::string(60, 'a') + "c").c_str(), obj.GetAllocator());
  EXPECT_TRUE(has(set.validate(obj), "spec.code", "schema:pattern"));
  obj["spec"]["code"].SetString(std::string(200000, 'a').c_str(), obj.GetAllocator());
  EXPECT_TRUE(set.validate(obj).empty());
  obj["spec"]["code"].SetString(std::string("aa\0b", 4), obj.GetAllocator());
  EXPECT_TRUE(has(set.validate(obj), "spec.code", "schema:pattern"));
}

// ---- structural semantics on the toy CRD ------------------------------------------------------------------------

TEST(SchemaSetToy, ValidObjectHasNoFindings) {
  auto set = toy_set();
  auto errs = set.validate(toy(R"({size: 2, mode: fast, note: null, amount: 3, code: abc, free: {known: x, other: 1},
                                   labels: {a: b}, ports: [{port: 1}, {port: 1, protocol: UDP}], tags: [a, b],
                                   child: {apiVersion: v1, kind: Pod, extra: 1}})"));
  EXPECT_TRUE(errs.empty()) << describe(errs);
}

TEST(SchemaSetToy, RequiredWithDefaultIsNotRequired) {
  auto set = toy_set();
  auto errs = set.validate(toy("{mode: slow}"));
  EXPECT_TRUE(errs.empty()) << describe(errs);
}

TEST(SchemaSetToy, RequiredNamesTheMissingField) {
  auto set = toy_set();
  auto errs = set.validate(toy("{size: 1}"));
  ASSERT_TRUE(has(errs, "spec.mode", "schema:required")) << describe(errs);
  EXPECT_EQ(matching(errs, "spec.mode", "schema:required")[0].source, "crd:example.com/v1/Toy");
}

TEST(SchemaSetToy, EnumTypeAndPatternErrors) {
  auto set = toy_set();
  EXPECT_TRUE(has(set.validate(toy("{mode: medium}")), "spec.mode", "schema:enum"));
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, size: two}")), "spec.size", "schema:type"));
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, code: A1}")), "spec.code", "schema:pattern"));
}

TEST(SchemaSetToy, NullOfANonNullablePropertyIsPrunedAsTheApiserverDoes) {
  auto set = toy_set();
  // nullable: the null stays and is valid.
  EXPECT_TRUE(set.validate(toy("{mode: fast, note: null}")).empty());
  // Neither nullable nor defaulted: kube-apiserver removes the property before validating.
  auto pruned = set.validate(toy("{mode: fast, code: null, free: {known: null}}"));
  EXPECT_TRUE(pruned.empty()) << describe(pruned);
  // A required property that is pruned is then missing.
  EXPECT_TRUE(has(set.validate(toy("{mode: null}")), "spec.mode", "schema:required"));
  // Defaulted: the null becomes the default (size: 1), which is valid.
  EXPECT_TRUE(set.validate(toy("{mode: fast, size: null}")).empty());
  // A null map entry goes too (the map's values are not nullable).
  auto entry = set.validate(toy("{mode: fast, labels: {a: null, b: x}}"));
  EXPECT_TRUE(entry.empty()) << describe(entry);
  // List items are not pruned: a null there is still the wrong type.
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, tags: [a, null]}")), "spec.tags[1]", "schema:type"));
}

TEST(SchemaSetToy, StatusIsIgnoredOnlyWithTheStatusSubresource) {
  auto set = toy_set();
  // v1 has the status subresource: a create drops status, an update keeps the old one.
  auto with_sub = toy("{mode: fast}");
  auto bad_status = yaml1("{phase: [not, a, string], extra: 1}");
  with_sub.AddMember("status", json::Value(bad_status, with_sub.GetAllocator()), with_sub.GetAllocator());
  auto errs = set.validate(with_sub);
  EXPECT_TRUE(errs.empty()) << describe(errs);
  errs = set.validate_update(with_sub, with_sub);
  EXPECT_TRUE(errs.empty()) << describe(errs);
  // Without the subresource, status is part of the object and is judged.
  SchemaSet plain;
  ASSERT_TRUE(plain.add_crd(example_crd("Plain", "status: {type: object, properties: {phase: {type: string}}}")));
  auto without_sub = yaml1("apiVersion: example.com/v1\nkind: Plain\nmetadata: {name: p}\nstatus: {phase: [x]}\n");
  EXPECT_TRUE(has(plain.validate(without_sub), "status.phase", "schema:type")) << describe(plain.validate(without_sub));
}

TEST(SchemaSetToy, DateTimeFormat) {
  auto set = toy_set();
  for (const char* ok : {"2024-05-01T12:00:00Z", "2024-02-29T23:59:59.123456+05:30", "2024-05-01T00:00:00-08:00",
                         "2024-05-01T00:00:00+24:00", "2024-05-01T00:00:00,5Z"}) {
    auto errs = set.validate(toy(std::string("{mode: fast, since: \"") + ok + "\"}"));
    EXPECT_TRUE(errs.empty()) << ok << ": " << describe(errs);
  }
  for (const char* bad :
       {"May 1st", "2024-05-01", "2024-05-01T12:00:00", "2023-02-29T12:00:00Z", "2024-13-01T12:00:00Z",
        "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z", "2024-05-01T12:00:00+0530", "2024-05-01 12:00:00Z"}) {
    auto errs = set.validate(toy(std::string("{mode: fast, since: \"") + bad + "\"}"));
    EXPECT_TRUE(has(errs, "spec.since", "schema:format")) << bad << ": " << describe(errs);
  }
  // The apiserver's strfmt check takes these, but Go's RFC 3339 parser (metav1.Time) does not: the controller could
  // not decode the object.
  for (const char* go_bad : {"2024-05-01t12:00:00z", "2024-05-01T12:00:00z", "2024-05-01T12:00:00x5Z"}) {
    EXPECT_TRUE(structural::is_date_time(go_bad)) << go_bad;
    auto errs = set.validate(toy(std::string("{mode: fast, since: \"") + go_bad + "\"}"));
    ASSERT_TRUE(has(errs, "spec.since", "schema:format")) << go_bad << ": " << describe(errs);
    EXPECT_NE(matching(errs, "spec.since", "schema:format")[0].reason.find("Go's RFC 3339"), std::string::npos);
  }
}

TEST(SchemaSetToy, IntegerFormatRanges) {
  auto set = toy_set();
  EXPECT_TRUE(set.validate(toy("{mode: fast, count32: 2147483647, count64: 9223372036854775807}")).empty());
  EXPECT_TRUE(set.validate(toy("{mode: fast, count32: -2147483648, count64: -9223372036854775808}")).empty());
  auto errs = set.validate(toy("{mode: fast, count32: 2147483648}"));
  ASSERT_TRUE(has(errs, "spec.count32", "schema:format")) << describe(errs);
  EXPECT_NE(matching(errs, "spec.count32", "schema:format")[0].reason.find("int32"), std::string::npos);
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, count32: -2147483649}")), "spec.count32", "schema:format"));
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, count64: 9223372036854775808}")), "spec.count64", "schema:format"));
}

TEST(SchemaSetToy, IntOrStringWithoutAnyOf) {
  auto set = toy_set();
  EXPECT_TRUE(set.validate(toy("{mode: fast, amount: \"3\"}")).empty());
  EXPECT_TRUE(has(set.validate(toy("{mode: fast, amount: true}")), "spec.amount", "schema:anyOf"));
}

TEST(SchemaSetToy, UnknownFieldsAreAllReported) {
  auto set = toy_set();
  auto errs = set.validate(toy("{mode: fast, extra: 1, ports: [{port: 1, bogus: x}]}"));
  EXPECT_TRUE(has(errs, "spec.extra", "schema:unknownField")) << describe(errs);
  EXPECT_TRUE(has(errs, "spec.ports[0].bogus", "schema:unknownField")) << describe(errs);
}

TEST(SchemaSetToy, ListMapKeysUseDefaultsAndSetsAreUnique) {
  auto set = toy_set();
  auto errs =
      set.validate(toy("{mode: fast, ports: [{port: 1}, {port: 2}, {port: 1, protocol: TCP}, {port: 1, protocol: UDP}, "
                       "{port: 2, protocol: TCP}], tags: [a, b, a]}"));
  const auto ports = matching(errs, "spec.ports[2]", "schema:duplicate");
  ASSERT_EQ(ports.size(), 1u) << describe(errs);
  EXPECT_EQ(ports[0].reason, "duplicate entry: (port=1, protocol=\"TCP\") is already used by entry [0]");
  EXPECT_TRUE(has(errs, "spec.ports[4]", "schema:duplicate")) << describe(errs);
  EXPECT_FALSE(has(errs, "spec.ports[3]", "schema:duplicate")) << "another protocol is another key";
  const auto tags = matching(errs, "spec.tags[2]", "schema:duplicate");
  ASSERT_EQ(tags.size(), 1u) << describe(errs);
  EXPECT_EQ(tags[0].reason, "duplicate value \"a\" in a set; it repeats entry [0]");
}

TEST(SchemaSetToy, DeprecatedVersionWarns) {
  auto set = toy_set();
  auto errs = set.validate(yaml1("apiVersion: example.com/v0\nkind: Toy\nmetadata: {name: t}\nanything: 1\n"));
  ASSERT_EQ(errs.size(), 1u) << describe(errs);
  EXPECT_EQ(errs[0].rule, "schema:deprecatedVersion");
  EXPECT_EQ(errs[0].severity, Severity::Warning);
  EXPECT_EQ(errs[0].reason, "example.com/v0 Toy is going away");
}

TEST(SchemaSetToy, UnknownKindAndNonObject) {
  auto set = toy_set();
  auto errs = set.validate(yaml1("apiVersion: example.com/v9\nkind: Toy\n"));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rule, "schema:unknownKind");
  json::Document arr(rapidjson::kArrayType);
  EXPECT_EQ(set.validate(arr).size(), 1u);
}

// ---- the upstream CRDs -------------------------------------------------------------------------------------

TEST(SchemaSetUpstream, ValidRayClusterHasNoFindings) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = schemas.validate(yaml1(raycluster_yaml()));
  EXPECT_TRUE(errs.empty()) << describe(errs);
}

TEST(SchemaSetUpstream, UnknownFieldsAtTopLevelAndInsideAContainer) {
  CFO_REQUIRE_SCHEMAS();
  auto doc =
      patched(yaml1(raycluster_yaml()),
              {{"extraTop", "1"}, {"spec.workerGroupSpecs[0].template.spec.containers[0].imagePullPolicyy", "Always"}});
  auto errs = schemas.validate(doc);
  EXPECT_TRUE(has(errs, "extraTop", "schema:unknownField")) << describe(errs);
  EXPECT_TRUE(has(errs, "spec.workerGroupSpecs[0].template.spec.containers[0].imagePullPolicyy", "schema:unknownField"))
      << describe(errs);
}

TEST(SchemaSetUpstream, IntegerRayStartParamIsATypeError) {
  CFO_REQUIRE_SCHEMAS();
  auto doc = patched(yaml1(raycluster_yaml()), {{"spec.headGroupSpec.rayStartParams.num-cpus", "1"}});
  auto errs = schemas.validate(doc);
  ASSERT_TRUE(has(errs, "spec.headGroupSpec.rayStartParams.num-cpus", "schema:type")) << describe(errs);
  EXPECT_EQ(matching(errs, "spec.headGroupSpec.rayStartParams.num-cpus", "schema:type")[0].source,
            "crd:ray.io/v1/RayCluster");
}

// The PodSpecs of the head and worker groups are one shared sub-schema, compiled as a document of its own: a first
// error inside it is found, and its message is read from the schema at the value's location.
TEST(SchemaSetUpstream, AFirstErrorInsideASharedSubSchemaIsToldInFull) {
  CFO_REQUIRE_SCHEMAS();
  const auto rc = yaml1(raycluster_yaml());
  struct Case {
    std::string path, value, rule, reason;
  };
  for (const auto& c :
       std::vector<Case>{{"spec.headGroupSpec.template.spec.containers[0].ports[0].containerPort", "\"x\"",
                          "schema:type", "must be of type integer, found string \"x\""},
                         {"spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory", "\"8 GB\"",
                          "schema:pattern",
                          "value \"8 GB\" does not match the pattern "
                          "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                          "([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"},
                         {"spec.workerGroupSpecs[0].template.spec.containers[0].name", "~delete", "schema:required",
                          "required field \"name\" is missing"}}) {
    auto errs = schemas.validate(patched(rc, {{c.path, c.value}}));
    const auto found = matching(errs, c.path, c.rule);
    ASSERT_EQ(found.size(), 1u) << c.path << ": " << describe(errs);
    EXPECT_EQ(found[0].reason, c.reason) << c.path;
  }
}

TEST(SchemaSetUpstream, MissingGroupNameIsRequired) {
  CFO_REQUIRE_SCHEMAS();
  auto doc = patched(yaml1(raycluster_yaml()), {{"spec.workerGroupSpecs[0].groupName", "~delete"}});
  auto errs = schemas.validate(doc);
  EXPECT_TRUE(has(errs, "spec.workerGroupSpecs[0].groupName", "schema:required")) << describe(errs);
}

TEST(SchemaSetUpstream, QuantityPatternIsChecked) {
  CFO_REQUIRE_SCHEMAS();
  auto doc = patched(yaml1(raycluster_yaml()),
                     {{"spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "\"1x\""}});
  auto errs = schemas.validate(doc);
  EXPECT_TRUE(has(errs, "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "schema:pattern"))
      << describe(errs);
}

TEST(SchemaSetUpstream, DuplicateContainerPortIsADuplicate) {
  CFO_REQUIRE_SCHEMAS();
  auto doc =
      patched(yaml1(raycluster_yaml()),
              {{"spec.headGroupSpec.template.spec.containers[0].ports[1]", "{containerPort: 6379, protocol: TCP}"}});
  auto errs = schemas.validate(doc);
  EXPECT_TRUE(has(errs, "spec.headGroupSpec.template.spec.containers[0].ports[1]", "schema:duplicate"))
      << describe(errs);
}

TEST(SchemaSetUpstream, HugeStringDoesNotCrashThePatternCheck) {
  CFO_REQUIRE_SCHEMAS();
  auto doc = yaml1(raycluster_yaml());
  auto& a = doc.GetAllocator();
  // RE2 matches in linear time without recursion: the whole string is judged by the quantity pattern.
  auto& cpu = doc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"];
  cpu = json::str(std::string(200000, '1') + "x", a);
  auto errs = schemas.validate(doc);
  EXPECT_TRUE(has(errs, "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "schema:pattern"))
      << describe(errs);
  cpu = json::str(std::string(200000, '1'), a);
  EXPECT_FALSE(has(schemas.validate(doc), "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu",
                   "schema:pattern"));
}

// Nulls the apiserver prunes (or, in ObjectMeta, reads as "") are judged by no rule set either: validate_object
// hands the rules the object as the cluster's webhooks and controllers will see it.
TEST(SchemaSetUpstream, PrunedNullsReachNoRule) {
  CFO_REQUIRE_SCHEMAS();
  auto rc = yaml1(raycluster_yaml());
  auto with_nulls = patched(rc, {{"metadata.labels[team]", "null"},
                                 {"spec.headGroupSpec.rayStartParams[num-cpus]", "null"},
                                 {"spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "null"},
                                 {"spec.workerGroupSpecs[0].template.metadata.annotations[note]", "null"},
                                 {"status", "{state: [not, a, string]}"}});
  auto errs = validation::validate_object(schemas, with_nulls);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
  // The same values written as wrong types are still errors, from the schema and from the Pod rules.
  auto wrong = patched(rc, {{"spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu", "[1]"}});
  EXPECT_GT(error_count(validation::validate_object(schemas, wrong)), 0u);
  SchemaSet empty;
  json::Document out;
  EXPECT_FALSE(empty.prepare(with_nulls, out)) << "an unknown kind is left alone";
  EXPECT_TRUE(schemas.prepare(with_nulls, out));
  EXPECT_EQ(json::get_string(*json::find_path(out, "metadata.labels"), "team"), "");
  EXPECT_FALSE(json::find(out, "status"));
  EXPECT_FALSE(schemas.prepare(rc, out)) << "nothing to change";
}

TEST(SchemaSetUpstream, PodSpecStrictDecoding) {
  CFO_REQUIRE_SCHEMAS();
  auto spec = yaml1("containers: [{name: c, image: x, imagePullPolicyy: Always}]\nrestartPolicy: Never\n");
  auto errs = schemas.validate_pod_spec(spec);
  ASSERT_EQ(errs.size(), 1u) << describe(errs);
  EXPECT_EQ(errs[0].path, "containers[0].imagePullPolicyy");
  EXPECT_EQ(errs[0].source, "core/v1:PodSpec");
  EXPECT_TRUE(
      has(schemas.validate_pod_spec(yaml1("containers: [{image: x}]")), "containers[0].name", "schema:required"));
}

TEST(SchemaSetUpstream, ConcurrentValidationIsSafe) {
  CFO_REQUIRE_SCHEMAS();
  auto good = yaml1(raycluster_yaml());
  auto bad = patched(good, {{"spec.headGroupSpec.rayStartParams.num-cpus", "1"}});
  std::atomic<int> mismatches{0};
  auto work = [&] {
    for (int i = 0; i < 200; ++i) {
      if (!schemas.validate(good).empty()) ++mismatches;
      if (schemas.validate(bad).size() != 1) ++mismatches;
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(SchemaSetUpstream, AbsurdlyDeepObjectIsReportedNotRecursedInto) {
  CFO_REQUIRE_SCHEMAS();
  std::string text = "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"x\"},\"spec\":";
  for (int i = 0; i < 400; ++i) text += "[";
  for (int i = 0; i < 400; ++i) text += "]";
  text += "}";
  auto doc = json::parse(text);
  ASSERT_TRUE(doc.has_value());
  auto errs = schemas.validate(*doc);
  ASSERT_EQ(errs.size(), 1u) << describe(errs);
  EXPECT_EQ(errs[0].rule, "schema:depth");
  auto all = validation::validate_object(schemas, *doc);  // the rules must not choke either
  EXPECT_TRUE(has(all, "", "schema:depth")) << describe(all);
}
