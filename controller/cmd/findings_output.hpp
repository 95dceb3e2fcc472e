#pragma once
// How findings are printed by `validate` and `render`: one line each in text, or a JSON array.
#include <ostream>

#include "cmd/input_files.hpp"
#include "core/field_error.hpp"

namespace cfo::cmd {

/// Describes a document for messages: "RayCluster team-a/demo" (kind, namespace/name), or "document 2".
std::string describe_object(const InputDocument& in);

/// One line per finding: `<file>: <Kind ns/name>: <error|warning>: <path>: <reason> [<rule>, <source>]`, with control
/// characters escaped (as \n, \t, \xNN) so that every finding stays on one line.
void print_findings_text(std::ostream& out, const InputDocument& in, const FieldErrors& errs);

/// Appends one JSON object per finding to `arr`: {file, document, apiVersion, kind, namespace, name, path, rule,
/// source, reason, severity}.
void append_findings_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const FieldErrors& errs);

}  // namespace cfo::cmd
