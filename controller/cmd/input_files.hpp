#pragma once
// Reading the manifests given with -f: files, folders of *.yaml/*.yml/*.json, or "-" for standard input.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::cmd {

/// One document of an input file, with where it came from for messages.
struct InputDocument {
  std::string file;   ///< the path as given, or "<stdin>"
  std::size_t index;  ///< 0-based document index within the file
  json::Document doc;
};

/// Reads every document of every input (YAML multi-document files; a folder means its *.yaml, *.yml and *.json files
/// in name order). Errors: an unreadable path, or a YAML syntax error (message prefixed with the file name).
Result<std::vector<InputDocument>> read_inputs(const std::vector<std::string>& paths);

/// Gives a namespaced object without metadata.namespace the namespace `ns`, as kubectl does with its context's
/// namespace. Objects without a metadata object are left alone (their checks report it).
void ensure_namespace(json::Document& doc, const std::string& ns);

/// Reads a whole file into a string. Errors name the path.
Result<std::string> read_file(const std::string& path);

}  // namespace cfo::cmd
