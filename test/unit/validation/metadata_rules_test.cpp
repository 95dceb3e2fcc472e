// rules/metadata_rules.cpp: apimachinery ObjectMeta, labels, annotations, selectors, embedded resources.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

TEST(MetadataRules, ValidObjectsHaveNoErrors) {
  CFO_REQUIRE_SCHEMAS();
  for (const char* y : {raycluster_yaml(), rayjob_yaml(), appwrapper_yaml(), clusterqueue_yaml(), resourceflavor_yaml(),
                        localqueue_yaml()}) {
    auto errs = validate_object(schemas, yaml1(y));
    EXPECT_TRUE(errs.empty()) << y << "\n" << describe(errs);
  }
}

TEST(MetadataRules, NameRequired) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.name", "~delete"}}));
  EXPECT_TRUE(has(errs, "metadata.name", "NameRequired")) << describe(errs);
  EXPECT_EQ(matching(errs, "metadata.name", "NameRequired")[0].source, "apimachinery:ObjectMeta");
}

TEST(MetadataRules, DNS1123SubdomainName) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.name", "Team_A"}}));
  EXPECT_TRUE(has(errs, "metadata.name", "DNS1123SubdomainName")) << describe(errs);
}

TEST(MetadataRules, GenerateName) {
  CFO_REQUIRE_SCHEMAS();
  auto ok = validate_object(
      schemas, patched(yaml1(localqueue_yaml()), {{"metadata.name", "~delete"}, {"metadata.generateName", "queue-"}}));
  EXPECT_EQ(error_count(ok), 0u) << describe(ok);
  auto errs = validate_object(
      schemas, patched(yaml1(localqueue_yaml()), {{"metadata.name", "~delete"}, {"metadata.generateName", "Queue_"}}));
  EXPECT_TRUE(has(errs, "metadata.generateName", "GenerateName")) << describe(errs);
}

TEST(MetadataRules, GenerateNameIsCheckedEvenWithAName) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.generateName", "x_"}}));
  EXPECT_TRUE(has(errs, "metadata.generateName", "GenerateName")) << describe(errs);
}

TEST(MetadataRules, FinalizersOwnerReferencesAndTimestamps) {
  CFO_REQUIRE_SCHEMAS();
  const auto lq = yaml1(localqueue_yaml());
  auto good = validate_object(
      schemas, patched(lq, {{"metadata.finalizers", "[example.com/cleanup, kubernetes]"},
                            {"metadata.ownerReferences",
                             "[{apiVersion: v1, kind: ConfigMap, name: owner, uid: u-1, controller: true}]"},
                            {"metadata.creationTimestamp", "'2024-01-01T00:00:00Z'"}}));
  EXPECT_EQ(error_count(good), 0u) << describe(good);
  auto bad = validate_object(schemas,
                             patched(lq, {{"metadata.finalizers", "['', 'bad name!', null]"},
                                          {"metadata.ownerReferences",
                                           "[{}, null, {apiVersion: v1, kind: A, name: a, uid: '1', controller: true},"
                                           " {apiVersion: v1, kind: B, name: b, uid: '2', controller: true}]"},
                                          {"metadata.creationTimestamp", "'2024-01-01t00:00:00z'"}}));
  EXPECT_TRUE(has(bad, "metadata.finalizers[0]", "Finalizers")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.finalizers[1]", "Finalizers")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.finalizers[2]", "schema:type")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.ownerReferences[0].uid", "OwnerReferences")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.ownerReferences[1]", "schema:type")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.ownerReferences", "OwnerReferences")) << describe(bad);
  EXPECT_TRUE(has(bad, "metadata.creationTimestamp", "schema:format")) << describe(bad);
  auto both = validate_object(schemas, patched(lq, {{"metadata.finalizers", "[orphan, foregroundDeletion]"}}));
  EXPECT_TRUE(has(both, "metadata.finalizers", "Finalizers")) << describe(both);
}

TEST(MetadataRules, DNS1123LabelNamespace) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.namespace", "team.a"}}));
  EXPECT_TRUE(has(errs, "metadata.namespace", "DNS1123LabelNamespace")) << describe(errs);
}

