#include "cmd/input_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "core/yaml.hpp"

namespace cfo::cmd {

namespace fs = std::filesystem;

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {
Result<void> add_text(const std::string& name, const std::string& text, std::vector<InputDocument>& out) {
  auto docs = yaml::to_json(text);
  if (!docs) return fail(name + ": " + docs.error().message);
  for (std::size_t i = 0; i < docs->size(); ++i) out.push_back({name, i, std::move((*docs)[i])});
  return {};
}
}  // namespace

void ensure_namespace(json::Document& doc, const std::string& ns) {
  json::Value* meta = json::find(doc, "metadata");
  if (meta && meta->IsObject() && !json::find(*meta, "namespace"))
    json::set(*meta, "namespace", json::str(ns, doc.GetAllocator()), doc.GetAllocator());
}

Result<std::vector<InputDocument>> read_inputs(const std::vector<std::string>& paths) {
  std::vector<InputDocument> out;
  for (const auto& p : paths) {
    if (p == "-") {
      std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      if (auto r = add_text("<stdin>", text, out); !r) return std::unexpected(r.error());
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(e.path());
      }
      if (ec) return fail("cannot list " + p + ": " + ec.message());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        auto text = read_file(f);
        if (!text) return std::unexpected(text.error());
        if (auto r = add_text(f, *text, out); !r) return std::unexpected(r.error());
      }
      continue;
    }
    auto text = read_file(p);
    if (!text) return std::unexpected(text.error());
    if (auto r = add_text(p, *text, out); !r) return std::unexpected(r.error());
  }
  return out;
}

}  // namespace cfo::cmd
