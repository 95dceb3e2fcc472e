#pragma once
// The one place where YAML enters or leaves the project. Everything inside works on JSON (RapidJSON).
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace cfo::yaml {

/// Converts YAML text (one or more documents separated by `---`) into JSON documents, using LibYAML's event
/// parser. Scalars are resolved as sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) does: plain `true/false/yes/no/on/off`
/// are booleans, plain integers and floats are numbers, `~`/`null`/empty are null; quoted or `!!str`-tagged
/// scalars are strings. Anchors, aliases and `<<` merge keys are expanded, up to one million copied nodes per stream
/// (an error beyond, against alias bombs). A key repeated in one mapping is an error. Empty documents are skipped.
/// Errors carry the line and column of the offending token. Mapping keys must be scalars.
Result<std::vector<json::Document>> to_json(std::string_view text);

/// Converts one JSON value into a YAML document (block style, two-space indent, no `---` marker).
/// Strings that would read back as another type (`"true"`, `"1"`, `"null"`) are double-quoted, multi-line
/// strings use literal style, empty objects and arrays are written `{}` and `[]`.
std::string from_json(const json::Value& v);

}  // namespace cfo::yaml
