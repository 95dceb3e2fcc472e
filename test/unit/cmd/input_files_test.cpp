// The input layer of `validate` and `render`: v1 List unwrapping, YAML errors as findings, skipped API groups, and
// how entries are named in the text and JSON output.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "cmd/findings_output.hpp"
#include "cmd/input_files.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/yaml.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {
std::string kind_of(const InputDocument& in) { return json::get_string(in.doc, "kind").value_or(""); }
std::string name_of(const InputDocument& in) {
  const json::Value* meta = json::find(in.doc, "metadata");
  return meta ? json::get_string(*meta, "name").value_or("") : "";
}
}  // namespace

TEST(InputFiles, PlainDocumentsKeepTheirIndex) {
  auto docs = documents_of_text("f.yaml", "kind: A\napiVersion: x/v1\n---\nkind: B\napiVersion: x/v1\n");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1].index, 1u);
  EXPECT_TRUE(docs[1].item.empty());
  EXPECT_TRUE(docs[1].problems.empty());
  EXPECT_EQ(kind_of(docs[1]), "B");
  EXPECT_EQ(position(docs[1]), "document 1");
}

// Each document knows where it begins in its file's text (for the line and column of findings), also after an
// empty document and a comment, with characters of several bytes before it.
TEST(InputFiles, DocumentsKnowTheLineTheyBeginOn) {
  const std::string text = "# é\nkind: A\n---\n---\n# ü\nkind: B\nspec: {x: 1}\n";
  auto docs = documents_of_text("f.yaml", text);
  ASSERT_EQ(docs.size(), 2u);
  ASSERT_TRUE(docs[0].text);
  EXPECT_EQ(docs[0].text.get(), docs[1].text.get());  // one copy of the text per file
  EXPECT_EQ(docs[0].start.line, 2u);
  EXPECT_EQ(docs[1].start.line, 4u);
  EXPECT_EQ(text.substr(docs[1].start.line_offset, 4), "---\n");
  auto at = yaml::locate(std::string_view(*docs[1].text).substr(docs[1].start.line_offset), 0, "spec.x");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->line + docs[1].start.line - 1, 7u);
  EXPECT_EQ(at->column, 8u);
}

TEST(InputFiles, AV1ListIsReplacedByItsItems) {
  auto docs = documents_of_text("l.yaml",
                                "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: before}\n---\n"
                                "apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n"
                                "- {apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: a, namespace: ns}}\n"
                                "- {apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: b}}\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(name_of(docs[0]), "before");
  EXPECT_EQ(name_of(docs[1]), "a");
  EXPECT_EQ(name_of(docs[2]), "b");
  EXPECT_EQ(docs[2].index, 1u);
  EXPECT_EQ(docs[2].item, std::vector<std::size_t>{1});
  EXPECT_EQ(position(docs[2]), "document 1, item 1");
  EXPECT_EQ(describe_object(docs[1]), "RayCluster ns/a (document 1, item 0)");
  EXPECT_EQ(describe_object(docs[0]), "RayCluster before");
  for (const auto& d : docs) EXPECT_TRUE(d.problems.empty());
}

TEST(InputFiles, ATypedListIsReplacedByItsItemsToo) {
  auto docs =
      documents_of_text("t.json", R"({"apiVersion":"ray.io/v1","kind":"RayClusterList","metadata":{},"items":[)"
                                  R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"x"}}]})");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(name_of(docs[0]), "x");
  EXPECT_EQ(docs[0].item, std::vector<std::size_t>{0});
  // A kind ending in "List" without an items list is an object like any other.
  auto plain = documents_of_text("p.yaml", "apiVersion: example.com/v1\nkind: WatchList\nspec: {}\n");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_TRUE(plain[0].item.empty());
}

