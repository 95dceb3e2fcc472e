// The cache of --crds (crd_cache.hpp): a CRD file parsed once is read from its entry after that, as long as the file
// is unchanged; an entry that cannot be read or written is a miss, never an error; descriptions are stripped alike
// whether the CRD comes from the file or from the cache.
#include "cmd/crd_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cmd/crd_schemas.hpp"
#include "core/yaml.hpp"

using namespace cfo;
using namespace cfo::cmd;
namespace fs = std::filesystem;

namespace {
// A CRD of kind `kind` in group example.dev, with descriptions at the top of its schema, on a property, in a printer
// column, and a field named "description".
std::string crd_yaml(const std::string& kind) {
  return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
         "metadata: {name: widgets.example.dev}\n"
         "spec:\n  group: example.dev\n  names: {kind: " +
         kind +
         ", plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
         "    additionalPrinterColumns: [{name: Size, type: integer, jsonPath: .spec.size, description: how big}]\n"
         "    schema:\n      openAPIV3Schema:\n        description: A widget.\n        type: object\n"
         "        properties:\n          spec:\n            type: object\n            description: What it is.\n"
         "            properties:\n              description: {type: string, description: a field named so}\n"
         "              size: {type: integer, minimum: 1}\n";
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cfo-crd-cache-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> entries(const fs::path& cache) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache / "crds", ec)) out.push_back(e.path());
  return out;
}
}  // namespace

TEST(CrdCache, DescriptionsGoAndAFieldNamedDescriptionStays) {
  auto doc = yaml::to_json(crd_yaml("Widget"));
  ASSERT_TRUE(doc.has_value());
  ASSERT_EQ(doc->size(), 1u);
  json::Value& crd = (*doc)[0];
  strip_descriptions(crd);
  const std::string out = json::dump(crd);
  EXPECT_EQ(out.find("A widget."), std::string::npos) << out;
  EXPECT_EQ(out.find("What it is."), std::string::npos) << out;
  EXPECT_EQ(out.find("how big"), std::string::npos) << out;
  EXPECT_EQ(out.find("a field named so"), std::string::npos) << out;
  const json::Value* field = json::find_path(crd, "spec.versions");
  ASSERT_TRUE(field && field->IsArray());
  const json::Value* props = json::find_path((*field)[0], "schema.openAPIV3Schema.properties.spec.properties");
  ASSERT_TRUE(props);
  EXPECT_TRUE(json::find(*props, "description")) << "a property named description is a field";
  EXPECT_TRUE(json::find(*props, "size"));
}

TEST(CrdCache, AFileParsedOnceIsReadFromItsEntryWhileItIsUnchanged) {
  TempDir tmp;
  const fs::path file = tmp.path / "widgets.yaml";
  const fs::path cache = tmp.path / "cache";
  write(file, crd_yaml("Widget"));
  auto first = load_schemas_from_files({file.string()}, {}, cache.string());
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_TRUE(first->schemas.has("example.dev/v1", "Widget"));
  auto stored = entries(cache);
  ASSERT_EQ(stored.size(), 1u) << "one entry per CRD file";
  // The entry is what the next run reads: rewritten by hand to name another kind, that kind is what it finds.
  std::ifstream in(stored[0]);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("A widget."), std::string::npos) << "stored without descriptions";
  const std::size_t at = text.find("\"kind\":\"Widget\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 15, "\"kind\":\"Gadget\"");
  write(stored[0], text);
  auto second = load_schemas_from_files({file.string()}, {}, cache.string());
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_TRUE(second->schemas.has("example.dev/v1", "Gadget")) << "read from the entry, not the file";
  // The file changes (its size here): the entry no longer serves, the file is read and stored again.
  write(file, crd_yaml("Widget") + "# edited\n");
  auto third = load_schemas_from_files({file.string()}, {}, cache.string());
  ASSERT_TRUE(third.has_value()) << third.error().message;
  EXPECT_TRUE(third->schemas.has("example.dev/v1", "Widget"));
  EXPECT_FALSE(third->schemas.has("example.dev/v1", "Gadget"));
}

TEST(CrdCache, ABrokenOrForeignEntryOrAnUnwritableFolderIsAMiss) {
  TempDir tmp;
  const fs::path file = tmp.path / "widgets.yaml";
  write(file, crd_yaml("Widget"));
  const fs::path cache = tmp.path / "cache";
  ASSERT_TRUE(load_schemas_from_files({file.string()}, {}, cache.string()).has_value());
  auto stored = entries(cache);
  ASSERT_EQ(stored.size(), 1u);
  write(stored[0], "{\"key\": trunc");
  auto after_broken = load_schemas_from_files({file.string()}, {}, cache.string());
  ASSERT_TRUE(after_broken.has_value()) << after_broken.error().message;
  EXPECT_TRUE(after_broken->schemas.has("example.dev/v1", "Widget"));
  // An entry edited by hand that still parses but holds no CRD, or something else than CRDs, is a miss too (the
  // twenty-ninth user trial: `crds: [{"a": 1}]` left the kind without a schema, silently).
  auto entry = json::parse(read_text(stored[0]));
  ASSERT_TRUE(entry.has_value()) << "the miss stored the entry again";
  const std::string key = json::get_string(*entry, "key").value_or("");
  for (const std::string crds : {"[{\"a\": 1}]", "[]"}) {
    write(stored[0], "{\"key\": " + json::dump(json::Value(rapidjson::StringRef(key.data(), key.size()))) +
                         ", \"crds\": " + crds + "}");
    auto loaded = load_schemas_from_files({file.string()}, {}, cache.string());
    ASSERT_TRUE(loaded.has_value()) << crds << ": " << loaded.error().message;
    EXPECT_TRUE(loaded->schemas.has("example.dev/v1", "Widget")) << crds;
  }
  // A cache "folder" that is a file: nothing can be stored, the CRDs load all the same.
  const fs::path not_a_folder = tmp.path / "plain-file";
  write(not_a_folder, "x");
  auto unwritable = load_schemas_from_files({file.string()}, {}, not_a_folder.string());
  ASSERT_TRUE(unwritable.has_value()) << unwritable.error().message;
  EXPECT_TRUE(unwritable->schemas.has("example.dev/v1", "Widget"));
  // A file that is not valid YAML stays an error, and nothing is stored for it.
  const fs::path bad = tmp.path / "bad.yaml";
  write(bad, "kind: [unclosed\n");
  const fs::path fresh = tmp.path / "fresh";
  EXPECT_FALSE(load_schemas_from_files({bad.string()}, {}, fresh.string()).has_value());
  EXPECT_TRUE(entries(fresh).empty());
}

TEST(CrdCache, TheFolderFollowsTheFlagThenXdgThenHome) {
  char prog[] = "validate", flag[] = "--cache-dir", off[] = "off", dir[] = "/tmp/x";
  char* with_off[] = {prog, flag, off};
  char* with_dir[] = {prog, flag, dir};
  auto a = Args::parse(3, with_off, 1, {{"cache-dir", true}});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(crd_cache_dir(*a), "");
  auto b = Args::parse(3, with_dir, 1, {{"cache-dir", true}});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(crd_cache_dir(*b), "/tmp/x");
  auto none = Args::parse(1, with_dir, 1, {{"cache-dir", true}});
  ASSERT_TRUE(none.has_value());
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/var/cache-xdg", 1);
  EXPECT_EQ(crd_cache_dir(*none), "/var/cache-xdg/codeflare-operator");
  ::unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home && *home) {
    EXPECT_EQ(crd_cache_dir(*none), std::string(home) + "/.cache/codeflare-operator");
  }
  if (xdg) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}
