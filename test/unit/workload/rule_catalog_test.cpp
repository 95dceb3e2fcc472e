// workload/rule_catalog.hpp: every rule id that controller/workload/*.cpp reports is in the catalog with the
// severities it is reported with, and every catalog entry is reported somewhere.
#include "workload/rule_catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace cfo::workload;

namespace {

/// A string literal of a source: its text (escapes as written) and the offset just past its closing quote.
struct Literal {
  std::string text;
  std::size_t end;
};
/// By the offset of the literal's first character (its `"`, or the R of a raw string).
using Literals = std::map<std::size_t, Literal>;

/// `text` with its comments blanked out (offsets kept), so that no call written in a comment is found; its string
/// literals go to `literals`, so that no parenthesis or comma inside one is taken for code.
std::string strip_comments(const std::string& text, Literals& literals) {
  std::string out = text;
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      for (; i < text.size() && text[i] != '\n'; ++i) out[i] = ' ';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = std::min(text.find("*/", i + 2), text.size() - 2) + 2;
      for (; i < end; ++i)
        if (text[i] != '\n') out[i] = ' ';
    } else if (text[i] == 'R' && i + 1 < text.size() && text[i + 1] == '"' && (i == 0 || !ident(text[i - 1]))) {
      const std::size_t open = text.find('(', i + 2);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = text.find(close, open);
      literals[i] = {text.substr(open + 1, end - open - 1), end + close.size()};
      i = end + close.size();
    } else if (text[i] == '"' || (text[i] == '\'' && (i == 0 || !ident(text[i - 1])))) {
      const char quote = text[i];
      std::string body;
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != quote; ++j) {
        if (text[j] == '\\') body += text[j++];
        body += text[j];
      }
      if (quote == '"') literals[i] = {body, j + 1};
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

/// The top-level arguments of the call whose '(' or '{' is at `open`, as [begin, end) offsets.
std::vector<std::pair<std::size_t, std::size_t>> call_args(const std::string& code, const Literals& literals,
                                                           std::size_t open) {
  std::vector<std::pair<std::size_t, std::size_t>> args;
  int depth = 0;
  std::size_t begin = open + 1;
  for (std::size_t i = open; i < code.size(); ++i) {
    if (auto lit = literals.find(i); lit != literals.end()) {
      i = lit->second.end - 1;
      continue;
    }
    const char c = code[i];
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
    if ((depth == 0) || (depth == 1 && c == ',')) {
      args.emplace_back(begin, i);
      begin = i + 1;
      if (depth == 0) break;
    }
  }
  return args;
}

/// Where each rule id is reported in controller/workload/*.cpp, with its severities: the string literals of the rule
/// argument of add_error / add_warning (third; both ids of `labels ? "A" : "B"`), of the files' report_all helpers
/// (third; they call add_error) and of FieldError{path, rule, source, reason, severity} (second). A rule argument
/// without a literal must forward a parameter named `rule` (the helpers themselves); `bad` gets any other.
std::map<std::string, std::set<std::string>> reported_ids(std::vector<std::string>& bad) {
  std::map<std::string, std::set<std::string>> ids;
  const std::filesystem::path dir = std::filesystem::path(cfo::test_support::source_dir()) / "controller" / "workload";
  const std::regex call(R"(\b(add_error|add_warning|report_all)\s*\(|\bFieldError\s*\{)");
  const std::regex forwards(R"(^(.*\s)?(std::move\()?rule\)?$)");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".cpp" && entry.path().filename() != "rule_catalog.cpp") files.push_back(entry);
  EXPECT_GT(files.size(), 20u) << dir;
  for (const auto& file : files) {
    const std::string text = cfo::test_support::read_text(file.string());
    Literals literals;
    const std::string code = strip_comments(text, literals);
    for (std::sregex_iterator it(code.begin(), code.end(), call), end; it != end; ++it) {
      const std::size_t at = it->position(0);
      if (auto next = literals.upper_bound(at); next != literals.begin() && at < std::prev(next)->second.end)
        continue;  // inside a literal: no call
      const bool field_error = (*it)[1].length() == 0;
      const auto args = call_args(code, literals, at + it->length(0) - 1);
      const std::size_t rule_arg = field_error ? 1 : 2;
      const std::string where = file.filename().string() + " offset " + std::to_string(at);
      if (args.size() <= rule_arg) {
        bad.push_back(where + ": fewer arguments than expected");
        continue;
      }
      const auto [from, to] = args[rule_arg];
      std::string severity = (*it)[1] == "add_warning" ? "warning" : "error";
      if (field_error && args.size() > 4 &&
          code.substr(args[4].first, args[4].second - args[4].first).find("Warning") != std::string::npos)
        severity = "warning";
      bool any = false;
      for (auto lit = literals.lower_bound(from); lit != literals.end() && lit->first < to; ++lit) {
        any = true;
        if (!lit->second.text.starts_with("schema:")) ids[lit->second.text].insert(severity);
      }
      std::string arg = code.substr(from, to - from);
      arg.erase(0, arg.find_first_not_of(" \n"));
      arg.erase(arg.find_last_not_of(" \n") + 1);
      if (!any && !std::regex_match(arg, forwards)) bad.push_back(where + ": the rule id is not a literal: " + arg);
    }
  }
  return ids;
}