TEST(InputFiles, NestedListsAreNumberedPerLevel) {
  auto docs = documents_of_text("n.yaml",
                                "apiVersion: v1\nkind: List\nitems:\n"
                                "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c0}}\n"
                                "- apiVersion: v1\n  kind: List\n  items:\n"
                                "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c10}}\n"
                                "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c11}}\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(name_of(docs[2]), "c11");
  EXPECT_EQ((docs[2].item), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(position(docs[2]), "document 0, item 1.1");
  EXPECT_EQ(position(docs[0]), "document 0, item 0");
}

TEST(InputFiles, AnItemThatIsNotAMapIsAProblemOfThatItemOnly) {
  auto docs = documents_of_text("s.yaml",
                                "apiVersion: v1\nkind: List\nitems:\n- just a string\n"
                                "- {apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: ok}}\n");
  ASSERT_EQ(docs.size(), 2u);
  ASSERT_EQ(docs[0].problems.size(), 1u);
  EXPECT_EQ(docs[0].problems[0].rule, "list:itemNotAnObject");
  EXPECT_EQ(docs[0].problems[0].severity, Severity::Error);
  EXPECT_NE(docs[0].problems[0].reason.find("string"), std::string::npos);
  EXPECT_EQ(position(docs[0]), "document 0, item 0");
  EXPECT_TRUE(docs[1].problems.empty());
  EXPECT_EQ(name_of(docs[1]), "ok");
}

TEST(InputFiles, EmptyAndMalformedLists) {
  EXPECT_TRUE(documents_of_text("e.yaml", "apiVersion: v1\nkind: List\nitems: []\n").empty());
  EXPECT_TRUE(documents_of_text("e.yaml", "apiVersion: v1\nkind: List\n").empty());
  auto docs = documents_of_text("m.yaml", "apiVersion: v1\nkind: List\nitems: {a: 1}\n");
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(docs[0].problems.size(), 1u);
  EXPECT_EQ(docs[0].problems[0].path, "items");
  EXPECT_EQ(docs[0].problems[0].rule, "list:items");
  // A typed list with no items holds nothing either; one whose items is not a list is an object like any other.
  EXPECT_TRUE(documents_of_text("t.yaml", "apiVersion: ray.io/v1\nkind: RayClusterList\nitems: []\n").empty());
  auto typed = documents_of_text("t.yaml", "apiVersion: ray.io/v1\nkind: RayClusterList\nitems: {a: 1}\n");
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(kind_of(typed[0]), "RayClusterList");
}

TEST(InputFiles, SyntaxErrorsAndDuplicateKeysAreFindingsOfTheWholeFile) {
  for (const char* text : {"a: [1, 2\nb: c\n", "kind: A\nkind: B\n"}) {
    auto docs = documents_of_text("bad.yaml", text);
    ASSERT_EQ(docs.size(), 1u) << text;
    EXPECT_TRUE(docs[0].whole_file);
    EXPECT_EQ(docs[0].file, "bad.yaml");
    ASSERT_EQ(docs[0].problems.size(), 1u);
    EXPECT_EQ(docs[0].problems[0].rule, "yaml:syntax");
    EXPECT_EQ(docs[0].problems[0].source, "yaml");
    EXPECT_EQ(docs[0].problems[0].path, "");
    EXPECT_NE(docs[0].problems[0].reason.find("line"), std::string::npos) << docs[0].problems[0].reason;
    EXPECT_EQ(position(docs[0]), "whole file");
    EXPECT_TRUE(docs[0].syntax_error_at.has_value()) << "the place, for -o json's line and column: " << text;
  }
  // The duplicate key is the second `kind`, at line 2, column 1.
  auto dup = documents_of_text("dup.yaml", "kind: A\nkind: B\n");
  ASSERT_TRUE(dup[0].syntax_error_at.has_value());
  EXPECT_EQ(dup[0].syntax_error_at->line, 2u);
  EXPECT_EQ(dup[0].syntax_error_at->column, 1u);
}

TEST(InputFiles, ReadInputsGoesOnPastABrokenFileButNotPastAMissingOne) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cfo_input_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "a: [1\n";
  std::ofstream(dir / "b.yaml") << "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n";
  std::ofstream(dir / "c.txt") << "ignored: [\n";
  // --crds: a broken file is an error naming it.
  auto strict = read_inputs({dir.string()});
  ASSERT_FALSE(strict.has_value());
  EXPECT_NE(strict.error().message.find("a.yaml: "), std::string::npos) << strict.error().message;
  // -f: it is an entry, and the other files are still read.
  auto docs = read_inputs({dir.string()}, ReadOptions{OnYamlError::kAsEntry});
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  ASSERT_EQ(docs->docs.size(), 2u);
  EXPECT_TRUE(docs->docs[0].whole_file);
  EXPECT_EQ(kind_of(docs->docs[1]), "ConfigMap");
  auto missing = read_inputs({(dir / "missing.yaml").string()}, ReadOptions{OnYamlError::kAsEntry});
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("missing.yaml: no such file or folder"), std::string::npos)
      << missing.error().message;
  fs::remove_all(dir);
}

