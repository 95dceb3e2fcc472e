#include "core/names.hpp"

namespace cfo::names {

namespace {
bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

bool label_shape(std::string_view v) {
  if (v.empty() || !lower_alnum(v.front()) || !lower_alnum(v.back())) return false;
  for (char c : v)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

std::string too_long(std::size_t n) { return "is longer than " + std::to_string(n) + " characters"; }

// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
bool qualified_name_part(std::string_view v) {
  if (v.empty() || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}
}  // namespace

std::vector<std::string> dns1123_label(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > kDNS1123LabelMaxLength) out.push_back(too_long(kDNS1123LabelMaxLength));
  if (!label_shape(v))
    out.emplace_back(
        "must be a DNS-1123 label: lower-case letters, digits and '-', beginning and ending with a letter or digit "
        "(regex [a-z0-9]([-a-z0-9]*[a-z0-9])?)");
  return out;
}

std::vector<std::string> dns1123_subdomain(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > kDNS1123SubdomainMaxLength) out.push_back(too_long(kDNS1123SubdomainMaxLength));
  bool ok = !v.empty();
  std::size_t start = 0;
  while (ok) {
    auto dot = v.find('.', start);
    ok = label_shape(v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok)
    out.emplace_back(
        "must be a DNS-1123 subdomain: dot-separated DNS-1123 labels of lower-case letters, digits and '-' (regex "
        "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  return out;
}

std::vector<std::string> dns1035_label(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > kDNS1035LabelMaxLength) out.push_back(too_long(kDNS1035LabelMaxLength));
  if (!label_shape(v) || !(v.front() >= 'a' && v.front() <= 'z'))
    out.emplace_back(
        "must be a DNS-1035 label: lower-case letters, digits and '-', beginning with a letter and ending with a "
        "letter or digit (regex [a-z]([-a-z0-9]*[a-z0-9])?)");
  return out;
}

std::vector<std::string> qualified_name(std::string_view v) {
  std::vector<std::string> out;
  std::string_view name = v;
  auto slash = v.find('/');
  if (slash != std::string_view::npos) {
    if (v.find('/', slash + 1) != std::string_view::npos) {
      out.emplace_back(
          "must be a qualified name: an optional DNS-1123 subdomain prefix and '/', then a name of letters, digits, "
          "'-', '_' and '.' that begins and ends with a letter or digit");
      return out;
    }
    std::string_view prefix = v.substr(0, slash);
    name = v.substr(slash + 1);
    if (prefix.empty())
      out.emplace_back("prefix part must be non-empty");
    else
      for (auto& m : dns1123_subdomain(prefix)) out.emplace_back("prefix part " + m);
  }
  if (name.empty()) {
    out.emplace_back("name part must be non-empty");
    return out;
  }
  if (name.size() > kQualifiedNameMaxLength) out.emplace_back("name part " + too_long(kQualifiedNameMaxLength));
  if (!qualified_name_part(name))
    out.emplace_back(
        "name part may hold only letters, digits, '-', '_' and '.', and must begin and end with a letter or digit "
        "(regex ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])");
  return out;
}

std::vector<std::string> label_value(std::string_view v) {
  std::vector<std::string> out;
  if (v.empty()) return out;
  if (v.size() > kLabelValueMaxLength) out.push_back(too_long(kLabelValueMaxLength));
  if (!qualified_name_part(v))
    out.emplace_back(
        "must be empty or a label value: letters, digits, '-', '_' and '.', beginning and ending with a letter or "
        "digit (regex (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?)");
  return out;
}

}  // namespace cfo::names