std::string severity_of(const std::set<std::string>& seen) {
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : ",") + s;  // "error" < "warning"
  return out;
}

}  // namespace

TEST(WorkloadRuleCatalog, ListsEveryReportedRuleAndNoOther) {
  std::vector<std::string> bad;
  const auto reported = reported_ids(bad);
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
  EXPECT_GT(reported.size(), 50u) << "the scan of controller/workload/*.cpp found too few rule ids";
  EXPECT_TRUE(reported.count("MemoryUnits") && reported.count("ReservedLabel") && reported.count("ReservedAnnotation"))
      << "a literal id, and both ids of a conditional";

  std::set<std::string> in_catalog;
  for (const auto& r : workload_rule_catalog()) {
    EXPECT_TRUE(in_catalog.insert(std::string(r.id)).second) << "listed twice: " << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_FALSE(r.id.starts_with("schema:")) << r.id;
    auto it = reported.find(std::string(r.id));
    if (it == reported.end()) {
      ADD_FAILURE() << "in the catalog but reported nowhere: " << r.id;
      continue;
    }
    EXPECT_EQ(r.severity, severity_of(it->second)) << r.id;
  }
  for (const auto& [id, severities] : reported)
    EXPECT_TRUE(in_catalog.count(id)) << "reported by controller/workload/*.cpp but not in the catalog: " << id << " ("
                                      << severity_of(severities) << ")";
}

TEST(WorkloadRuleCatalog, SortedAndFound) {
  const auto all = workload_rule_catalog();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id < b.id; }));
  const WorkloadRuleInfo* m = find_workload_rule("MemoryUnits");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, "error");
  EXPECT_TRUE(m->source.starts_with("codeflare-operator: ")) << "the operator's own rule: " << m->source;
  const WorkloadRuleInfo* req = find_workload_rule("RequestsWithinLimits");
  ASSERT_NE(req, nullptr);
  EXPECT_EQ(req->source, "core/v1:ValidateResourceRequirements") << "a constant of the call site, resolved";
  ASSERT_NE(find_workload_rule("OverwriteDefaultResourceMapping"), nullptr);
  EXPECT_EQ(find_workload_rule("OverwriteDefaultResourceMapping")->severity, "error,warning");
  EXPECT_EQ(find_workload_rule("NoSuchRule"), nullptr);
  EXPECT_EQ(find_workload_rule("schema:required"), nullptr);
  EXPECT_EQ(find_workload_rule(""), nullptr);
}