// As `kubectl apply -f DIR`: .yaml, .yml and .json files, sub-folders only with -R; what is not read is reported, and
// so is an input that holds no object. A kustomize file is read but marked (it describes a build, not an object).
// A file met again (given twice, through another spelling of its path or a link, or also inside a folder given) is
// read the first time only: its objects would otherwise be judged, or rendered, twice (the thirty-first trial).
TEST(InputFiles, AFileMetAgainIsReadOnce) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cfo_input_repeats_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "{apiVersion: v1, kind: ConfigMap}\n";
  std::ofstream(dir / "b.yaml") << "{apiVersion: v1, kind: Secret}\n";
  fs::create_symlink(dir / "b.yaml", dir / "b-link.yml");
  const std::string a = (dir / "a.yaml").string(), a_again = (dir / "." / "a.yaml").string();
  auto in = read_inputs({a, dir.string(), a_again}, ReadOptions{OnYamlError::kAsEntry});
  ASSERT_TRUE(in.has_value()) << in.error().message;
  std::vector<std::string> kinds;
  for (const auto& d : in->docs) kinds.push_back(kind_of(d));
  EXPECT_EQ(kinds, (std::vector<std::string>{"ConfigMap", "Secret"}));
  // The folder lists b-link.yml before b.yaml ('-' sorts before '.'): the link is read, the file is the repeat.
  EXPECT_EQ(in->repeated_files, (std::vector<std::string>{a, (dir / "b.yaml").string(), a_again}));
  fs::remove_all(dir);
}

TEST(InputFiles, FoldersAreReadAsKubectlReadsThem) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cfo_input_folders_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml") << "{apiVersion: v1, kind: ConfigMap}\n";
  std::ofstream(dir / "b.json") << R"({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Secret"}]})";
  std::ofstream(dir / "c.json") << "# YAML, named .json: the YAML route\n{kind: A}\n---\n{kind: B}\n";
  std::ofstream(dir / "empty.yml") << "# nothing here\n---\n";
  std::ofstream(dir / "kustomization.yaml") << "resources: [a.yaml]\n";
  std::ofstream(dir / "notes.txt") << "not a manifest\n";
  std::ofstream(dir / "sub" / "d.yaml") << "{kind: Deep}\n";
  auto flat = read_inputs({dir.string()}, ReadOptions{OnYamlError::kAsEntry});
  ASSERT_TRUE(flat.has_value()) << flat.error().message;
  std::vector<std::string> kinds;
  for (const auto& d : flat->docs) kinds.push_back(d.whole_file ? "<broken>" : kind_of(d));
  EXPECT_EQ(kinds, (std::vector<std::string>{"ConfigMap", "Secret", "A", "B", ""}));
  EXPECT_TRUE(flat->docs.back().kustomize);
  EXPECT_FALSE(flat->docs.front().kustomize);
  EXPECT_EQ(flat->skipped_files, (std::vector<std::string>{(dir / "notes.txt").string()}));
  EXPECT_EQ(flat->empty_inputs, (std::vector<std::string>{(dir / "empty.yml").string()}));
  // Links to folders are not followed (kubectl's -R does not): two links back up would never end.
  fs::create_directory_symlink(dir, dir / "sub" / "up1");
  fs::create_directory_symlink(dir, dir / "sub" / "up2");
  auto deep = read_inputs({dir.string()}, ReadOptions{OnYamlError::kAsEntry, true});
  ASSERT_TRUE(deep.has_value()) << deep.error().message;
  ASSERT_EQ(deep->docs.size(), 6u);
  EXPECT_EQ(kind_of(deep->docs.back()), "Deep");
  EXPECT_NE(std::find(deep->skipped_files.begin(), deep->skipped_files.end(), (dir / "sub" / "up1").string()),
            deep->skipped_files.end());
  fs::remove_all(dir);
}