TEST(MetadataRules, ClusterScopedNamespaceIsAWarning) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(clusterqueue_yaml()), {{"metadata.namespace", "team-a"}}));
  EXPECT_TRUE(has(errs, "metadata.namespace", "ClusterScopedNamespace", Severity::Warning)) << describe(errs);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
}

TEST(MetadataRules, LabelKeyAndValue) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(
      schemas, patched(yaml1(localqueue_yaml()),
                       {{"metadata.labels[bad key!]", "x"}, {"metadata.labels.long", std::string(64, 'a')}}));
  EXPECT_TRUE(has(errs, "metadata.labels[bad key!]", "LabelKey")) << describe(errs);
  EXPECT_TRUE(has(errs, "metadata.labels.long", "LabelValue")) << describe(errs);
}

TEST(MetadataRules, AnnotationKeyAndTotalSize) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.annotations[-bad]", "x"}}));
  EXPECT_TRUE(has(errs, "metadata.annotations.-bad", "AnnotationKey")) << describe(errs);
  auto big = validate_object(
      schemas, patched(yaml1(localqueue_yaml()), {{"metadata.annotations.a", std::string(140 * 1024, 'x')},
                                                  {"metadata.annotations.b", std::string(140 * 1024, 'y')}}));
  EXPECT_TRUE(has(big, "metadata.annotations", "AnnotationsTotalSize")) << describe(big);
}

TEST(MetadataRules, ObjectMetaShape) {
  CFO_REQUIRE_SCHEMAS();
  auto errs =
      validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata.nmae", "x"}, {"metadata.labels.n", "1"}}));
  EXPECT_TRUE(has(errs, "metadata.nmae", "schema:unknownField")) << describe(errs);
  EXPECT_TRUE(has(errs, "metadata.labels.n", "schema:type")) << describe(errs);
  auto not_map = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"metadata", "[1]"}}));
  EXPECT_TRUE(has(not_map, "metadata", "schema:type")) << describe(not_map);
}

TEST(MetadataRules, EmbeddedResourceTypeMeta) {
  CFO_REQUIRE_SCHEMAS();
  auto errs =
      validate_object(schemas, patched(yaml1(appwrapper_yaml()), {{"spec.components[0].template.kind", "~delete"}}));
  EXPECT_TRUE(has(errs, "spec.components[0].template.kind", "EmbeddedKind")) << describe(errs);
  auto av = validate_object(schemas,
                            patched(yaml1(appwrapper_yaml()), {{"spec.components[0].template.apiVersion", "a/b/c"}}));
  EXPECT_TRUE(has(av, "spec.components[0].template.apiVersion", "EmbeddedAPIVersion")) << describe(av);
}

TEST(MetadataRules, LabelSelector) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(
      schemas, patched(yaml1(clusterqueue_yaml()),
                       {{"spec.namespaceSelector", "{matchExpressions: [{key: team, operator: Maybe}]}"}}));
  EXPECT_TRUE(has(errs, "spec.namespaceSelector.matchExpressions[0].operator", "LabelSelector")) << describe(errs);
  auto in = validate_object(schemas,
                            patched(yaml1(clusterqueue_yaml()),
                                    {{"spec.namespaceSelector", "{matchExpressions: [{key: team, operator: In}]}"}}));
  EXPECT_TRUE(has(in, "spec.namespaceSelector.matchExpressions[0].values", "LabelSelector")) << describe(in);
}

TEST(MetadataRules, FindingsAreInDocumentOrder) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(raycluster_yaml()), {{"spec.workerGroupSpecs[0].minReplicas", "5"},
                                                                          {"metadata.name", "1-bad"}}));
  ASSERT_GE(errs.size(), 2u) << describe(errs);
  EXPECT_EQ(errs.front().path, "metadata.name") << describe(errs);
}

TEST(MetadataRules, NonObjectIsReportedNotThrown) {
  CFO_REQUIRE_SCHEMAS();
  json::Document arr(rapidjson::kArrayType);
  auto errs = validate_object(schemas, arr);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rule, "schema:type");
  auto unknown = validate_object(schemas, yaml1("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: x}\n"));
  EXPECT_TRUE(has(unknown, "apiVersion", "schema:unknownKind")) << describe(unknown);
}
