// validation/rule_catalog.hpp: every rule id that rules/*.cpp reports is in the catalog and the other way round,
// and findings follow the profile they are judged under.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_support.hpp"
#include "validation/rule_catalog.hpp"

using namespace cfo;
using namespace cfo::test;

namespace {
/// The rule ids reported in controller/validation/rules/*.cpp, found as test/mutations/run_corpus.py finds them:
/// the first CamelCase (or schema:...) string literal of each sink.error/warn/add call, and every literal that names
/// an upstream validation function (validateX / ValidateX) or Pod Security check (CheckX).
std::set<std::string> reported_ids() {
  std::set<std::string> ids;
  const std::filesystem::path dir = std::filesystem::path(CFO_SOURCE_DIR) / "controller" / "validation" / "rules";
  const std::regex validate_name(R"re("([vV]alidate[A-Z][A-Za-z0-9]*|Check[A-Z][A-Za-z0-9]*)")re");
  const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
  const std::regex rule_id(R"re([A-Z][A-Za-z0-9]+|schema:[A-Za-z]+)re");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), validate_name), end; it != end; ++it) ids.insert((*it)[1]);
    for (std::size_t at = text.find("sink.", 0); at != std::string::npos; at = text.find("sink.", at + 1)) {
      std::size_t open = text.find('(', at);
      const std::string verb = text.substr(at + 5, open - at - 5);
      if (verb != "error" && verb != "warn" && verb != "add") continue;
      int depth = 1;
      std::size_t i = open + 1;
      for (; i < text.size() && depth; ++i) depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      const std::string call = text.substr(open + 1, i - open - 1);
      for (std::sregex_iterator it(call.begin(), call.end(), literal), end; it != end; ++it)
        if (std::regex_match((*it)[1].str(), rule_id)) {
          ids.insert((*it)[1]);
          break;
        }
    }
  }
  return ids;
}
}  // namespace

TEST(RuleCatalog, ListsEveryReportedRuleAndNoOther) {
  std::set<std::string> in_catalog;
  for (const auto& r : validation::rule_catalog()) {
    EXPECT_TRUE(in_catalog.insert(std::string(r.id)).second) << "listed twice: " << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_NE(r.profiles & validation::kAllProfiles, 0u) << r.id;
  }
  for (const auto& id : reported_ids()) {
    if (id.starts_with("schema:")) continue;
    EXPECT_TRUE(in_catalog.count(id)) << "reported by rules/*.cpp but not in the catalog: " << id;
  }
  const auto reported = reported_ids();
  for (const auto& id : in_catalog) EXPECT_TRUE(reported.count(id)) << "in the catalog but reported nowhere: " << id;
}

TEST(RuleCatalog, FindAndProfiles) {
  ASSERT_NE(validation::find_rule("EnableIngress"), nullptr);
  EXPECT_EQ(validation::find_rule("NoSuchRule"), nullptr);
  EXPECT_FALSE(validation::rule_applies("EnableIngress", validation::Profile::kVanilla));
  EXPECT_TRUE(validation::rule_applies("EnableIngress", validation::Profile::kOdh));
  EXPECT_TRUE(validation::rule_applies("UniqueGroupName", validation::Profile::kVanilla));
  EXPECT_TRUE(validation::rule_applies("schema:required", validation::Profile::kOdh)) << "the CRDs' own checks";
  EXPECT_EQ(validation::profiles_text(validation::kAllProfiles), "vanilla,odh");
  EXPECT_EQ(validation::profiles_text(validation::kOdhProfile), "odh");
}

TEST(RuleCatalog, ProfileNamesAndMaxPodSetsOfTheWorkloadCrd) {
  EXPECT_EQ(validation::parse_profile("odh"), validation::Profile::kOdh);
  EXPECT_EQ(validation::parse_profile("vanilla"), validation::Profile::kVanilla);
  EXPECT_FALSE(validation::parse_profile("rhoai"));
  auto crd = yaml1(R"(
kind: CustomResourceDefinition
spec:
  versions:
    - {name: v1beta1, storage: false, schema: {openAPIV3Schema: {properties: {spec: {properties: {podSets: {maxItems: 8}}}}}}}
    - {name: v1beta2, storage: true, schema: {openAPIV3Schema: {properties: {spec: {properties: {podSets: {maxItems: 18}}}}}}}
)");
  EXPECT_EQ(validation::kueue_max_pod_sets_of(crd), 18) << "the storage version's";
  auto old = yaml1(
      "{kind: CustomResourceDefinition, spec: {versions: [{name: v1beta1, storage: true, schema: "
      "{openAPIV3Schema: {properties: {spec: {properties: {podSets: {}}}}}}}]}}");
  EXPECT_EQ(validation::kueue_max_pod_sets_of(old), 0);
}