TEST(SkippedGroups, GroupsOfApiVersions) {
  EXPECT_EQ(api_group("ray.io/v1"), "ray.io");
  EXPECT_EQ(api_group("v1"), "");
  EXPECT_EQ(api_group("ray.io/v1/extra"), "ray.io");
}

TEST(SkippedGroups, OnlyObjectsOfUnknownGroupsAreSkipped) {
  const CheckedApis groups{{"ray.io", "kueue.x-k8s.io", "codeflare.dev"}, {"RayCluster", "LocalQueue"}};
  auto doc = [](const char* text) { return std::move(*json::parse(text)); };
  EXPECT_TRUE(skip_reason(doc(R"({"apiVersion":"v1","kind":"ConfigMap"})"), groups));
  EXPECT_TRUE(skip_reason(doc(R"({"apiVersion":"apps/v1","kind":"Deployment"})"), groups));
  EXPECT_TRUE(skip_reason(doc(R"({"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization"})"), groups));
  // A known group with a wrong version or kind is most likely a typo: judged (and rejected).
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"kueue.x-k8s.io/v1beta9","kind":"LocalQueue"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"ray.io/v1","kind":"RayClustr"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"codeflare.dev/v1","kind":"CodeFlareWorkload"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"ray.io","kind":"RayCluster"})"), groups));
  // A known kind under another group is a typo too ("v1" for "ray.io/v1", a capital letter in the group).
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"v1","kind":"RayCluster"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"Ray.io/v1","kind":"RayCluster"})"), groups));
  // Without apiVersion or kind, nothing says what it is: judged (and rejected).
  EXPECT_FALSE(skip_reason(doc(R"({"kind":"ConfigMap"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"v1"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":"","kind":"ConfigMap"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"({"apiVersion":1,"kind":"ConfigMap"})"), groups));
  EXPECT_FALSE(skip_reason(doc(R"("text")"), groups));
}

TEST(FindingsOutput, JsonNamesTheItemAndTheSkip) {
  auto docs = documents_of_text("l.yaml",
                                "apiVersion: v1\nkind: List\nitems:\n"
                                "- {apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: default}}\n");
  ASSERT_EQ(docs.size(), 1u);
  json::Document arr(rapidjson::kArrayType);
  append_skipped_json(arr, arr.GetAllocator(), docs[0], "no schema for this API group; not checked");
  ASSERT_EQ(arr.Size(), 1u);
  const json::Value& e = arr[0];
  EXPECT_EQ(json::get_string(e, "item"), "0");
  EXPECT_EQ(e["document"].GetUint64(), 0u);
  EXPECT_TRUE(e["skipped"].GetBool());
  EXPECT_EQ(json::get_string(e, "severity"), "info");
  EXPECT_EQ(json::get_string(e, "rule"), kSkippedRule);
  std::ostringstream text;
  print_skipped_text(text, docs[0], "no schema for this API group; not checked");
  EXPECT_EQ(text.str(),
            "l.yaml: skipped: v1 ConfigMap default/x (document 0, item 0) (no schema for this API group; not "
            "checked)\n");

  auto bad = documents_of_text("bad.yaml", "a: [\n");
  json::Document arr2(rapidjson::kArrayType);
  append_findings_json(arr2, arr2.GetAllocator(), bad[0], bad[0].problems);
  ASSERT_EQ(arr2.Size(), 1u);
  EXPECT_TRUE(arr2[0]["document"].IsNull());
  EXPECT_FALSE(arr2[0].HasMember("item"));
  EXPECT_EQ(json::get_string(arr2[0], "severity"), "error");
  std::ostringstream line;
  print_findings_text(line, bad[0], bad[0].problems);
  ASSERT_TRUE(bad[0].syntax_error_at.has_value());
  const std::string place = "bad.yaml:" + std::to_string(bad[0].syntax_error_at->line) + ":" +
                            std::to_string(bad[0].syntax_error_at->column) + ": error: the file is not valid YAML: ";
  EXPECT_EQ(line.str().rfind(place, 0), 0u) << line.str();
}

// A stream of 1 MiB or more is converted a part per core: the entries, their indexes and places are those of one
// conversion, and a syntax error far into it is still one whole-file finding at its line in the whole text.
TEST(InputFiles, ALargeStreamConvertedInPartsKeepsOrderIndexesAndPlaces) {
  std::string text;
  std::vector<std::size_t> lines;  // where each document's first line is
  std::size_t line = 1;
  std::string last;  // the name of the last entry
  const std::string padding(200, 'x');
  for (int i = 0; text.size() < (std::size_t{3} << 20); ++i) {
    if (i % 1000 == 7) {  // now and then an empty document and a List of two items
      text += "---\n---\napiVersion: v1\nkind: List\nitems:\n- {kind: A, metadata: {name: l" + std::to_string(i) +
              "a}}\n- {kind: A, metadata: {name: l" + std::to_string(i) + "b}}\n";
      lines.push_back(line + 1);
      line += 7;
      last = "l" + std::to_string(i) + "b";
      continue;
    }
    text += "---\nkind: A\nmetadata:\n  name: d" + std::to_string(i) + "\ndata: " + padding + "\n";
    lines.push_back(line);
    line += 5;
    last = "d" + std::to_string(i);
  }
  auto docs = documents_of_text("big.yaml", text);
  std::size_t entry = 0;
  for (std::size_t d = 0; d < lines.size(); ++d) {
    ASSERT_LT(entry, docs.size());
    EXPECT_EQ(docs[entry].index, d);
    EXPECT_EQ(docs[entry].start.line, lines[d]) << "document " << d;
    entry += docs[entry].item.empty() ? 1 : 2;
  }
  EXPECT_EQ(entry, docs.size());
  EXPECT_EQ(name_of(docs.back()), last) << "the last document last";
  // A syntax error in the last part: the whole file is one finding, at the line of the whole text.
  const std::string broken = text + "---\nkind: [\n";
  auto bad = documents_of_text("big.yaml", broken);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_TRUE(bad[0].whole_file);
  ASSERT_TRUE(bad[0].syntax_error_at);
  EXPECT_GE(bad[0].syntax_error_at->line, line + 1);
}

// The alias limit (yaml::kMaxAliasNodes) holds for a file, also when a large one is converted a part per core: 120
// documents that each copy about 10,000 nodes through an alias pass it together, not part by part (the twenty-ninth
// user trial: a 1.2 MB file passed where the same documents in 250 KB were refused).
TEST(InputFiles, TheAliasLimitHoldsForALargeFileConvertedInParts) {
  std::string list = "[";
  for (int i = 0; i < 10000; ++i) list += i ? ",0" : "0";
  list += "]";
  std::string text;
  for (int i = 0; i < 120; ++i)
    text += "---\nkind: A\nmetadata: {name: d" + std::to_string(i) + "}\ndata:\n  a: &x " + list + "\n  b: *x\n";
  ASSERT_GE(text.size(), std::size_t{1} << 20) << "large enough to be converted in parts";
  auto docs = documents_of_text("aliases.yaml", text);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].whole_file);
  ASSERT_FALSE(docs[0].problems.empty());
  EXPECT_NE(docs[0].problems[0].reason.find("aliases expand"), std::string::npos) << docs[0].problems[0].reason;
  // The first 90 documents (about 900,000 copied nodes) stay within it.
  std::string within;
  for (int i = 0; i < 90; ++i)
    within += "---\nkind: A\nmetadata: {name: d" + std::to_string(i) + "}\ndata:\n  a: &x " + list + "\n  b: *x\n";
  EXPECT_EQ(documents_of_text("aliases.yaml", within).size(), 90u);
}

// --kubernetes-version: the minor of a 1.x version, with or without "v" and a patch; anything else is refused.
TEST(KubernetesVersionFlag, GivesTheMinorOfA1xVersion) {
  EXPECT_EQ(kubernetes_minor_of_flag("1.31"), 31);
  EXPECT_EQ(kubernetes_minor_of_flag("v1.32"), 32);
  EXPECT_EQ(kubernetes_minor_of_flag("1.29.4"), 29);
  EXPECT_EQ(kubernetes_minor_of_flag("v1.20.2"), 20);
  for (const char* bad : {"", "1", "1.", "2.0", "v2.1", "1.x", "1.31x", "1.1000", "31", "1.31-rc"})
    EXPECT_EQ(kubernetes_minor_of_flag(bad), std::nullopt) << bad;
}
